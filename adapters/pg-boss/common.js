// What the pg-boss adapter's three programs share: the PostgreSQL connection drainsim gives
// (DRAINSIM_BROKER_URL, postgresql://drainsim@/drainsim?host=DIR, a unix socket folder) and
// the queue's name. The events, stdin lines and job body are every Node adapter's
// (../node/drainsim.js).
'use strict';
const PgBoss = require('pg-boss');

// A PgBoss on drainsim's database. Only workers supervise (expire, archive) and schedule,
// as in an application whose enqueuer is a web process.
function boss({ worker }) {
  const url = process.env.DRAINSIM_BROKER_URL || '';
  if (!url.startsWith('postgresql://')) {
    throw new Error(`DRAINSIM_BROKER_URL: expected postgresql://..., got "${url}"`);
  }
  const options = { connectionString: url, noSupervisor: !worker, noScheduling: !worker };
  // The profile's expiry_check_interval: pg-boss 9 expires jobs in its maintenance, which it
  // runs every maintenanceIntervalSeconds (whole seconds, at least 1).
  const every = process.env.DRAINSIM_OPT_EXPIRY_CHECK_INTERVAL;
  if (every) {
    const s = Number(every);
    if (!Number.isInteger(s) || s < 1) {
      throw new Error(`expiry_check_interval: pg-boss takes whole seconds, at least 1, got ${every}`);
    }
    options.maintenanceIntervalSeconds = s;
  }
  const b = new PgBoss(options);
  b.on('error', (err) => console.error('pg-boss error:', err.message));
  return b;
}

const queueName = process.env.DRAINSIM_QUEUE || 'default';

module.exports = { boss, queueName };
