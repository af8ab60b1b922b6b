// drainsim's graphile-worker inspector: where PostgreSQL holds each drainsim job at the end
// of a run, from graphile-worker's public jobs view (graphile_worker.jobs; a completed job
// is deleted, so it is left out), and the versions measured. Prints one JSON object
// (adapters/README.md): locked is active; out of attempts (attempts >= max_attempts) is
// discarded (graphile-worker keeps a permanently failed job); run_at ahead (a retry's
// backoff) is scheduled; else available.
'use strict';
const { Client } = require('pg');
const { connectionString, task } = require('./common');

async function main() {
  const client = new Client({ connectionString: connectionString() });
  await client.connect();
  const jobs = {};
  const exists = await client.query("SELECT to_regclass('graphile_worker.jobs') IS NOT NULL AS yes");
  if (exists.rows[0].yes) {
    const { rows } = await client.query(
        `SELECT key, locked_at IS NOT NULL AS locked, attempts >= max_attempts AS spent,
                run_at > now() AS later
           FROM graphile_worker.jobs WHERE task_identifier = $1`, [task]);
    for (const r of rows) {
      if (r.key === null) continue;
      jobs[r.key] = r.locked ? 'active' : r.spent ? 'discarded' : r.later ? 'scheduled' : 'available';
    }
  }
  const server = (await client.query('SHOW server_version')).rows[0].server_version;
  await client.end();
  const versions = { 'graphile-worker': require('graphile-worker/package.json').version,
                     pg: require('pg/package.json').version, node: process.versions.node,
                     postgresql: server };
  process.stdout.write(JSON.stringify({ versions, jobs }) + '\n');
}
main().catch((err) => {
  console.error(err);
  process.exit(1);
});
