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

module.exports = { connectionString, task };
