// drainsim's pg-boss inspector: where PostgreSQL holds each drainsim job at the end of a
// run, read from pg-boss's job table (its documented schema, pgboss.job, partitioned by
// queue in 10; pg-boss 9 has no API that lists jobs by state), and the versions measured.
// Prints one JSON object (adapters/README.md): created is available, retry is scheduled
// while its start time is ahead (else available), active, completed, and expired (9: out
// of retries), cancelled and failed are discarded.
'use strict';
const { load, queueName, version, v10 } = require('./common');

const { Client } = load('pg');

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
        `SELECT data->>'job' AS job, state::text AS state, ${v10 ? 'start_after' : 'startafter'} > now() AS later
           FROM pgboss.job WHERE name = $1`, [queueName]);
    for (const r of rows) {
      if (r.job !== null) jobs[r.job] = r.state === 'retry' && r.later ? 'scheduled' : states[r.state];
    }
  }
  const server = (await client.query('SHOW server_version')).rows[0].server_version;
  await client.end();
  const versions = { 'pg-boss': version,
                     pg: load('pg/package.json').version, node: process.versions.node,
                     postgresql: server };
  process.stdout.write(JSON.stringify({ versions, jobs }) + '\n');
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
