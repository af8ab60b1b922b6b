// drainsim's graphile-worker worker: one worker process (one container's) running
// graphile-worker 0.16's run() with DRAINSIM_CONCURRENCY and its own signal handling, as
// its docs describe it: the first SIGTERM or SIGINT starts a graceful shutdown (no new
// jobs; running jobs go on; after gracefulShutdownAbortTimeout, 5 s, their abortSignal
// fires; the jobs still running when their workers are released are failed), then the
// process kills itself with that signal; signals in the next 5 s are ignored, a later one
// is a forceful shutdown (running jobs failed at once). A job sleeps its duration, or
// throws its own error after fails[attempt - 1] seconds; it honours helpers.abortSignal
// (graphile-worker's cancellation API): aborted, it ends "interrupted" and throws, so the
// job fails and is retried after graphile-worker's exp(attempts) s backoff. Events: ready,
// shutdown, and start/end of every attempt (adapters/README.md); `attempt` is the job's
// `attempts` (counted when it is taken).
'use strict';
const { run } = require('graphile-worker');
const { connectionString, task, migrating } = require('./common');
const { event, runJob } = require('../node/drainsim');

const drainsimSleep = (payload, helpers) =>
  runJob(payload, helpers.job.attempts, { graphile_id: String(helpers.job.id) }, helpers.abortSignal);

async function main() {
  const runner = await migrating(() => run({
    connectionString: connectionString(),
    concurrency: Number(process.env.DRAINSIM_CONCURRENCY || 1),
    taskList: { [task]: drainsimSleep },
  }));
  runner.events.on('gracefulShutdown', () => event({ event: 'shutdown' }));
  runner.events.on('forcefulShutdown', () => event({ event: 'shutdown', how: 'forceful' }));
  event({ event: 'ready' });
  await runner.promise;
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
