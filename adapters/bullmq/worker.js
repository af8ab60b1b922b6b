// drainsim's BullMQ worker: one worker process (one container's) running BullMQ's Worker
// on DRAINSIM_QUEUE with DRAINSIM_CONCURRENCY, the stalled-job settings drainsim's
// profile options give (DRAINSIM_OPT_STALLED_INTERVAL in seconds,
// DRAINSIM_OPT_MAX_STALLED_COUNT) and the lock the scenario gives: lockDuration is
// backend.visibility_timeout (DRAINSIM_VISIBILITY_TIMEOUT) and lockRenewTime twice
// worker.heartbeat_interval (DRAINSIM_HEARTBEAT_INTERVAL), since BullMQ's lock extender
// ticks every lockRenewTime / 2. SIGTERM and SIGINT close it as BullMQ's guide on graceful
// shutdown tells an application to: `await worker.close()` (which waits for the
// running jobs), then exit. A job sleeps its duration, or throws its own error after
// fails[attempt - 1] seconds. Events: ready, shutdown, and start/end of every attempt
// (adapters/README.md); `attempt` is BullMQ's own count (below); and
// `available` when this worker's stalled-job check has moved a job back to wait (the
// Worker's 'stalled' event, emitted once the move is done, with the job's id: "dJOB", as
// the enqueuer adds it).
'use strict';
const { connection, load, queueName } = require('./common');
const { Worker } = load('bullmq');
const { event, runJob } = require('../node/drainsim');

const options = {
  connection: connection(),
  concurrency: Number(process.env.DRAINSIM_CONCURRENCY || 1),
};
if (process.env.DRAINSIM_VISIBILITY_TIMEOUT) {
  options.lockDuration = Math.round(Number(process.env.DRAINSIM_VISIBILITY_TIMEOUT) * 1000);
}
if (process.env.DRAINSIM_HEARTBEAT_INTERVAL) {
  options.lockRenewTime = Math.round(Number(process.env.DRAINSIM_HEARTBEAT_INTERVAL) * 2000);
}
if (process.env.DRAINSIM_OPT_STALLED_INTERVAL) {
  options.stalledInterval = Number(process.env.DRAINSIM_OPT_STALLED_INTERVAL) * 1000;
}
if (process.env.DRAINSIM_OPT_MAX_STALLED_COUNT) {
  options.maxStalledCount = Number(process.env.DRAINSIM_OPT_MAX_STALLED_COUNT);
}

// The attempt: BullMQ 4.12 counts a start in attemptsMade as it hands the job out (a
// stalled job's new start included: prepareJobForProcessing.lua); BullMQ 6.7 counts finished
// attempts there, and starts in attemptsStarted.
const countsStarts = Number(load('bullmq/package.json').version.split('.')[0]) < 5;
const attempt = (job) => (countsStarts ? job.attemptsMade : job.attemptsMade + 1);
const worker = new Worker(queueName,
    (job) => runJob(job.data, attempt(job), { bullmq_id: job.id }), options);

worker.on('ready', () => event({ event: 'ready' }));
worker.on('stalled', (jobId) => event({ event: 'available', job: Number(jobId.slice(1)) }));
worker.on('error', (err) => console.error('worker error:', err.message));

let closing = false;
async function shutdown(signal) {
  if (closing) return;  // already waiting for the running jobs
  closing = true;
  console.log(`${signal}: closing the worker`);
  event({ event: 'shutdown' });
  await worker.close();
  process.exit(0);
}
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
