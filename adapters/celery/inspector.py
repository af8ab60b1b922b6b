# drainsim's Celery inspector: where the broker (and the workers) hold each drainsim job at
# the end of a run, and the versions measured. Prints one JSON object (adapters/README.md):
#   {"versions": {"celery", "kombu", "python", "redis" | "rabbitmq", ...}, "jobs": {...}}
# Run while the workers still run. Celery keeps no finished task (no result backend), so
# there is never a "completed" or "discarded" job. Sources, later ones winning:
# - Redis: the queue's lists -> available (scheduled when its ETA is still ahead: a retry
#   a worker put back at its shutdown before it was due); kombu's "unacked" hash (the messages a worker
#   has fetched and not yet acknowledged: prefetched, waiting for a retry's ETA, or
#   running with acks_late) -> scheduled when its ETA is still ahead (a retry waiting out
#   its countdown, held by the worker), else active.
# - RabbitMQ: the queue's ready messages, read with basic_get and never acknowledged (the
#   channel is closed, so the broker puts them back) -> available. Messages a consumer
#   holds unacknowledged cannot be read over AMQP; only Celery's remote control sees them.
# - Both: Celery's remote control (app.control.inspect: active, reserved, scheduled),
#   answered by the workers still consuming: running -> active, prefetched -> active,
#   waiting for an ETA -> scheduled. A worker in its warm shutdown no longer answers, so
#   a task it still runs is seen only where the broker holds it (Redis with acks_late).
import base64
import datetime
import json
import os
import platform
import sys
from urllib.parse import urlparse

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import celery  # noqa: E402
import kombu  # noqa: E402

from drainsim_tasks import QUEUE, app, is_redis  # noqa: E402

# An observer that changes nothing: on Redis, kombu's first idle poll of a new connection
# (this program's remote-control replies) restores every unacknowledged message older than
# the visibility timeout, whoever holds it (redis.py: get -> maybe_restore_messages ->
# restore_visible). The workers restore at their own times (the profile's model); an
# inspection every 2 s near a run's end must not add restores of its own, so its timeout is
# one no message reaches.
if is_redis(app.conf.broker_url):
    app.conf.broker_transport_options = {"visibility_timeout": 10 * 365 * 86400}

TASK = "drainsim.sleep"
RANK = {"available": 0, "scheduled": 1, "active": 2}


def note(jobs, job, state):
    if job is not None and RANK[state] >= RANK.get(jobs.get(job), -1):
        jobs[job] = state


def job_of_args(args):
    return str(args[0]) if isinstance(args, (list, tuple)) and args else None


def job_of_body(body):
    """The job id in a Celery (protocol 2) message body: [args, kwargs, embed]."""
    if isinstance(body, (bytes, str)):
        body = json.loads(body)
    return job_of_args(body[0]) if isinstance(body, list) and body else None


def job_of_raw(raw):
    """The job id and the ETA of a message as kombu's Redis transport stores it."""
    message = json.loads(raw)
    if message.get("headers", {}).get("task") != TASK:
        return None, None
    body = message["body"]
    if message.get("properties", {}).get("body_encoding") == "base64":
        body = base64.b64decode(body)
    return job_of_body(body), message["headers"].get("eta")


def eta_ahead(eta):
    if not eta:
        return False
    when = datetime.datetime.fromisoformat(eta)
    if when.tzinfo is None:
        when = when.replace(tzinfo=datetime.timezone.utc)
    return when > datetime.datetime.now(datetime.timezone.utc)


def redis_jobs(jobs, versions):
    import redis

    path = urlparse(app.conf.broker_url).path
    client = redis.Redis(unix_socket_path=path)
    versions["redis"] = client.info()["redis_version"]
    versions["redis-py"] = redis.__version__
    # kombu keeps a queue in one list, or one per priority step ("QUEUE\x06\x16N").
    for key in client.scan_iter(match=QUEUE + "*", count=1000):
        name = key.decode()
        if name != QUEUE and not name.startswith(QUEUE + "\x06\x16"):
            continue
        if client.type(key) != b"list":
            continue
        for raw in client.lrange(key, 0, -1):
            job, eta = job_of_raw(raw)
            note(jobs, job, "scheduled" if eta_ahead(eta) else "available")
    for value in client.hvals("unacked"):
        raw, _exchange, _routing_key = json.loads(value)
        job, eta = job_of_raw(json.dumps(raw))
        note(jobs, job, "scheduled" if eta_ahead(eta) else "active")


def rabbitmq_jobs(jobs, versions, conn):
    import amqp

    versions["rabbitmq"] = conn.connection.server_properties.get("version")
    versions["py-amqp"] = amqp.__version__
    channel = conn.channel()
    try:
        while True:
            message = channel.basic_get(queue=QUEUE, no_ack=False)
            if message is None:
                break
            if message.headers.get("task") == TASK:
                note(jobs, job_of_body(message.body), "available")
    except amqp.exceptions.NotFound:
        pass  # no such queue: nothing was ever sent
    finally:
        try:
            channel.close()  # the messages read go back to the queue, unacknowledged
        except Exception:  # noqa: BLE001 the channel closed by the broker (NotFound)
            pass


def control_jobs(jobs):
    inspect = app.control.inspect(timeout=1.0)
    for state, requests in (("active", inspect.active() or {}),
                            ("active", inspect.reserved() or {})):
        for tasks in requests.values():
            for task in tasks:
                if task.get("name") == TASK:
                    note(jobs, job_of_args(task.get("args")), state)
    for tasks in (inspect.scheduled() or {}).values():
        for entry in tasks:
            request = entry.get("request", {})
            if request.get("name") == TASK:
                note(jobs, job_of_args(request.get("args")), "scheduled")


def main():
    jobs = {}
    versions = {"celery": celery.__version__, "kombu": kombu.__version__,
                "python": platform.python_version()}
    if is_redis(app.conf.broker_url):
        redis_jobs(jobs, versions)
    else:
        with app.connection_for_read() as conn:
            conn.ensure_connection(max_retries=3)
            rabbitmq_jobs(jobs, versions, conn)
    control_jobs(jobs)
    print(json.dumps({"versions": versions, "jobs": jobs}))


if __name__ == "__main__":
    main()
