// What the pg-boss adapter's three programs share: the PostgreSQL connection drainsim gives
// (DRAINSIM_BROKER_URL, postgresql://drainsim@/drainsim?host=DIR, a unix socket folder), the
// queue's name, and what differs between the releases they run on. The events, stdin lines
// and job body are every Node adapter's (../node/drainsim.js).
// The pg-boss release is the one installed in DRAINSIM_PGBOSS_RELEASE (a folder with its
// package-lock.json and node_modules), this folder's 9.0.3 when unset: adapters/pg-boss-10
// runs these same programs on pg-boss 10.
'use strict';

// `require(name)` as from the release's folder.
function load(name) {
  const from = process.env.DRAINSIM_PGBOSS_RELEASE || __dirname;
  return require(require.resolve(name, { paths: [from] }));
}

const PgBoss = load('pg-boss');
const version = load('pg-boss/package.json').version;
// pg-boss 10: a queue must be created before jobs are sent to it or worked; work()'s
// handler takes an array of jobs (batchSize, 1 here) with camelCase metadata; the supervisor
// and scheduler are turned off with supervise/schedule false; stop() fails the jobs still
// active at its timeout; the job table's columns are snake_case (start_after).
const v10 = Number(version.split('.')[0]) >= 10;

const queueName = process.env.DRAINSIM_QUEUE || 'default';

// A PgBoss on drainsim's database. Only workers supervise (expire, archive) and schedule,
// as in an application whose enqueuer is a web process.
function boss({ worker }) {
  const url = process.env.DRAINSIM_BROKER_URL || '';
  if (!url.startsWith('postgresql://')) {
    throw new Error(`DRAINSIM_BROKER_URL: expected postgresql://..., got "${url}"`);
  }
  const options = v10 ? { connectionString: url, supervise: worker, schedule: worker }
                      : { connectionString: url, noSupervisor: !worker, noScheduling: !worker };
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

// Starts `b`. pg-boss 10: the enqueuer (not a worker) then creates the queue, before its
// first send (a deploy step's work): createQueue called by several processes at once
// deadlocked in PostgreSQL (measured, 10.4.2), and a worker's fetch finds nothing in a
// queue not created yet.
// Even so, createQueue's ALTER TABLE can deadlock with a worker's start (PostgreSQL's
// 40P01, about 1 run in 12 of RealFaults on pg-boss 10): PostgreSQL rolls the loser back,
// so it is tried again, a few times.
async function start(b, { worker }) {
  await b.start();
  if (!v10 || worker) return;
  for (let tries = 1; ; tries++) {
    try {
      await b.createQueue(queueName);
      return;
    } catch (err) {
      if (err.code !== '40P01' || tries >= 5) throw err;
      await new Promise((resolve) => setTimeout(resolve, 50 * tries));
    }
  }
}

// The one job a work() handler is given: pg-boss 10 passes an array, 9 the job.
function jobOf(arg) {
  return Array.isArray(arg) ? arg[0] : arg;
}

// How many times pg-boss has retried `job` (includeMetadata): 10's retryCount, 9's
// retrycount.
function retriesOf(job) {
  return v10 ? job.retryCount : job.retrycount;
}

module.exports = { boss, start, jobOf, retriesOf, load, queueName, version, v10 };
