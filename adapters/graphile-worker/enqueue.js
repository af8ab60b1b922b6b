// drainsim's graphile-worker enqueuer: reads one job per line on stdin, "JOB DURATION_S
// [FAIL_1 FAIL_2 ...] [class=NAME attempts=N [serial=true]]" (FAIL_k: "-" or the seconds
// after which attempt k fails), and adds it at once with WorkerUtils.addJob (jobKey: JOB;
// maxAttempts: the class's attempts, else DRAINSIM_MAX_ATTEMPTS, graphile-worker's 25
// without either; a serial class's jobs share the named queue "drainsim-NAME", which runs
// them one at a time); prints "enqueued JOB" once PostgreSQL has it. Exits 0 at the end of
// its input.
'use strict';
const { makeWorkerUtils } = require('graphile-worker');
const { connectionString, task, migrating } = require('./common');
const { jobLines } = require('../node/drainsim');

async function main() {
  // makeWorkerUtils migrates the schema itself, racing the first workers' migrations.
  const utils = await migrating(() => makeWorkerUtils({ connectionString: connectionString() }));
  const options = {};
  if (process.env.DRAINSIM_MAX_ATTEMPTS) options.maxAttempts = Number(process.env.DRAINSIM_MAX_ATTEMPTS);
  for await (const { payload, push } of jobLines()) {
    const own = {};
    if (push.attempts) own.maxAttempts = push.attempts;
    if (push.serial) own.queueName = `drainsim-${push.class}`;
    await utils.addJob(task, payload, { ...options, ...own, jobKey: String(payload.job) });
    process.stdout.write(`enqueued ${payload.job}\n`);
  }
  await utils.release();
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
