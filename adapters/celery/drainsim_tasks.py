# drainsim's Celery adapter: the Celery app, the task a real Celery worker runs under
# drainsim, and the signal handlers that tell drainsim what the worker process is doing.
# Run as `python3 -m celery -A drainsim_tasks worker ...` with this folder on PYTHONPATH.
# Every event is one JSON line appended to DRAINSIM_EVENTS (O_APPEND, one write per line,
# so the worker's pool processes and several workers can share the file):
#   {"t": unix seconds, "pid", "worker", "event": "ready" | "shutdown", "how", "sig"}
#   {"t", "pid", "worker", "event": "start" | "end", "job", "attempt", "task_id", "child", "run",
#    "outcome": "completed" | "failed"}                           (outcome on "end" only)
#   {"t", "pid", "worker", "event": "discarded", "job", "task_id"}
# "pid" is always the worker's main process, the one drainsim started (the prefork pool
# runs the task in a child, whose pid is "child"). Celery has no "quiet" step, and a task
# never observes its end at a cold shutdown (the pool's children are killed), so there is
# no "interrupted" outcome: such an attempt has no end. Nor has one whose pool child was
# killed under it (drainsim's oom_kill_child kills the "child" of the longest-running
# attempt); the main process then fails the task for good (WorkerLostError), unless
# acks_late with task_reject_on_worker_lost puts it back on its queue, and "discarded" says
# so: with no result backend, no broker keeps a failed task for the inspector to read.
# Uses only Celery's documented API (Celery app and configuration, signals worker_init,
# worker_ready, worker_shutting_down and task_failure, Task.request, autoretry_for /
# max_retries / retry_backoff). Environment (adapters/README.md): DRAINSIM_BROKER_URL (redis
# unix:///path, given to kombu as redis+socket:///path; rabbitmq amqp://... as is),
# DRAINSIM_EVENTS, DRAINSIM_WORKER, DRAINSIM_QUEUE, DRAINSIM_MAX_ATTEMPTS (1, no retry,
# when absent: Celery retries only a task that asks to), DRAINSIM_OPT_ACKS_LATE,
# DRAINSIM_OPT_REJECT_ON_WORKER_LOST,
# DRAINSIM_VISIBILITY_TIMEOUT (seconds, Redis only; kombu's 3600 when absent).
import json
import os
import time

from celery import Celery, signals
from celery.exceptions import WorkerLostError

QUEUE = os.environ.get("DRAINSIM_QUEUE", "default")
WORKER = os.environ.get("DRAINSIM_WORKER", "worker")
MAX_ATTEMPTS = int(os.environ.get("DRAINSIM_MAX_ATTEMPTS", "1"))


def _flag(name):
    value = os.environ.get(name, "false")
    if value not in ("true", "false"):
        raise SystemExit(f"drainsim: {name} must be true or false, not {value!r}")
    return value == "true"


def _seconds(name):
    value = os.environ.get(name)
    if value is None:
        return None
    try:
        return float(value)
    except ValueError:
        raise SystemExit(f"drainsim: {name} must be seconds, not {value!r}") from None


def broker_url():
    """DRAINSIM_BROKER_URL as kombu takes it."""
    url = os.environ["DRAINSIM_BROKER_URL"]
    if url.startswith("unix://"):
        return "redis+socket://" + url[len("unix://"):]
    return url


def is_redis(url):
    return url.startswith(("redis://", "redis+socket://", "rediss://"))


app = Celery("drainsim_tasks", broker=broker_url())
app.conf.task_default_queue = QUEUE
app.conf.task_acks_late = _flag("DRAINSIM_OPT_ACKS_LATE")
app.conf.task_reject_on_worker_lost = _flag("DRAINSIM_OPT_REJECT_ON_WORKER_LOST")
_prefetch = os.environ.get("DRAINSIM_OPT_PREFETCH_MULTIPLIER", "4")
if not _prefetch.isdigit():
    raise SystemExit(f"drainsim: DRAINSIM_OPT_PREFETCH_MULTIPLIER must be a count, not {_prefetch!r}")
app.conf.worker_prefetch_multiplier = int(_prefetch)
_visibility_timeout = _seconds("DRAINSIM_VISIBILITY_TIMEOUT")
if is_redis(app.conf.broker_url) and _visibility_timeout is not None:
    app.conf.broker_transport_options = {"visibility_timeout": _visibility_timeout}

# The main process's pid: set again at worker_init (in the main process, before the pool
# forks), inherited by the pool's children.
MAIN_PID = os.getpid()


def event(name, **fields):
    line = json.dumps({"t": time.time(), "pid": MAIN_PID, "worker": WORKER, "event": name,
                       **fields})
    fd = os.open(os.environ["DRAINSIM_EVENTS"], os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, (line + "\n").encode())
    finally:
        os.close(fd)


@signals.worker_init.connect
def _on_worker_init(**_):
    global MAIN_PID
    MAIN_PID = os.getpid()


@signals.worker_ready.connect
def _on_worker_ready(**_):
    event("ready")


# Sent at each TERM (warm), QUIT (cold) or INT (warm, then cold) the main process gets.
@signals.worker_shutting_down.connect
def _on_worker_shutting_down(sig=None, how=None, **_):
    event("shutdown", how=how, sig=sig)


# Sent when Celery fails a task for good: in the main process when a pool child died under
# it (not when task_reject_on_worker_lost put it back on its queue), and in the pool child
# when the task's own error outlived its retries (autoretry_for sends task_retry, not this,
# while retries are left). Either way the job is discarded, not lost.
@signals.task_failure.connect
def _on_task_failure(sender=None, task_id=None, exception=None, args=None, **_):
    if isinstance(exception, (WorkerLostError, DrainsimJobError)) and args:
        event("discarded", job=args[0], task_id=task_id)


class DrainsimJobError(Exception):
    """The job's own error: the scenario says this attempt fails."""


# Retries: max_attempts - 1 of them, after 1, 2, 4 ... s (at most 300 s), no jitter: the
# celery profile's retry policy (1 s, doubling, 5 min cap). Celery's own default delay,
# without retry_backoff, is a fixed 180 s (default_retry_delay).
@app.task(bind=True, name="drainsim.sleep", autoretry_for=(DrainsimJobError,),
          max_retries=MAX_ATTEMPTS - 1, retry_backoff=1, retry_backoff_max=300,
          retry_jitter=False)
def sleep(self, job, duration_s, fails=()):
    """Sleeps `duration_s` seconds, or fails after fails[attempt - 1] seconds (at most
    `duration_s`) when that is a number."""
    attempt = self.request.retries + 1
    # "run": the pool child, which tells apart two runs of one attempt at once in this
    # worker (a restored message it fetched again, in another child).
    fields = {"job": job, "attempt": attempt, "task_id": self.request.id, "child": os.getpid(),
              "run": os.getpid()}
    event("start", **fields)
    fail_after_s = fails[attempt - 1] if attempt <= len(fails) else None
    if fail_after_s is not None:
        time.sleep(min(fail_after_s, duration_s))
        event("end", outcome="failed", **fields)
        raise DrainsimJobError(f"drainsim: job {job} attempt {attempt} fails as the scenario says")
    time.sleep(duration_s)
    event("end", outcome="completed", **fields)
