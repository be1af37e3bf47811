"""Rebuild instances.jsonl from the shipped repositories, the way SWE-bench derives its fields.

For each instance: `test_patch` is the release's change to tests/, `patch` (the gold patch) its
change to the package minus the version bump, and FAIL_TO_PASS / PASS_TO_PASS come from running
pytest -rA directly (not through coder) at the base with the test patch, then with both patches:
failed then passed, and passed both times. Run it after changing a repository or a statement:
    python3 tests/data/swebench/make_instances.py
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))

from gitrepo import git  # noqa: E402
from swebench_repos import build_repos  # noqa: E402

STATEMENTS = json.loads((HERE / "statements.json").read_text(encoding="utf-8"))
_STATUS = re.compile(r"^(PASSED|FAILED|ERROR) (\S+)")


def commit_of(clone: Path, subject: str) -> str:
    return git(clone, "log", "--format=%H", f"--grep=^{re.escape(subject)}$").split()[0]


def diff(clone: Path, base: str, fix: str, *paths: str) -> str:
    return git(clone, "diff", "--full-index", base, fix, "--", *paths)


def without_version_bump(patch: str) -> str:
    """The fix alone: drop hunks that only move `__version__`."""
    files = re.split(r"(?m)^(?=diff --git )", patch)
    kept = []
    for text in files:
        if not text:
            continue
        head, *hunks = re.split(r"(?m)^(?=@@ )", text)
        hunks = [h for h in hunks if "__version__" not in h]
        if hunks:
            kept.append(head + "".join(hunks))
    return "".join(kept)


def statuses(tree: Path, files: list[str]) -> dict[str, str]:
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-rA", "--tb=no", "-p", "no:cacheprovider", *files],
        cwd=tree,
        capture_output=True,
        text=True,
    )
    return {m.group(2): m.group(1) for m in map(_STATUS.match, done.stdout.splitlines()) if m}


def instance(clone: Path, spec: dict[str, str], work: Path) -> dict[str, object]:
    base = commit_of(clone, spec["base"])
    fix = commit_of(clone, spec["fix"])
    test_patch = diff(clone, base, fix, "tests")
    gold = without_version_bump(diff(clone, base, fix, spec["package"]))
    files = sorted(set(re.findall(r"(?m)^\+\+\+ b/(\S+)", test_patch)))
    before, after = work / "before", work / "after"
    for tree, patches in ((before, [test_patch]), (after, [test_patch, gold])):
        git(clone, "worktree", "add", "-q", "--detach", str(tree), base)
        for patch in patches:
            subprocess.run(["git", "apply", "-"], cwd=tree, input=patch, text=True, check=True)
    old, new = statuses(before, files), statuses(after, files)
    for tree in (before, after):
        git(clone, "worktree", "remove", "--force", str(tree))
    return {
        "instance_id": spec["instance_id"],
        "repo": spec["repo"],
        "base_commit": base,
        "version": spec["fix"].split()[-1],
        "problem_statement": spec["problem_statement"],
        "hints_text": spec.get("hints_text", ""),
        "patch": gold,
        "test_patch": test_patch,
        "FAIL_TO_PASS": json.dumps(
            sorted(t for t, s in new.items() if s == "PASSED" and old.get(t) != "PASSED")
        ),
        "PASS_TO_PASS": json.dumps(
            sorted(t for t, s in new.items() if s == "PASSED" and old.get(t) == "PASSED")
        ),
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        repos = build_repos(Path(tmp) / "repos")
        lines = []
        for index, spec in enumerate(STATEMENTS):
            work = Path(tmp) / f"work{index}"
            work.mkdir()
            clone = repos / spec["repo"].replace("/", "__")
            lines.append(json.dumps(instance(clone, spec, work)))
    (HERE / "instances.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    print(f"wrote {len(lines)} instances to {HERE / 'instances.jsonl'}")


if __name__ == "__main__":
    main()
