// What the graphile-worker adapter's three programs share: the PostgreSQL connection
// drainsim gives (DRAINSIM_BROKER_URL, postgresql://drainsim@/drainsim?host=DIR, a unix
// socket folder) and the task's name, "drainsim_sleep"; each job's key (graphile-worker's
// jobKey) is drainsim's job id, which is how the inspector finds it. The events, stdin
// lines and job body are every Node adapter's (../node/drainsim.js).
'use strict';

function connectionString() {
  const url = process.env.DRAINSIM_BROKER_URL || '';
  if (!url.startsWith('postgresql://')) {
    throw new Error(`DRAINSIM_BROKER_URL: expected postgresql://..., got "${url}"`);
  }
  return url;
}

const task = 'drainsim_sleep';

// `f()` again while it fails on a race to create graphile-worker's schema: the enqueuer
// and the first workers start together, and two first migrations collide on PostgreSQL's
// catalog (a unique violation, 23505); the loser succeeds once the winner is done.
async function migrating(f) {
  for (let tries = 1; ; ++tries) {
    try {
      return await f();
    } catch (err) {
      if (err.code !== '23505' || tries >= 20) throw err;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
}

module.exports = { connectionString, task, migrating };
