// What the pg-boss adapter's three programs share: the PostgreSQL connection drainsim gives
// (DRAINSIM_BROKER_URL, postgresql://drainsim@/drainsim?host=DIR, a unix socket folder), the
// queue's name, and the events file (adapters/README.md): one JSON line per event, one
// write each, O_APPEND.
'use strict';
const fs = require('fs');
const PgBoss = require('pg-boss');

// A PgBoss on drainsim's database. Only workers supervise (expire, archive) and schedule,
// as in an application whose enqueuer is a web process.
function boss({ worker }) {
  const url = process.env.DRAINSIM_BROKER_URL || '';
  if (!url.startsWith('postgresql://')) {
    throw new Error(`DRAINSIM_BROKER_URL: expected postgresql://..., got "${url}"`);
  }
  const b = new PgBoss({ connectionString: url, noSupervisor: !worker, noScheduling: !worker });
  b.on('error', (err) => console.error('pg-boss error:', err.message));
  return b;
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

module.exports = { boss, queueName, event };
