"""timing.py - the one timing loop every Python engine of `make bench-models`
uses (the generated C has the same loop in time_main.c): the first call
timed alone, then warm-up calls, then individually timed calls until both
RUNS calls and MIN_TIME seconds are done (at most MAX_RUNS); the summary is
the median, the minimum and the maximum, wall clock (time.perf_counter),
and the median of the process's CPU time per call (time.process_time: all
threads together), the fairer figure for one thread on a shared machine."""
import json
import platform
import time

MAX_RUNS = 1000


def cpu_name():
    """The CPU's model name (/proc/cpuinfo), for the results' headers."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown CPU"


def measure(call, runs, min_time, warmup=2):
    """Times call(); returns a dict of first_ms, median_ms, min_ms, max_ms, runs."""
    t0 = time.perf_counter()
    call()
    first = time.perf_counter() - t0
    for _ in range(warmup):
        call()
    samples, cpu = [], []
    start = time.perf_counter()
    while len(samples) < MAX_RUNS and (len(samples) < runs
                                       or time.perf_counter() - start < min_time):
        c0 = time.process_time()
        t0 = time.perf_counter()
        call()
        samples.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    samples.sort()
    n = len(samples)
    return {"first_ms": 1e3 * first, "median_ms": 1e3 * median(samples),
            "min_ms": 1e3 * samples[0], "max_ms": 1e3 * samples[-1], "runs": n,
            "cpu_ms": 1e3 * median(sorted(cpu))}


def median(xs):
    """The median of a sorted list."""
    n = len(xs)
    return xs[n // 2] if n % 2 else 0.5 * (xs[n // 2 - 1] + xs[n // 2])


def report(result):
    """The line the driver reads: 'RESULT {json}'."""
    print("RESULT " + json.dumps(result), flush=True)
