// drainsim's pg-boss inspector: where PostgreSQL holds each drainsim job at the end of a
// run, read from pg-boss's job table (its documented schema, pgboss.job; pg-boss 9 has no
// API that lists jobs by state), and the versions measured. Prints one JSON object
// (adapters/README.md): created is available, retry is scheduled while its startAfter is
// ahead (else available), active, completed, and expired (out of retries), cancelled and
// failed are discarded.
'use strict';
const { Client } = require('pg');
const { queueName } = require('./common');

const states = { created: 'available', retry: 'available', active: 'active',
                 completed: 'completed', expired: 'discarded', cancelled: 'discarded',
                 failed: 'discarded' };

async function main() {
  const client = new Client({ connectionString: process.env.DRAINSIM_BROKER_URL });
  await client.connect();
  const jobs = {};
  const exists = await client.query("SELECT to_regclass('pgboss.job') IS NOT NULL AS yes");
  if (exists.rows[0].yes) {
    const { rows } = await client.query(
        `SELECT data->>'job' AS job, state::text AS state, startafter > now() AS later
           FROM pgboss.job WHERE name = $1`, [queueName]);
    for (const r of rows) {
      if (r.job !== null) jobs[r.job] = r.state === 'retry' && r.later ? 'scheduled' : states[r.state];
    }
  }
  const server = (await client.query('SHOW server_version')).rows[0].server_version;
  await client.end();
  const versions = { 'pg-boss': require('pg-boss/package.json').version,
                     pg: require('pg/package.json').version, node: process.versions.node,
                     postgresql: server };
  process.stdout.write(JSON.stringify({ versions, jobs }) + '\n');
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
