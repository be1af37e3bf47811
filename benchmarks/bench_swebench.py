"""The SWE-bench bench on the shipped instances: the local process pool against Ray on this machine.

1. Throughput: wall time and tasks per minute for every (instance, mode) task, with 1 and with
   2 workers (pool processes, or CPUs of a local Ray instance), side by side.
2. Overhead per task: the median round trip of a job that does nothing, run alone, through the
   pool and through Ray; and the median difference in a real task's own wall time between Ray
   and the pool (does a Ray worker slow the run itself?). Ray's start and stop are timed apart.

Usage: python benchmarks/bench_swebench.py [--modes contract,react,plan] [--noop 15]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from executor_jobs import EchoJob  # noqa: E402
from swebench_repos import INSTANCES, SCRIPTS, build_repos  # noqa: E402

from coder.bench.executors import Executor, ProcessPool  # noqa: E402
from coder.bench.jobs import Row  # noqa: E402
from coder.bench.swebench_job import InstanceJob  # noqa: E402
from coder.bench.swebench_source import SweBenchArgs, swebench_jobs  # noqa: E402


def timed_run(executor: Executor, jobs: list[InstanceJob]) -> tuple[float, list[Row]]:
    started = time.monotonic()
    rows = executor.run(jobs, lambda row: None)
    return time.monotonic() - started, rows


def noop_round_trips(executor: Executor, count: int) -> list[float]:
    times = []
    for i in range(count):
        started = time.monotonic()
        executor.run([EchoJob(f"noop-{i}")], lambda row: None)
        times.append(time.monotonic() - started)
    return times


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--modes", default="contract,react,plan")
    parser.add_argument("--noop", type=int, default=15, help="no-op jobs timed per executor")
    args = parser.parse_args()
    modes = tuple(args.modes.split(","))
    with tempfile.TemporaryDirectory() as tmp:
        repos = build_repos(Path(tmp) / "repos")
        jobs, _ = swebench_jobs(
            SweBenchArgs(INSTANCES, repos), modes, None, f"script:{SCRIPTS.resolve()}"
        )
        results: dict[tuple[str, int], tuple[float, list[Row]]] = {}
        noop: dict[str, list[float]] = {}
        for workers in (1, 2):
            results[("pool", workers)] = timed_run(ProcessPool(workers), jobs)
        noop["pool"] = noop_round_trips(ProcessPool(1), args.noop)
        ray_start: list[float] = []
        try:
            from coder.bench.ray_executor import RayExecutor, import_ray

            ray = import_ray(local=True)
            import executor_jobs

            ray.cloudpickle.register_pickle_by_value(executor_jobs)
            for workers in (1, 2):
                started = time.monotonic()
                executor = RayExecutor(None, workers)
                ray_start.append(time.monotonic() - started)
                results[("ray", workers)] = timed_run(executor, jobs)
                if workers == 2:
                    noop["ray"] = noop_round_trips(executor, args.noop)
                started = time.monotonic()
                executor.close()
                ray_start[-1] += time.monotonic() - started
        except Exception as exc:  # Ray missing: report the pool alone
            print(f"ray: not measured ({type(exc).__name__}: {exc})")
    report(results, noop, ray_start, len(jobs))


def report(
    results: dict[tuple[str, int], tuple[float, list[Row]]],
    noop: dict[str, list[float]],
    ray_start: list[float],
    tasks: int,
) -> None:
    print(f"{tasks} tasks (instances x modes) on the shipped SWE-bench data")
    print(f"{'executor':<8} {'workers':>7} {'wall s':>8} {'tasks/min':>10} {'median task s':>14}")
    for (name, workers), (wall, rows) in results.items():
        median = statistics.median(r["wall_s"] for r in rows)
        print(f"{name:<8} {workers:>7} {wall:>8.1f} {tasks / wall * 60:>10.1f} {median:>14.1f}")
    for name in ("pool", "ray"):
        if (name, 1) in results and (name, 2) in results:
            ratio = results[(name, 1)][0] / results[(name, 2)][0]
            print(f"{name}: 2 workers are {ratio:.2f}x as fast as 1")
    if ray_start:
        print(f"ray: start + stop of a local instance {statistics.median(ray_start):.1f}s (median)")
    for name, times in noop.items():
        print(f"{name}: no-op job round trip median {statistics.median(times) * 1000:.0f} ms")
    if "ray" in noop and "pool" in noop:
        ratio = statistics.median(noop["ray"]) / statistics.median(noop["pool"])
        print(f"ray/pool no-op round trip ratio {ratio:.2f}")
    if ("ray", 2) in results:
        pool_rows = {(r["fixture"], r["mode"]): r["wall_s"] for r in results[("pool", 2)][1]}
        diffs = [r["wall_s"] - pool_rows[(r["fixture"], r["mode"])] for r in results[("ray", 2)][1]]
        print(f"ray - pool, a task's own wall time, median {statistics.median(diffs):+.2f}s")


if __name__ == "__main__":
    main()
