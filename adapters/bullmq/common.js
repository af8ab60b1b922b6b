// What the BullMQ adapter's three programs share: the Redis connection drainsim gives
// (DRAINSIM_BROKER_URL, a unix:// socket URL, as ioredis options), the queue's name, and the
// events file (adapters/README.md): one JSON line per event, one write each, O_APPEND.
'use strict';
const fs = require('fs');

function connection() {
  const url = process.env.DRAINSIM_BROKER_URL || '';
  if (!url.startsWith('unix://')) throw new Error(`DRAINSIM_BROKER_URL: expected unix://PATH, got "${url}"`);
  // BullMQ's workers block on Redis: ioredis must not give up on a command.
  return { path: url.slice('unix://'.length), maxRetriesPerRequest: null };
}

const queueName = process.env.DRAINSIM_QUEUE || 'default';

let events = null;
function event(fields) {
  if (events === null) events = fs.openSync(process.env.DRAINSIM_EVENTS, 'a');
  const line = JSON.stringify(Object.assign(
      { t: Date.now() / 1000, pid: process.pid, worker: process.env.DRAINSIM_WORKER || 'worker' },
      fields));
  fs.writeSync(events, line + '\n');
}

module.exports = { connection, queueName, event };
