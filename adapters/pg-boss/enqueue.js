// drainsim's pg-boss enqueuer: reads one job per line on stdin, "JOB DURATION_S
// [FAIL_1 FAIL_2 ...] [class=NAME attempts=N [singleton=true]]" (FAIL_k: "-" or the seconds
// after which attempt k fails), and sends it at once with boss.send onto DRAINSIM_QUEUE:
// retryLimit the class's attempts - 1, else DRAINSIM_MAX_ATTEMPTS - 1, retried at once (no
// retryDelay), expireInSeconds DRAINSIM_VISIBILITY_TIMEOUT when given (pg-boss's 15 min
// otherwise), a singleton class's jobs with the class's name as their singletonKey; prints
// "enqueued JOB" once PostgreSQL has it, or "refused JOB" when pg-boss created no job (the
// key was taken). Exits 0 at the end of its input.
'use strict';
const { boss: makeBoss, start, queueName } = require('./common');
const { jobLines } = require('../node/drainsim');

const options = {};
if (process.env.DRAINSIM_MAX_ATTEMPTS) options.retryLimit = Number(process.env.DRAINSIM_MAX_ATTEMPTS) - 1;
if (process.env.DRAINSIM_VISIBILITY_TIMEOUT) {
  options.expireInSeconds = Math.max(1, Math.round(Number(process.env.DRAINSIM_VISIBILITY_TIMEOUT)));
}

async function main() {
  const boss = makeBoss({ worker: false });
  await start(boss, { worker: false });
  for await (const { payload: data, push } of jobLines()) {
    const own = {};
    if (push.attempts) own.retryLimit = push.attempts - 1;
    if (push.singleton) own.singletonKey = push.class;
    // send() returns null when it created no job: the singleton key is taken.
    const id = await boss.send(queueName, data, { ...options, ...own });
    process.stdout.write(`${id === null ? 'refused' : 'enqueued'} ${data.job}\n`);
  }
  await boss.stop({ graceful: false, destroy: true, close: true });  // 9 says destroy, 10 close
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
