#!/usr/bin/env python3
"""A drainsim worker in Python, standard library only: a complete example to copy.

It implements the worker protocol of docs/worker-protocol.md (the OJS HTTP binding plus
drainsim's register/wait/deregister) and shuts down gracefully as the OJS spec asks:

  running --SIGTSTP or "quiet" directive--> quiet --SIGCONT--> running
  running/quiet --SIGTERM/SIGINT or "terminate" directive--> draining, which ends with
    exit 0 when no job is left, or at the grace deadline after NACKing the jobs still
    running (ShutdownError); a second SIGTERM/SIGINT exits 1 at once.

With `--engine process`, drainsim runs one per pod, configured through the environment
(OJS_URL, OJS_WORKER_ID, OJS_QUEUES, OJS_CONCURRENCY, OJS_SHUTDOWN_GRACE_PERIOD,
OJS_HEARTBEAT_INTERVAL, OJS_POLL_INTERVAL):

  build/sim/drainsim run SCENARIO --engine process --worker-cmd 'python3 examples/ojs_worker.py'

Exit status: 0 drained, 1 forced stop, 2 bad configuration, 3 backend unreachable. It
logs a line per state change to stderr. Threads: the main one takes signals and sends
heartbeats, one fetches, one per job runs its body. One lock guards the jobs table and the
HTTP connection, so a heartbeat lists exactly the jobs not yet reported.
"""
import signal

# Signals are blocked in every thread (threads inherit the mask) and taken by the main
# thread with sigtimedwait: handled as they arrive, never in the middle of a request. A
# blocked SIGTSTP does not stop the process. Blocked first thing, because the imports
# below take ~80 ms, and until then a TERM would simply kill the worker.
SIGNALS = {signal.SIGTERM, signal.SIGINT, signal.SIGTSTP, signal.SIGCONT}
if __name__ == "__main__":
    signal.pthread_sigmask(signal.SIG_BLOCK, SIGNALS)

import http.client  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import urllib.parse  # noqa: E402

UNREACHABLE_EXIT_AFTER = 2.0  # seconds without the backend before exiting with 3
RUNNING, QUIET, DRAINING = "running", "quiet", "draining"


def log(message):
    worker = os.environ.get("OJS_WORKER_ID") or "?"
    os.write(2, f"ojs_worker {worker}: {message}\n".encode())  # unbuffered, one write


def parse_duration(text):
    """'250ms' -> 0.25, '1.5s' -> 1.5 (seconds)."""
    number, scale = (text[:-2], 0.001) if text.endswith("ms") else (text[:-1], 1.0)
    try:
        seconds = float(number) * scale if text.endswith("s") else 0.0
    except ValueError:
        seconds = 0.0
    if not 0 < seconds < float("inf"):
        raise ValueError(f"expected a positive duration like 250ms or 1.5s, got {text!r}")
    return seconds


class Client:
    """JSON POSTs over one persistent connection; reconnects, exits 3 if the backend is gone."""

    def __init__(self, url, timeout):
        parts = urllib.parse.urlsplit(url)
        if parts.scheme != "http" or not parts.hostname:
            raise ValueError(f"OJS_URL: expected http://HOST:PORT, got {url!r}")
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=timeout)
        self.down_since = None

    def post(self, path, body):
        data = json.dumps(body).encode()
        while True:
            try:
                self.conn.request("POST", "/ojs/v1/workers/" + path, data,
                                  {"Content-Type": "application/json"})
                response = self.conn.getresponse()
                status, text = response.status, response.read()
                self.down_since = None
                try:
                    return status, json.loads(text or b"{}")
                except ValueError:
                    return status, {}
            except (OSError, http.client.HTTPException) as e:
                self.conn.close()  # the next request reconnects
                now = time.monotonic()
                self.down_since = self.down_since or now
                if now - self.down_since > UNREACHABLE_EXIT_AFTER:
                    log(f"backend unreachable ({e}): exiting")
                    os._exit(3)
                time.sleep(0.05)


