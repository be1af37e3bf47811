"""What bringing the repository's environment into a run's worktree costs, measured side by
side with what it is compared to (interleaved repetitions in one run, medians reported).

Repositories: a generated one of 2,000 tracked files, once as is and once with an ignored
`node_modules/` of 20,000 files (200 MB), a `.venv` and a generated `_version.py` named in
`.worktreeinclude`.

1. Worktree preparation (Workspace.create + prepare_environment) with the 200 MB node_modules
   against the same repository without it. Goal (issue 11): within 1.2x; nothing is copied.
2. prepare_environment alone, with and without the dependencies (its share of a run's start).
3. A confined `true` under bwrap seeing the whole environment (dependencies, git view, homes
   hidden, sockets looked up) against a bare root and a bare subprocess: the per-command price.
4. Making the sandbox (homes, toolchains, privileges, git configs: once per run).
5. Writable dependency directories (sandbox/overlay.py: a throwaway overlay per command)
   against today's read-only view of the same 200 MB node_modules and .venv, side by side:
   per command (`true`, and reading a file of node_modules) and at start (making the
   sandbox, which probes the overlay once). Goal (issue 22.5): within 1.2x. A third column
   is what a write inside node_modules costs with the overlay (the read-only view refuses it).

Usage: python benchmarks/bench_repo_env.py [--reps 7] [--cmd-reps 30] [--dir DIR]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import sandbox.bwrap as bwrap_module  # noqa: E402
from coder.bench.layout import make_venv  # noqa: E402
from sandbox.confine import bwrap_unavailable_reason, make_sandbox  # noqa: E402
from sandbox.overlay import Overlays  # noqa: E402
from sandbox.repo_env import prepare_environment  # noqa: E402
from sandbox.workspace import Workspace  # noqa: E402

GIT_ENV = {
    **os.environ,
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.invalid",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.invalid",
}


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True)


def project(path: Path, *, with_deps: bool, tracked: int = 2000) -> Path:
    for i in range(tracked):
        folder = path / "src" / f"pkg{i // 100:02d}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"mod{i:05d}.js").write_text(f"module.exports = {i};\n")
    (path / ".gitignore").write_text("node_modules/\n.venv/\n_version.py\n")
    (path / ".worktreeinclude").write_text("src/_version.py\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "initial")
    (path / "src" / "_version.py").write_text("VERSION = '1.0'\n")
    if with_deps:
        chunk = b"x" * 10_000
        for i in range(20_000):  # 20k files, 200 MB: a mid-sized JavaScript project
            folder = path / "node_modules" / f"dep{i // 50:03d}" / "lib"
            folder.mkdir(parents=True, exist_ok=True)
            (folder / f"f{i:05d}.js").write_bytes(chunk)
        make_venv(path / ".venv", [path / "src"])
    return path


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def interleave(reps: int, *actions: Callable[[int], float]) -> list[list[float]]:
    results: list[list[float]] = [[] for _ in actions]
    for rep in range(reps):
        for samples, action in zip(results, actions, strict=True):
            samples.append(action(rep))
    return results


def preparation(repo: Path, tag: str) -> tuple[Callable[[int], float], Callable[[int], float]]:
    """(whole preparation, prepare_environment alone) as timed actions."""
    env_only: list[float] = []

    def whole(rep: int) -> float:
        start = time.perf_counter()
        ws = Workspace.create(repo, f"bench-{tag}-{rep}")
        middle = time.perf_counter()
        prepare_environment(ws, include=[], sandbox_mode="bwrap")
        end = time.perf_counter()
        env_only.append(end - middle)
        ws.delete_branch()
        return end - start

    def last_env(_: int) -> float:
        return env_only[-1]

    return whole, last_env


def read_only_sandbox(root: Path, env):  # type: ignore[no-untyped-def]
    """The sandbox as it was before overlays: the dependency directories read-only."""
    real = bwrap_module._writable_dependencies
    bwrap_module._writable_dependencies = lambda *_a: Overlays("read-only")  # type: ignore[assignment]
    try:
        return make_sandbox("bwrap", root, environment=env)
    finally:
        bwrap_module._writable_dependencies = real  # type: ignore[assignment]


def writable_rows(root: Path, env, cmd_reps: int, reps: int) -> list[tuple[str, str, str, str]]:  # type: ignore[no-untyped-def]
    """Section 5: the overlay view against the read-only one, per command and at start."""
    overlay = make_sandbox("bwrap", root, environment=env)
    kind = overlay.overlays.kind
    read_only = read_only_sandbox(root, env)
    target = "node_modules/dep000/lib/f00000.js"

    def timed(box, command: str) -> Callable[[int], float]:  # type: ignore[no-untyped-def]
        def run(_: int) -> float:
            t = time.perf_counter()
            result = box.run(command, cwd=root, timeout_s=30)
            if result.exit_code != 0:
                raise SystemExit(result.output)
            return time.perf_counter() - t

        return run

    def made(factory: Callable[[], object]) -> Callable[[int], float]:
        def run(_: int) -> float:
            t = time.perf_counter()
            factory()
            return time.perf_counter() - t

        return run

    write = f"echo x >> {target} && mkdir -p node_modules/.vite && echo y > node_modules/.vite/m"
    per_cmd = interleave(
        cmd_reps,
        timed(read_only, "true"),
        timed(overlay, "true"),
        timed(read_only, f"cat {target} > /dev/null"),
        timed(overlay, f"cat {target} > /dev/null"),
        timed(overlay, write),
    )
    ro_true, ov_true, ro_read, ov_read, ov_write = (median_ms(s) for s in per_cmd)
    repo = env.checkout

    def run_start(writable: bool) -> Callable[[int], float]:
        """A run's start: worktree, environment and sandbox, as coder run makes them."""

        def run(rep: int) -> float:
            t = time.perf_counter()
            ws = Workspace.create(repo, f"bench-start-{writable}-{rep}")
            prepared = prepare_environment(ws, include=[], sandbox_mode="bwrap")
            box = (
                make_sandbox("bwrap", ws.path, environment=prepared)
                if writable
                else read_only_sandbox(ws.path, prepared)
            )
            elapsed = time.perf_counter() - t
            box.overlays.close()
            ws.close()
            ws.delete_branch()
            return elapsed

        return run

    start = interleave(
        reps,
        made(lambda: read_only_sandbox(root, env)),
        made(lambda: make_sandbox("bwrap", root, environment=env).overlays.close()),
        run_start(False),
        run_start(True),
    )
    ro_sandbox, ov_sandbox, ro_start, ov_start = (median_ms(s) for s in start)
    rows: list[tuple[str, str, str, str]] = [
        (f"writable deps ({kind}) vs read-only", "read-only", "writable", "ratio"),
    ]
    for name, before, after in (
        ("`true`, per command", ro_true, ov_true),
        ("reading node_modules, per command", ro_read, ov_read),
        ("making the sandbox alone (once per run)", ro_sandbox, ov_sandbox),
        ("a run's start: worktree, environment, sandbox", ro_start, ov_start),
    ):
        ratio = after / before
        rows.append(
            (
                name,
                f"{before:.1f} ms",
                f"{after:.1f} ms",
                f"{ratio:.2f}x (<= 1.2x: {'yes' if ratio <= 1.2 else 'NO'})",
            )
        )
    rows.append(("writing inside node_modules, per command", "refused", f"{ov_write:.1f} ms", ""))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--cmd-reps", type=int, default=30)
    parser.add_argument("--dir", type=Path, default=Path("/var/tmp"))
    parser.add_argument("--writable-only", action="store_true", help="section 5 alone")
    args = parser.parse_args()
    started = time.perf_counter()
    rows: list[tuple[str, str, str, str]] = []
    with tempfile.TemporaryDirectory(prefix="bench-repo-env-", dir=args.dir) as tmp:
        work = Path(tmp)
        os.chmod(work, 0o755)
        plain = project(work / "plain", with_deps=False)
        deps = project(work / "deps", with_deps=True)
        print(f"repositories ready in {time.perf_counter() - started:.1f}s", flush=True)

        plain_whole, plain_env = preparation(plain, "plain")
        deps_whole, deps_env = preparation(deps, "deps")
        reps = 1 if args.writable_only else args.reps
        samples = interleave(reps, plain_whole, plain_env, deps_whole, deps_env)
        p_whole, p_env, d_whole, d_env = (median_ms(s) for s in samples)
        ratio = d_whole / p_whole
        rows.append(("worktree + environment, no deps", f"{p_whole:.1f} ms", "", ""))
        rows.append(
            (
                "worktree + environment, 200 MB node_modules",
                f"{d_whole:.1f} ms",
                f"{ratio:.2f}x no deps",
                f"<= 1.2x: {'yes' if ratio <= 1.2 else 'NO'}",
            )
        )
        rows.append(("prepare_environment alone, no deps", f"{p_env:.1f} ms", "", ""))
        rows.append(("prepare_environment alone, with deps", f"{d_env:.1f} ms", "", ""))

        if bwrap_unavailable_reason() is None:
            with Workspace.create(deps, "bench-cmd") as ws:
                env = prepare_environment(ws, include=[], sandbox_mode="bwrap")
                start = time.perf_counter()
                full = make_sandbox("bwrap", ws.path, environment=env)
                made_ms = (time.perf_counter() - start) * 1000
                bare_root = work / "bare-root"
                bare_root.mkdir()
                bare_box = make_sandbox("bwrap", bare_root)

                def timed(box, root: Path) -> Callable[[int], float]:  # type: ignore[no-untyped-def]
                    def run(_: int) -> float:
                        t = time.perf_counter()
                        result = box.run("true", cwd=root, timeout_s=30)
                        if result.exit_code != 0:
                            raise SystemExit(result.output)
                        return time.perf_counter() - t

                    return run

                def bare(_: int) -> float:
                    t = time.perf_counter()
                    subprocess.run(["true"], check=True)
                    return time.perf_counter() - t

                cmd = interleave(
                    1 if args.writable_only else args.cmd_reps,
                    bare,
                    timed(bare_box, bare_root),
                    timed(full, ws.path),
                )
                b_ms, root_ms, full_ms = (median_ms(s) for s in cmd)
                rows.append(("`true`, bare subprocess", f"{b_ms:.1f} ms", "", ""))
                rows.append(
                    (
                        "`true`, bwrap, a bare root",
                        f"{root_ms:.1f} ms",
                        f"+{root_ms - b_ms:.1f} ms",
                        "",
                    )
                )
                rows.append(
                    (
                        "`true`, bwrap, the whole environment",
                        f"{full_ms:.1f} ms",
                        f"+{full_ms - root_ms:.1f} ms over a bare root",
                        "",
                    )
                )
                rows.append(("making the sandbox (once per run)", f"{made_ms:.1f} ms", "", ""))
                rows += writable_rows(ws.path, env, args.cmd_reps, args.reps)
            git(deps, "branch", "-q", "-D", "coder/bench-cmd")
    widths = [max(len(r[i]) for r in rows) for i in range(4)]
    for row in rows:
        print("  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)))
    print(f"\ntotal {time.perf_counter() - started:.0f}s on {os.cpu_count()} cores")


if __name__ == "__main__":
    main()
