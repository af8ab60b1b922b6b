// drainsim's BullMQ inspector: where Redis holds each drainsim job at the end of a run,
// through BullMQ's Queue API (getJobs by state), and the versions measured. Prints one
// JSON object (adapters/README.md): waiting and prioritized are available, delayed is
// scheduled (a retry's backoff), active, completed, and failed is discarded.
'use strict';
const { connection, load, queueName } = require('./common');
const { Queue } = load('bullmq');
const IORedis = load('ioredis');

const states = { wait: 'available', prioritized: 'available', 'waiting-children': 'available',
                 delayed: 'scheduled', active: 'active', completed: 'completed', failed: 'discarded' };

async function main() {
  const queue = new Queue(queueName, { connection: connection() });
  const jobs = {};
  for (const [state, name] of Object.entries(states)) {
    for (const job of await queue.getJobs([state], 0, -1)) {
      if (job && job.data && job.data.job !== undefined) jobs[job.data.job] = name;
    }
  }
  const client = new IORedis(connection());
  const redis = (/redis_version:(\S+)/.exec(await client.info('server')) || [])[1];
  client.disconnect();
  const versions = { bullmq: load('bullmq/package.json').version,
                     ioredis: load('ioredis/package.json').version,
                     node: process.versions.node, redis };
  process.stdout.write(JSON.stringify({ versions, jobs }) + '\n');
  await queue.close();
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
