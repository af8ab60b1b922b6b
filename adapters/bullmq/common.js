// What the BullMQ adapter's three programs share: the Redis connection drainsim gives
// (DRAINSIM_BROKER_URL, a unix:// socket URL, as ioredis options) and the queue's name.
// The events, stdin lines and job body are every Node adapter's (../node/drainsim.js).
'use strict';

function connection() {
  const url = process.env.DRAINSIM_BROKER_URL || '';
  if (!url.startsWith('unix://')) throw new Error(`DRAINSIM_BROKER_URL: expected unix://PATH, got "${url}"`);
  // BullMQ's workers block on Redis: ioredis must not give up on a command.
  return { path: url.slice('unix://'.length), maxRetriesPerRequest: null };
}

const queueName = process.env.DRAINSIM_QUEUE || 'default';

module.exports = { connection, queueName };
