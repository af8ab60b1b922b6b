// drainsim's pg-boss worker: one worker process (one container's) running pg-boss's
// work() on DRAINSIM_QUEUE, DRAINSIM_CONCURRENCY jobs at once: that many work()
// subscriptions of one job each (each polls every 2 s, pg-boss's newJobCheckInterval, 10's
// pollingIntervalSeconds).
// Not one subscription with teamSize and teamRefill: stop() does not see the jobs such a
// team runs (its worker's `jobs` is empty while they run) and stops without waiting. SIGTERM and SIGINT stop it as pg-boss's docs
// tell an application to: `boss.stop({ graceful: true, timeout })` with the scenario's
// grace period as the timeout (pg-boss's default, 30 s, is the profile's), then, once
// pg-boss says `stopped`, exit. Both releases' stop() wait for the running jobs up to the
// timeout (9 checks once a second, 10 every half second); then 9 stops without touching
// them (they stay active until they expire), while 10 fails them (retried as its retry
// policy says), and their bodies, still running, end `interrupted` at the exit. A job
// sleeps its duration, or throws its own error after fails[attempt - 1] seconds. Events:
// ready, shutdown, and start/end of every attempt (adapters/README.md); `attempt` is
// pg-boss's retry count + 1 (10 counts a retry when the job is fetched again, 9 when it
// fails: the same number for each run).
'use strict';
const { boss: makeBoss, start, jobOf, retriesOf, queueName, v10 } = require('./common');
const { event, runJob, endOpenRuns } = require('../node/drainsim');

const concurrency = Number(process.env.DRAINSIM_CONCURRENCY || 1);
const grace = process.env.DRAINSIM_GRACE_PERIOD || '30';
// expireInSeconds, which enqueue.js sets on every job from the same variable.
const expireIn = Math.max(1, Math.round(Number(process.env.DRAINSIM_VISIBILITY_TIMEOUT || 900)));
const handler = (arg) => {
  const job = jobOf(arg);
  return runJob(job.data, retriesOf(job) + 1, { pgboss_id: job.id });
};

async function main() {
  const boss = makeBoss({ worker: true });
  let stopping = false;
  async function shutdown(signal) {
    if (stopping) return;  // already stopping
    stopping = true;
    console.log(`${signal}: stopping pg-boss`);
    event({ event: 'shutdown' });
    boss.on('stopped', () => {
      // Failed by stop(): pg-boss has let them go. Not a run older than its expireIn: its
      // handler's time limit failed its job already and freed its subscription, and the
      // run dies with the process, reported by nobody.
      if (v10) endOpenRuns('interrupted', (r) => Date.now() / 1000 - r.started < expireIn);
      process.exit(0);
    });
    // "forever" has no pg-boss equivalent: a day stands for it.
    const timeout = grace === 'forever' ? 86400000 : Math.round(Number(grace) * 1000);
    await boss.stop({ graceful: true, timeout });
  }
  process.on('SIGTERM', () => shutdown('SIGTERM'));
  process.on('SIGINT', () => shutdown('SIGINT'));
  await start(boss, { worker: true });
  for (let i = 0; i < concurrency; ++i) {
    await boss.work(queueName, { includeMetadata: true }, handler);
  }
  event({ event: 'ready' });
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
