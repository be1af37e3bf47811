"""Build the benchmark corpus of REAL logs (kept under benchmarks/out/, which git ignores).

    python benchmarks/corpus/build_corpus.py [--rebuild]

1. `pip download --no-binary :all: --no-deps` the sdists of boltons, toolz and python-dateutil
   (all three ship their test suites), unpack them.
2. Inject faults into their source with fixed seeds (mutate.py) and run pytest on each mutant
   with `--junitxml` in a different -q/-v/--tb/-rA style; stdout is the log, the JUnit XML the
   ground truth. Mutants that break nothing are skipped.
3. Write a small CommonJS project with failing `node --test` tests; run it with the TAP and
   spec reporters, ground truth from node's junit reporter.
4. If `npm install typescript` works, a TypeScript project with type errors: the log is
   `tsc --pretty`, the ground truth `tsc --pretty false`.

Everything is written to benchmarks/out/corpus/ with manifest.json listing the logs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tarfile
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))
import jsproject  # noqa: E402
import mutate  # noqa: E402

OUT = Path(__file__).resolve().parents[1] / "out"
CORPUS = OUT / "corpus"
WORKERS = 2


@dataclass(frozen=True)
class Project:
    name: str  # the PyPI name
    sources: tuple[str, ...]  # files to mutate, relative to the unpacked sdist
    tests: tuple[str, ...]  # pytest arguments selecting a quick part of the suite
    pythonpath: str = "."


PROJECTS = (
    Project(
        "boltons",
        ("boltons/strutils.py", "boltons/iterutils.py", "boltons/dictutils.py"),
        ("tests",),
    ),
    Project(
        "toolz",
        ("toolz/itertoolz.py", "toolz/dicttoolz.py", "toolz/functoolz.py"),
        ("toolz/tests",),
    ),
    Project(
        "python-dateutil",
        (
            "src/dateutil/relativedelta.py",
            "src/dateutil/parser/_parser.py",
            "src/dateutil/easter.py",
        ),
        ("tests/test_relativedelta.py", "tests/test_parser.py", "tests/test_easter.py"),
        "src",
    ),
)
STYLES = (
    ("-v", "--tb=long"),
    ("-q", "--tb=auto"),
    ("-v", "--tb=short"),
    ("-rA", "--tb=native"),
    ("-q", "--tb=line"),
    ("-v", "--tb=auto"),
    ("-q", "--tb=no"),
    ("-rA", "--tb=long"),
    ("-v", "-rA", "--tb=auto"),
)
MUTANTS_PER_PROJECT = 7
CANDIDATES_PER_PROJECT = 16


@dataclass
class LogEntry:
    name: str
    kind: str  # pytest | node | tsc
    log: str
    truth: str
    style: str
    note: str


def sh(
    cmd: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: int = 300
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def download(project: Project) -> Path:
    dest = OUT / "sdists"
    dest.mkdir(parents=True, exist_ok=True)
    existing = [
        p for p in dest.iterdir() if p.name.lower().replace("_", "-").startswith(project.name)
    ]
    if not existing:
        proc = sh(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--no-binary",
                ":all:",
                "--no-deps",
                "-q",
                "-d",
                str(dest),
                project.name,
            ],
            OUT,
        )
        if proc.returncode != 0:
            raise SystemExit(f"pip download {project.name} failed:\n{proc.stderr[-2000:]}")
        existing = [
            p for p in dest.iterdir() if p.name.lower().replace("_", "-").startswith(project.name)
        ]
    archive = existing[0]
    unpacked = OUT / "src"
    unpacked.mkdir(exist_ok=True)
    with tarfile.open(archive) as tar:
        top = tar.getnames()[0].split("/")[0]
        if not (unpacked / top).exists():
            tar.extractall(unpacked, filter="data")
    return unpacked / top


def run_pytest(
    tree: Path, project: Project, style: tuple[str, ...], junit: Path
) -> subprocess.CompletedProcess[str]:
    env = {
        **os.environ,
        "PYTHONPATH": str(tree / project.pythonpath),
        "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
    }
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        *style,
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        "-W",
        "ignore::DeprecationWarning",
        "-W",
        "ignore::pytest.PytestUnknownMarkWarning",
        f"--junitxml={junit}",
        *project.tests,
    ]
    return sh(cmd, tree, env, timeout=240)


def mutant_job(
    project: Project, source_tree: Path, index: int, mutation: mutate.Mutation, rel: str
) -> LogEntry | None:
    tag = f"{project.name}-m{index}"
    tree = OUT / "mutants" / tag
    if tree.exists():
        shutil.rmtree(tree)
    shutil.copytree(source_tree, tree, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    target = tree / rel
    target.write_text(mutate.apply(target.read_text(), mutation))
    style = STYLES[(index + len(project.name)) % len(STYLES)]
    junit = CORPUS / f"{tag}.xml"
    proc = run_pytest(tree, project, style, junit)
    shutil.rmtree(tree, ignore_errors=True)
    if proc.returncode not in (1, 2) or not junit.exists():
        junit.unlink(missing_ok=True)
        return None  # survived (nothing failed) or pytest itself broke
    log = CORPUS / f"{tag}.log"
    log.write_text(proc.stdout + proc.stderr)
    return LogEntry(
        tag, "pytest", log.name, junit.name, " ".join(style), f"{rel}: {mutation.describe()}"
    )


def python_logs() -> list[LogEntry]:
    entries: list[LogEntry] = []
    for project in PROJECTS:
        tree = download(project)
        jobs = []
        for k in range(CANDIDATES_PER_PROJECT):
            rel = project.sources[k % len(project.sources)]
            picked = mutate.pick((tree / rel).read_text(), seed=1000 + k, count=1)
            if picked:
                jobs.append((k, picked[0], rel))
        kept = 0
        with ThreadPoolExecutor(WORKERS) as pool:
            for start in range(0, len(jobs), WORKERS):
                if kept >= MUTANTS_PER_PROJECT:
                    break
                batch = jobs[start : start + WORKERS]
                for entry in pool.map(lambda j, p=project, t=tree: mutant_job(p, t, *j), batch):
                    if entry is not None and kept < MUTANTS_PER_PROJECT:
                        entries.append(entry)
                        kept += 1
                        print(f"  {entry.name}: {entry.style}: {entry.note}", flush=True)
    return entries


def node_logs() -> list[LogEntry]:
    if shutil.which("node") is None:
        print("  node not installed: no node --test logs")
        return []
    root = OUT / "jsproject"
    jsproject.write(root)
    entries = []
    for reporter in ("tap", "spec"):
        junit = CORPUS / f"node-{reporter}.xml"
        proc = sh(
            [
                "node",
                "--test",
                f"--test-reporter={reporter}",
                "--test-reporter-destination=stdout",
                "--test-reporter=junit",
                f"--test-reporter-destination={junit}",
            ],
            root,
        )
        log = CORPUS / f"node-{reporter}.log"
        log.write_text(proc.stdout + proc.stderr)
        entries.append(
            LogEntry(
                f"node-{reporter}", "node", log.name, junit.name, reporter, "generated project"
            )
        )
    return entries


def tsc_logs() -> list[LogEntry]:
    root = OUT / "tsproject"
    jsproject.write_ts(root)
    if not (root / "node_modules/.bin/tsc").exists():
        proc = sh(["npm", "install", "--no-audit", "--no-fund", "typescript"], root, timeout=300)
        if proc.returncode != 0:
            print(f"  npm install typescript failed; no tsc logs:\n{proc.stderr[-500:]}")
            return []
    pretty = sh(["npx", "tsc", "--noEmit", "--pretty"], root)
    plain = sh(["npx", "tsc", "--noEmit", "--pretty", "false"], root)
    (CORPUS / "tsc.log").write_text(pretty.stdout + pretty.stderr)
    (CORPUS / "tsc-truth.txt").write_text(plain.stdout)
    return [LogEntry("tsc", "tsc", "tsc.log", "tsc-truth.txt", "--pretty", "generated project")]


def build(rebuild: bool) -> list[LogEntry]:
    manifest = CORPUS / "manifest.json"
    if manifest.exists() and not rebuild:
        return [LogEntry(**e) for e in json.loads(manifest.read_text())]
    if CORPUS.exists():
        shutil.rmtree(CORPUS)
    CORPUS.mkdir(parents=True)
    print("building the corpus (pytest mutants, node, tsc) ...", flush=True)
    entries = python_logs() + node_logs() + tsc_logs()
    manifest.write_text(json.dumps([asdict(e) for e in entries], indent=1))
    return entries


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--rebuild", action="store_true")
    for e in build(parser.parse_args().rebuild):
        print(e.name, e.kind, e.style)
