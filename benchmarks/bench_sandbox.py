"""Sandbox costs on real repositories, each figure measured side by side with what it is
compared to (interleaved repetitions in one run, medians reported).

Repositories: generated ones of 1k and 10k files, and this Python's standard library `Lib/`
(without site-packages and __pycache__) made into a git repository.

1. Workspace creation (`Workspace.create`) against `shutil.copytree` of the same tree and
   `git clone --local`. Goal: no slower than copytree, faster than clone --local.
2. Checkpoint plus rollback of a 10-file step (edits, new files, a deletion, a rename, an
   ignored build product). Goal: < 100 ms at 10k files; the 1k -> 10k ratio shows how much of
   the cost follows the tree rather than the changed files.
3. A confined `true` (bwrap, and the unconfined mode) against a bare `subprocess` `true`.
   Goal: bwrap overhead < 15 ms a command (median). Also bwrap without the connect()
   supervisor (sandbox/unix_sockets.py), to show what it costs a command, and 200
   connect()s to the command's own Unix socket with and without it (the cost per call).

Usage: python benchmarks/bench_sandbox.py [--reps 5] [--cmd-reps 40] [--dir DIR] [--skip-stdlib]
       [--commands-only]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from sandbox.checkpoint import Checkpoints  # noqa: E402
from sandbox.confine import BwrapSandbox, UnconfinedSandbox, bwrap_unavailable_reason  # noqa: E402
from sandbox.unix_sockets import ConnectSupervisor  # noqa: E402
from sandbox.workspace import Workspace  # noqa: E402

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


@dataclass
class Row:
    measure: str
    repo: str
    median_ms: float
    baseline: str = ""
    baseline_ms: float | None = None
    goal: str = ""
    met: bool | None = None

    def ratio(self) -> str:
        if not self.baseline_ms:
            return ""
        return f"{self.median_ms / self.baseline_ms:.2f}x {self.baseline}"


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True)


def commit_all(repo: Path) -> Path:
    git(repo, "init", "-q", "-b", "main")
    (repo / ".gitignore").write_text("build/\n__pycache__/\n*.pyc\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "initial")
    git(repo, "repack", "-a", "-d", "-q")  # packed, like a cloned or gc'd repository
    return repo


def synthetic_repo(path: Path, files: int) -> Path:
    per_dir = 100
    for i in range(files):
        folder = path / f"pkg{i // per_dir:03d}" / ("sub" if i % 3 == 0 else "")
        folder.mkdir(parents=True, exist_ok=True)
        body = "".join(f"    total += {j}\n" for j in range(5 + i % 40))
        (folder / f"mod{i:05d}.py").write_text(f"def f{i}(total):\n{body}    return total\n")
    return commit_all(path)


def stdlib_repo(path: Path) -> Path:
    source = Path(sysconfig.get_paths()["stdlib"])
    shutil.copytree(
        source,
        path,
        ignore=shutil.ignore_patterns("site-packages", "__pycache__", "*.pyc"),
        symlinks=True,
    )
    return commit_all(path)


def tracked_files(repo: Path) -> list[str]:
    out = subprocess.run(
        ["git", "ls-files", "-z"], cwd=repo, capture_output=True, check=True
    ).stdout
    return [p for p in out.decode().split("\0") if p]


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def interleave(reps: int, *actions: Callable[[int], float]) -> list[list[float]]:
    """Run the actions in turn, `reps` rounds, so load on a shared machine hits all alike."""
    results: list[list[float]] = [[] for _ in actions]
    for rep in range(reps):
        for samples, action in zip(results, actions, strict=True):
            samples.append(action(rep))
    return results


def bench_creation(name: str, repo: Path, scratch: Path, reps: int) -> list[Row]:
    def create(rep: int) -> float:
        start = time.perf_counter()
        ws = Workspace.create(repo, f"bench-{rep}")
        elapsed = time.perf_counter() - start
        ws.delete_branch()
        return elapsed

    def copy(rep: int) -> float:
        target = scratch / f"copy-{rep}"
        start = time.perf_counter()
        shutil.copytree(repo, target, ignore=shutil.ignore_patterns(".git"), symlinks=True)
        elapsed = time.perf_counter() - start
        shutil.rmtree(target)
        return elapsed

    def clone(rep: int) -> float:
        target = scratch / f"clone-{rep}"
        start = time.perf_counter()
        git(scratch, "clone", "-q", "--local", str(repo), str(target))
        elapsed = time.perf_counter() - start
        shutil.rmtree(target)
        return elapsed

    ws_s, copy_s, clone_s = interleave(reps, create, copy, clone)
    ws_ms, copy_ms, clone_ms = median_ms(ws_s), median_ms(copy_s), median_ms(clone_s)
    return [
        Row("workspace create", name, ws_ms, "copytree", copy_ms, "<= copytree", ws_ms <= copy_ms),
        Row(
            "workspace create", name, ws_ms, "clone --local", clone_ms, "< clone", ws_ms < clone_ms
        ),
    ]


def ten_file_step(root: Path, files: list[str], rep: int) -> None:
    """Ten files: six edits, a deletion, a rename, two new files; plus an ignored build
    product (12 paths for the rollback to restore)."""
    chosen = [f for f in files if f.endswith(".py")][rep * 8 : rep * 8 + 8]
    for rel in chosen[:6]:
        with open(root / rel, "a") as handle:
            handle.write("# edited by the step\n")
    (root / chosen[6]).unlink()
    (root / chosen[7]).rename(root / (chosen[7] + ".renamed"))
    (root / f"new_module_{rep}.py").write_text("NEW = 1\n")
    (root / "newpkg").mkdir(exist_ok=True)
    (root / "newpkg" / f"extra_{rep}.py").write_text("EXTRA = 2\n")
    (root / "build").mkdir(exist_ok=True)
    (root / "build" / "artifact.bin").write_bytes(b"\0" * 1024)


def bench_rollback(name: str, repo: Path, reps: int) -> tuple[float, float]:
    """(checkpoint ms, rollback ms) medians for a 10-file step."""
    files = tracked_files(repo)
    take_s: list[float] = []
    rollback_s: list[float] = []
    with Workspace.create(repo, "bench-rollback") as ws:
        checkpoints = Checkpoints(ws.path)
        # Steady state, as in a run where the model takes seconds per step: git treats index
        # entries written in the same second as the index itself as "racily clean" and reads
        # them again on every status, until an index write lands in a later second.
        time.sleep(1.1)
        warm_up = checkpoints.take("warm-up")
        ten_file_step(ws.path, files, reps)
        checkpoints.rollback(warm_up, warm_up.sha, None)
        for rep in range(reps):
            start = time.perf_counter()
            checkpoint = checkpoints.take(f"step-{rep}")
            take_s.append(time.perf_counter() - start)
            ten_file_step(ws.path, files, rep)
            start = time.perf_counter()
            report = checkpoints.rollback(checkpoint, checkpoint.sha, None)
            rollback_s.append(time.perf_counter() - start)
            if len(report.paths) != 12 or not report.complete:
                raise SystemExit(f"unexpected rollback on {name}: {report}")
    subprocess.run(["git", "branch", "-q", "-D", "coder/bench-rollback"], cwd=repo, check=True)
    return median_ms(take_s), median_ms(rollback_s)


class _NoSupervisor:
    prefix: list[str] = []
    pass_fds: tuple[int, ...] = ()

    def close(self) -> None:
        pass


class _UnsupervisedBwrap(BwrapSandbox):
    """bwrap as it was before connect() went to the harness: for comparison only."""

    def _connect_supervisor(self) -> ConnectSupervisor:
        return _NoSupervisor()  # type: ignore[return-value]


_CONNECTS = (
    "python3 -c \"import socket; s = socket.socket(socket.AF_UNIX); s.bind('/tmp/b.sock'); "
    "s.listen(256); [socket.socket(socket.AF_UNIX).connect('/tmp/b.sock') for _ in range(200)]\""
)


def bench_commands(scratch: Path, reps: int) -> list[Row]:
    root = scratch / "cmd-root"
    root.mkdir()
    unconfined = UnconfinedSandbox(root)
    actions: list[Callable[[int], float]] = []

    def bare(_: int) -> float:
        start = time.perf_counter()
        subprocess.run(["true"], check=True)
        return time.perf_counter() - start

    def in_box(
        box: BwrapSandbox | UnconfinedSandbox, command: str = "true"
    ) -> Callable[[int], float]:
        def run(_: int) -> float:
            start = time.perf_counter()
            result = box.run(command, cwd=root, timeout_s=30)
            elapsed = time.perf_counter() - start
            if result.exit_code != 0:
                raise SystemExit(f"`{command}` failed in {box.name}: {result.output}")
            return elapsed

        return run

    actions = [bare, in_box(unconfined)]
    reason = bwrap_unavailable_reason()
    if reason is None:
        supervised, unsupervised = BwrapSandbox(root), _UnsupervisedBwrap(root)
        actions += [in_box(supervised), in_box(unsupervised)]
        actions += [in_box(supervised, _CONNECTS), in_box(unsupervised, _CONNECTS)]
    samples = interleave(reps, *actions)
    bare_ms = median_ms(samples[0])
    rows = [
        Row("`true`, bare subprocess", "-", bare_ms),
        Row("`true`, sandbox none", "-", median_ms(samples[1]), "bare", bare_ms),
    ]
    if reason is None:
        bwrap_ms = median_ms(samples[2])
        rows.append(
            Row(
                "`true`, sandbox bwrap",
                "-",
                bwrap_ms,
                "bare",
                bare_ms,
                f"overhead < 15 ms ({bwrap_ms - bare_ms:.1f})",
                bwrap_ms - bare_ms < 15,
            )
        )
        plain_ms = median_ms(samples[3])
        rows.append(Row("`true`, bwrap without connect supervisor", "-", plain_ms, "bare", bare_ms))
        rows.append(Row("`true`, bwrap", "supervisor cost", bwrap_ms, "without", plain_ms))
        with_ms, without_ms = median_ms(samples[4]), median_ms(samples[5])
        rows.append(Row("200 own-socket connects, bwrap", "-", with_ms, "without", without_ms))
        rows.append(Row("per connect() through the supervisor", "-", (with_ms - without_ms) / 200))
    else:
        print(f"bwrap rows skipped: {reason}")
    return rows


def print_table(rows: list[Row]) -> None:
    header = ("measure", "repo", "median", "ratio", "goal", "met")
    lines = [
        (
            r.measure,
            r.repo,
            f"{r.median_ms:.1f} ms",
            r.ratio(),
            r.goal,
            "" if r.met is None else ("yes" if r.met else "NO"),
        )
        for r in rows
    ]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *lines, strict=True)]
    for line in [header, tuple("-" * w for w in widths), *lines]:
        print("  ".join(str(cell).ljust(w) for cell, w in zip(line, widths, strict=True)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions for tree-sized work")
    parser.add_argument("--rollback-reps", type=int, default=11)
    parser.add_argument("--cmd-reps", type=int, default=40)
    parser.add_argument("--dir", type=Path, default=None, help="where to build the repositories")
    parser.add_argument("--skip-stdlib", action="store_true")
    parser.add_argument("--commands-only", action="store_true", help="only the command rows")
    args = parser.parse_args()
    if args.commands_only:
        with tempfile.TemporaryDirectory(prefix="bench-sandbox-", dir=args.dir) as tmp:
            print_table(bench_commands(Path(tmp), args.cmd_reps))
        return

    started = time.perf_counter()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-", dir=args.dir) as tmp:
        work = Path(tmp)
        repos = {
            "1k files": synthetic_repo(work / "r1k", 1000),
            "10k files": synthetic_repo(work / "r10k", 10000),
        }
        if not args.skip_stdlib:
            lib = stdlib_repo(work / "stdlib")
            repos[f"stdlib Lib/ ({len(tracked_files(lib))} files)"] = lib
        print(f"repositories ready in {time.perf_counter() - started:.1f}s", flush=True)

        cost: dict[str, float] = {}
        for name, repo in repos.items():
            rows += bench_creation(name, repo, work, args.reps)
            take_ms, rollback_ms = bench_rollback(name, repo, args.rollback_reps)
            total = take_ms + rollback_ms
            cost[name] = total
            rows.append(Row("checkpoint", name, take_ms))
            rows.append(Row("rollback, 10-file step", name, rollback_ms))
            rows.append(
                Row("checkpoint + rollback", name, total, "", None, "< 100 ms", total < 100)
            )
            print(f"{name}: done at {time.perf_counter() - started:.1f}s", flush=True)
        small, large = cost["1k files"], cost["10k files"]
        rows.append(Row("checkpoint + rollback", "10k vs 1k", large, "1k", small, "tree grew 10x"))
        rows += bench_commands(work, args.cmd_reps)

    print()
    print_table(rows)
    print(f"\ntotal {time.perf_counter() - started:.0f}s on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
