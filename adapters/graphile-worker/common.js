// What the graphile-worker adapter's three programs share: the PostgreSQL connection
// drainsim gives (DRAINSIM_BROKER_URL, postgresql://drainsim@/drainsim?host=DIR, a unix
// socket folder) and the events file (adapters/README.md): one JSON line per event, one
// write each, O_APPEND. The task is "drainsim_sleep"; each job's key (graphile-worker's
// jobKey) is drainsim's job id, which is how the inspector finds it.
'use strict';
const fs = require('fs');

function connectionString() {
  const url = process.env.DRAINSIM_BROKER_URL || '';
  if (!url.startsWith('postgresql://')) {
    throw new Error(`DRAINSIM_BROKER_URL: expected postgresql://..., got "${url}"`);
  }
  return url;
}

const task = 'drainsim_sleep';

let events = null;
function event(fields) {
  if (events === null) events = fs.openSync(process.env.DRAINSIM_EVENTS, 'a');
  const line = JSON.stringify(Object.assign(
      { t: Date.now() / 1000, pid: process.pid, worker: process.env.DRAINSIM_WORKER || 'worker' },
      fields));
  fs.writeSync(events, line + '\n');
}

module.exports = { connectionString, task, event };
