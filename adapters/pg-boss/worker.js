// drainsim's pg-boss worker: one worker process (one container's) running pg-boss 9's
// work() on DRAINSIM_QUEUE, DRAINSIM_CONCURRENCY jobs at once: that many work()
// subscriptions of one job each (each polls every 2 s, pg-boss's newJobCheckInterval).
// Not one subscription with teamSize and teamRefill: stop() does not see the jobs such a
// team runs (its worker's `jobs` is empty while they run) and stops without waiting. SIGTERM and SIGINT stop it as pg-boss's docs
// tell an application to: `boss.stop({ graceful: true, timeout })` with the scenario's
// grace period as the timeout (pg-boss's default, 30 s, is the profile's), then, once
// pg-boss says `stopped`, exit. pg-boss 9's stop waits for the running jobs up to the
// timeout and then stops without touching them: they stay active until they expire. A job
// sleeps its duration, or throws its own error after fails[attempt - 1] seconds. Events:
// ready, shutdown, and start/end of every attempt (adapters/README.md); `attempt` is
// pg-boss's retrycount + 1.
'use strict';
const { boss: makeBoss, queueName } = require('./common');
const { event, runJob } = require('../node/drainsim');

const concurrency = Number(process.env.DRAINSIM_CONCURRENCY || 1);
const grace = process.env.DRAINSIM_GRACE_PERIOD || '30';
const handler = (job) => runJob(job.data, job.retrycount + 1, { pgboss_id: job.id });

async function main() {
  const boss = makeBoss({ worker: true });
  let stopping = false;
  async function shutdown(signal) {
    if (stopping) return;  // already stopping
    stopping = true;
    console.log(`${signal}: stopping pg-boss`);
    event({ event: 'shutdown' });
    boss.on('stopped', () => process.exit(0));
    // "forever" has no pg-boss equivalent: a day stands for it.
    const timeout = grace === 'forever' ? 86400000 : Math.round(Number(grace) * 1000);
    await boss.stop({ graceful: true, timeout });
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  await boss.start();
  for (let i = 0; i < concurrency; ++i) {
    await boss.work(queueName, { includeMetadata: true }, handler);
  }
  event({ event: 'ready' });
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
