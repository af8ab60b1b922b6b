// drainsim's BullMQ enqueuer: reads one job per line on stdin, "JOB DURATION_S
// [FAIL_1 FAIL_2 ...]" (FAIL_k: "-" or the seconds after which attempt k fails), and adds
// it at once with Queue.add onto DRAINSIM_QUEUE, `attempts` DRAINSIM_MAX_ATTEMPTS (BullMQ's
// default, 1, without it), its BullMQ job id "dJOB" (drainsim's, so the worker's events
// about a job by its id name drainsim's; BullMQ refuses an id of "0"); prints "enqueued JOB" once Redis has it. Lines are added in
// order; it exits 0 at the end of its input.
'use strict';
const { connection, load, queueName } = require('./common');
const { Queue } = load('bullmq');
const { jobLines } = require('../node/drainsim');

const queue = new Queue(queueName, { connection: connection() });
const attempts = process.env.DRAINSIM_MAX_ATTEMPTS ? Number(process.env.DRAINSIM_MAX_ATTEMPTS) : undefined;

async function main() {
  for await (const { payload: data } of jobLines()) {
    await queue.add('drainsim', data, { jobId: `d${data.job}`, ...(attempts ? { attempts } : {}) });
    process.stdout.write(`enqueued ${data.job}\n`);
  }
  await queue.close();
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
