# drainsim's Celery enqueuer: reads one job per line on stdin, "JOB DURATION_S
# [FAIL_1 FAIL_2 ...]" (FAIL_k: "-" or the seconds after which attempt k fails), and sends
# it at once through Celery's client (Task.apply_async) onto DRAINSIM_QUEUE; drainsim
# writes each line at the job's arrival time. Prints "enqueued JOB" per job, exits 0 at
# the end of its input. The retry setting (DRAINSIM_MAX_ATTEMPTS - 1 retries) is the
# task's own (drainsim_tasks.sleep), which Celery reads in the worker, not the message.
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from drainsim_tasks import QUEUE, sleep  # noqa: E402


def main():
    for line in sys.stdin:
        fields = line.split()
        if not fields:
            continue
        job, duration_s = int(fields[0]), float(fields[1])
        fails = [None if f == "-" else float(f) for f in fields[2:]]
        sleep.apply_async(args=[job, duration_s, fails], queue=QUEUE)
        print(f"enqueued {job}", flush=True)


if __name__ == "__main__":
    main()