class Worker:
    def __init__(self, env):
        for name in ("OJS_URL", "OJS_WORKER_ID"):
            if not env.get(name):
                raise ValueError(f"{name} is not set")
        self.id = env["OJS_WORKER_ID"]
        self.queues = [q for q in env.get("OJS_QUEUES", "default").split(",") if q]
        self.concurrency = int(env.get("OJS_CONCURRENCY", "10"))
        if self.concurrency < 1:
            raise ValueError("OJS_CONCURRENCY must be at least 1")
        grace = env.get("OJS_SHUTDOWN_GRACE_PERIOD", "30s")
        # "forever": drain until the last job ends, with no deadline.
        self.grace = None if grace == "forever" else parse_duration(grace)
        self.heartbeat_interval = parse_duration(env.get("OJS_HEARTBEAT_INTERVAL", "5s"))
        self.poll_interval = parse_duration(env.get("OJS_POLL_INTERVAL", "1s"))
        self.api = Client(env["OJS_URL"], timeout=UNREACHABLE_EXIT_AFTER)
        self.waiter = Client(env["OJS_URL"], timeout=self.poll_interval + UNREACHABLE_EXIT_AFTER)
        self.lock = threading.RLock()  # guards self.api, self.jobs and self.state
        self.jobs = {}  # job id -> job, from fetch until reported (ACK/NACK)
        self.state = RUNNING
        self.deadline = None  # monotonic time the grace period ends, once draining
        self.term_received = False
        self.wake_fetcher = threading.Event()

    def call(self, path, body):
        with self.lock:
            status, reply = self.api.post(path, dict(body, worker_id=self.id))
        if status != 200:
            error = reply.get("error", {})
            job = f" {body['job_id']}" if "job_id" in body else ""
            log(f"{path}{job}: {status} {error.get('code')}: {error.get('message')}")
            return None
        return reply

    # --- the main thread: signals, heartbeats, the grace deadline ---

    def run(self):
        if self.call("register", {"queues": self.queues, "concurrency": self.concurrency,
                                  "pid": os.getpid()}) is None:
            os._exit(1)
        log(f"running: queues {','.join(self.queues)}, concurrency {self.concurrency}")
        while (info := signal.sigtimedwait(SIGNALS, 0)) is not None:  # sent while starting
            self.on_signal(info.si_signo)
        threading.Thread(target=self.fetch_loop, daemon=True).start()
        next_heartbeat = time.monotonic() + self.heartbeat_interval
        while True:
            now = time.monotonic()
            if self.deadline is not None and now >= self.deadline:
                self.give_up()  # does not return
            if now >= next_heartbeat:
                next_heartbeat = now + self.heartbeat_interval
                self.obey(self.heartbeat())
                continue
            until = next_heartbeat if self.deadline is None else min(next_heartbeat, self.deadline)
            info = signal.sigtimedwait(SIGNALS, max(0.0, until - now))
            if info is not None:
                self.on_signal(info.si_signo)

    def on_signal(self, signo):
        name = signal.Signals(signo).name
        if signo in (signal.SIGTERM, signal.SIGINT):
            if self.term_received:
                log(f"second {name}: exiting now")
                os._exit(1)
            self.term_received = True
            if self.state != DRAINING:
                self.begin_drain(name)
        elif signo == signal.SIGTSTP and self.state == RUNNING:
            self.go_quiet(name)
        elif signo == signal.SIGCONT and self.state == QUIET:
            log(f"running again ({name})")
            with self.lock:  # the backend hears "running" before the next fetch
                self.state = RUNNING
                directive = self.heartbeat()
            self.wake_fetcher.set()
            self.obey(directive)

    def obey(self, directive):
        if directive == "quiet" and self.state == RUNNING:
            self.go_quiet("quiet directive")
        elif directive == "terminate" and self.state in (RUNNING, QUIET):
            self.begin_drain("terminate directive")

    def heartbeat(self, state=None):
        with self.lock:
            state = state or ("running" if self.state == RUNNING else "quiet")
            reply = self.call("heartbeat", {"state": state, "active_jobs": list(self.jobs)})
        return (reply or {}).get("state")

    def go_quiet(self, why):
        log(f"quiet ({why})")
        with self.lock:
            self.state = QUIET
            directive = self.heartbeat()
        self.obey(directive)

    def begin_drain(self, why):
        with self.lock:
            was_running, self.state = self.state == RUNNING, DRAINING
            self.deadline = None if self.grace is None else time.monotonic() + self.grace
            log(f"draining ({why}): {len(self.jobs)} jobs running, grace period "
                + ("forever" if self.grace is None else f"{self.grace:g}s"))
            if was_running:
                self.heartbeat("quiet")
            if not self.jobs:
                self.finish()

    def give_up(self):
        with self.lock:
            log(f"grace period over: giving up {len(self.jobs)} jobs")
            for job_id in list(self.jobs):
                del self.jobs[job_id]
                self.report(job_id, "ShutdownError", "worker shut down before the job finished")
            self.finish()

    def finish(self):  # with self.lock held, so no other request can follow ours
        self.heartbeat("terminate")
        self.call("deregister", {})
        log("drained: exiting")
        os._exit(0)  # without waiting for job bodies the worker has given up on

    # --- the fetcher thread ---

    def fetch_loop(self):
        available = False  # what the last long-poll said
        while True:
            self.wake_fetcher.clear()
            with self.lock:
                free = self.concurrency - len(self.jobs) if self.state == RUNNING else 0
                jobs = []
                if free > 0:
                    jobs = (self.call("fetch", {"count": free}) or {}).get("jobs", [])
                for job in jobs:
                    self.jobs[job["id"]] = job
                    threading.Thread(target=self.run_job, args=(job,), daemon=True).start()
            if free == 0:
                available = False
                self.wake_fetcher.wait(self.poll_interval)  # a job ends, or SIGCONT
            elif len(jobs) < free:
                if jobs or not available:
                    available = self.wait_for_jobs()
                else:  # "available", yet none for us (a quiet directive not heard yet?)
                    available = False
                    time.sleep(self.poll_interval)  # poll rather than spin

    def wait_for_jobs(self):
        """Long-polls on its own connection, so it never holds up ACKs or heartbeats."""
        body = {"worker_id": self.id, "timeout_ms": round(self.poll_interval * 1000)}
        status, reply = self.waiter.post("wait", body)
        if status != 200:  # a backend without the extension: just poll
            time.sleep(self.poll_interval)
        return reply.get("available") is True

    # --- job threads ---

    def run_job(self, job):
        try:
            error = run_body(job)
        except Exception as e:  # a broken job must not take the worker down
            error = f"{type(e).__name__}: {e}"
        with self.lock:
            if self.jobs.pop(job["id"], None) is None:
                return  # given up at the grace deadline and NACKed already
            if error is None:
                self.call("ack", {"job_id": job["id"]})
            else:
                self.report(job["id"], "HandlerError", error)
            if self.state == DRAINING and not self.jobs:
                self.finish()
        self.wake_fetcher.set()

    def report(self, job_id, error_type, message):
        self.call("nack", {"job_id": job_id,
                           "error": {"type": error_type, "message": message, "retryable": True}})


def run_body(job):
    """Runs a job; returns None on success or an error message."""
    if job.get("type") != "drainsim.sleep":
        return f"unknown job type {job.get('type')!r}"
    args = job["args"][0]
    if isinstance(args.get("fail_after_ms"), (int, float)):
        time.sleep(args["fail_after_ms"] / 1000)
        return f"failed after {args['fail_after_ms']} ms"
    time.sleep(args["duration_ms"] / 1000)
    return None


def main():
    try:
        worker = Worker(os.environ)
    except ValueError as e:
        log(f"bad configuration: {e}")
        os._exit(2)
    worker.run()


if __name__ == "__main__":
    main()
