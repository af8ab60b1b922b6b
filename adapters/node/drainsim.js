// What drainsim's Node adapters (bullmq/, pg-boss/, graphile-worker/) share, the contract
// of adapters/README.md in Node, with nothing beyond Node's own modules:
// - event(fields): one JSON line appended to DRAINSIM_EVENTS (one write, O_APPEND), with
//   t (unix seconds), pid and worker (DRAINSIM_WORKER) filled in;
// - jobLines(): the enqueuer's stdin, "JOB DURATION_S [FAIL_1 ...] [class=NAME attempts=N
//   [serial=true] [singleton=true]]", as {payload, push}: the job's payload {job,
//   duration_s, fails} (a fail is null for "-", else seconds) and what the push asks of the
//   system, {class, attempts, serial, singleton} (empty without job classes);
// - runJob(payload, attempt, fields, abortSignal): the job body. It sleeps its duration,
//   or fails after fails[attempt - 1] seconds, writing the start and end events; it throws
//   the job's own error on a failure, and, when `abortSignal` (the system's cancellation
//   API) aborts first, returns DRAINSIM_CANCEL_LATENCY seconds later: ends "interrupted"
//   and throws;
// - endOpenRuns(outcome, which): ends every job body still running with `outcome` (or
//   those for which which({job, attempt, started}) is true, `started` in unix seconds), for
//   a system that has let those jobs go (pg-boss 10's stop() fails them) when the process
//   exits before the bodies return.
'use strict';
const fs = require('fs');
const readline = require('readline');

let events = null;
function event(fields) {
  if (events === null) events = fs.openSync(process.env.DRAINSIM_EVENTS, 'a');
  const line = JSON.stringify(Object.assign(
      { t: Date.now() / 1000, pid: process.pid, worker: process.env.DRAINSIM_WORKER || 'worker' },
      fields));
  fs.writeSync(events, line + '\n');
}

async function* jobLines() {
  const lines = readline.createInterface({ input: process.stdin, terminal: false });
  for await (const line of lines) {
    const [job, duration, ...rest] = line.trim().split(/\s+/);
    if (!job) continue;
    const fails = rest.filter((w) => !w.includes('='));
    const push = {};
    for (const w of rest.filter((x) => x.includes('='))) {
      const [key, value] = w.split('=');
      push[key] = key === 'class' ? value : key === 'attempts' ? Number(value) : value === 'true';
    }
    yield { payload: { job: Number(job), duration_s: Number(duration),
                       fails: fails.map((f) => (f === '-' ? null : Number(f))) },
            push };
  }
}

// Sleeps `s` seconds; resolves false early if `signal` aborts.
function sleep(s, signal) {
  return new Promise((resolve) => {
    if (signal && signal.aborted) return resolve(false);
    const timer = setTimeout(() => resolve(true), s * 1000);
    if (signal) signal.addEventListener('abort', () => { clearTimeout(timer); resolve(false); });
  });
}

// How long a job takes to return once aborted: the scenario's workload.cancel.latency.
const cancelLatency = Number(process.env.DRAINSIM_CANCEL_LATENCY || 0);

// Each run of a job body in this process: `run` in its events tells apart two runs of one
// attempt at once (a stalled job its own worker fetched again).
let runs = 0;

// The bodies running now, by run: {job, attempt, started}.
const open = new Map();

async function runJob({ job, duration_s: duration, fails = [] }, attempt, fields, abortSignal) {
  const run = ++runs;
  event({ event: 'start', job, attempt, run, ...fields });
  open.set(run, { job, attempt, started: Date.now() / 1000 });
  const failAfter = fails[attempt - 1];
  const failing = typeof failAfter === 'number' && failAfter < duration;
  const done = await sleep(failing ? failAfter : duration, abortSignal);
  if (!done) await sleep(cancelLatency);
  if (!open.delete(run)) return;  // ended already, by endOpenRuns
  if (!done) {
    event({ event: 'end', job, attempt, run, outcome: 'interrupted' });
    throw new Error(`drainsim: job ${job} aborted by the worker's shutdown`);
  }
  event({ event: 'end', job, attempt, run, outcome: failing ? 'failed' : 'completed' });
  if (failing) throw new Error(`drainsim: job ${job} fails as the scenario says`);
}

function endOpenRuns(outcome, which = () => true) {
  for (const [run, info] of open) {
    if (!which(info)) continue;
    event({ event: 'end', job: info.job, attempt: info.attempt, run, outcome });
    open.delete(run);
  }
}

module.exports = { event, jobLines, runJob, endOpenRuns };
