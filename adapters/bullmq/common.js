// What the BullMQ adapter's three programs share: the Redis connection drainsim gives
// (DRAINSIM_BROKER_URL, a unix:// socket URL, as ioredis options) and the queue's name.
// The events, stdin lines and job body are every Node adapter's (../node/drainsim.js).
// The BullMQ release is the one installed in DRAINSIM_BULLMQ_RELEASE (a folder with its
// package-lock.json and node_modules), this folder's 6.7 when unset: adapters/bullmq-4 runs
// these same programs on BullMQ 4.
'use strict';

// `require(name)` as from the release's folder.
function load(name) {
  const from = process.env.DRAINSIM_BULLMQ_RELEASE || __dirname;
  return require(require.resolve(name, { paths: [from] }));
}

function connection() {
  const url = process.env.DRAINSIM_BROKER_URL || '';
  if (!url.startsWith('unix://')) throw new Error(`DRAINSIM_BROKER_URL: expected unix://PATH, got "${url}"`);
  // BullMQ's workers block on Redis: ioredis must not give up on a command.
  return { path: url.slice('unix://'.length), maxRetriesPerRequest: null };
}

const queueName = process.env.DRAINSIM_QUEUE || 'default';

module.exports = { connection, load, queueName };
