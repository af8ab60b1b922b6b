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
const { connectionString, task, event } = require('./common');

// Sleeps `s` seconds; resolves false early if `signal` aborts.
function sleep(s, signal) {
  return new Promise((resolve) => {
    if (signal && signal.aborted) return resolve(false);
    const timer = setTimeout(() => resolve(true), s * 1000);
    if (signal) signal.addEventListener('abort', () => { clearTimeout(timer); resolve(false); });
  });
}

async function drainsimSleep(payload, helpers) {
  const { job: id, duration_s: duration, fails = [] } = payload;
  const attempt = helpers.job.attempts;
  event({ event: 'start', job: id, attempt, graphile_id: String(helpers.job.id) });
  const failAfter = fails[attempt - 1];
  const failing = typeof failAfter === 'number' && failAfter < duration;
  if (!await sleep(failing ? failAfter : duration, helpers.abortSignal)) {
    event({ event: 'end', job: id, attempt, outcome: 'interrupted' });
    throw new Error(`drainsim: job ${id} aborted by the worker's shutdown`);
  }
  if (failing) {
    event({ event: 'end', job: id, attempt, outcome: 'failed' });
    throw new Error(`drainsim: job ${id} fails as the scenario says`);
  }
  event({ event: 'end', job: id, attempt, outcome: 'completed' });
}

async function main() {
  const runner = await run({
    connectionString: connectionString(),
    concurrency: Number(process.env.DRAINSIM_CONCURRENCY || 1),
    taskList: { [task]: drainsimSleep },
  });
  runner.events.on('gracefulShutdown', () => event({ event: 'shutdown' }));
  runner.events.on('forcefulShutdown', () => event({ event: 'shutdown', how: 'forceful' }));
  event({ event: 'ready' });
  await runner.promise;
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
