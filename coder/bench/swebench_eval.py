"""Local SWE-bench evaluation: the instance's tests on the final tree, graded as SWE-bench does.

As the official harness: the files `test_patch` touches are put back to `base_commit` (whatever
the model did to them), `test_patch` is applied, the test files run (by the runner whose own
ids the instance's are, as the official harness runs it, or for JS/TS ids the repository's own
test command scoped to them: coder/bench/swebench_tests.py),
and an instance is resolved when every FAIL_TO_PASS and every PASS_TO_PASS test reads PASSED
(or XFAIL); a test the report does not name has failed. Confined like every other command.
The statuses come from a report the harness asks the runner for (a JUnit XML report), never
from what the log prints, which a patch can print too; where a runner has no such report, the
log is read and the evaluation's detail says so.

A test that did not run on the final tree may mean the change broke it, or that this machine
cannot run the repository's tests at all. The second is never called "unresolved": the same
tests then run once more on the untouched base with `test_patch`, and when they do not run
there either, the instance is "not evaluated", with the reason.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from coder.bench.prepare import copy_deps
from coder.bench.swebench import Instance
from coder.bench.swebench_tests import TestRun, run_instance_tests
from sandbox.gitcli import GitError, git, git_ok
from summarizers.causes import find_causes

RESOLVED, UNRESOLVED, NOT_EVALUATED = "resolved", "unresolved", "not_evaluated"
_PASSING = ("PASSED", "XFAIL")


@dataclass(frozen=True)
class Evaluation:
    status: str
    """resolved | unresolved | not_evaluated"""
    detail: str
    """One line for the person: what passed, what failed, or why the tests could not run."""
    fail_to_pass: dict[str, str] = field(default_factory=dict)
    """Each FAIL_TO_PASS test id and the status the log gives it ("missing" when none)."""
    pass_to_pass: dict[str, str] = field(default_factory=dict)
    outcomes_from: str = ""
    """Where the statuses were read: the runner's report, or the log (no report)."""

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "detail": self.detail,
            "outcomes_from": self.outcomes_from,
            "fail_to_pass": _tally(self.fail_to_pass),
            "pass_to_pass": _tally(self.pass_to_pass),
        }


def evaluate(
    clone: Path, instance: Instance, final_commit: str, work: Path, deps: Path | None = None
) -> Evaluation:
    """Grade `final_commit` of `clone` (a throwaway clone holding base_commit); `deps` is the
    instance's prepared checkout, whose node_modules/ each judged tree gets."""
    final = _run_tests(clone, instance, final_commit, work / "eval-final", deps)
    if final.problem:
        return Evaluation(NOT_EVALUATED, final.problem)
    wanted = instance.FAIL_TO_PASS + instance.PASS_TO_PASS
    missing = [t for t in wanted if status_of(t, final.statuses) is None]
    if missing:
        probe = _run_tests(clone, instance, instance.base_commit, work / "eval-base", deps)
        if probe.problem:
            return Evaluation(NOT_EVALUATED, probe.problem)
        unrunnable = [t for t in missing if status_of(t, probe.statuses) is None]
        if unrunnable:
            return Evaluation(
                NOT_EVALUATED,
                f"{len(unrunnable)} of the instance's tests do not run here even without the "
                f"change (first: {unrunnable[0]}): {_cause(probe.output)}",
                outcomes_from=probe.source,
            )
    read = f"; outcomes from {final.source}" if final.source else ""
    f2p = {t: status_of(t, final.statuses) or "missing" for t in instance.FAIL_TO_PASS}
    p2p = {t: status_of(t, final.statuses) or "missing" for t in instance.PASS_TO_PASS}
    failing = [t for t, s in {**f2p, **p2p}.items() if s not in _PASSING]
    if not failing:
        detail = f"all {len(f2p)} FAIL_TO_PASS and {len(p2p)} PASS_TO_PASS tests pass{read}"
        return Evaluation(RESOLVED, detail, f2p, p2p, final.source)
    bad_f2p = sum(s not in _PASSING for s in f2p.values())
    bad_p2p = sum(s not in _PASSING for s in p2p.values())
    detail = (
        f"{bad_f2p} of {len(f2p)} FAIL_TO_PASS and {bad_p2p} of {len(p2p)} PASS_TO_PASS tests "
        f"fail (first: {failing[0]}, {f2p.get(failing[0]) or p2p.get(failing[0])}){read}"
    )
    return Evaluation(UNRESOLVED, detail, f2p, p2p, final.source)


def status_of(case: str, statuses: dict[str, str]) -> str | None:
    """The log's status for a test id, as SWE-bench's grader finds it: exactly, or for an id
    cut inside its parameters (more `[` than `]`, as the dataset has hundreds of) by prefix,
    when every test it could be agrees on passing or failing."""
    if case in statuses:
        return statuses[case]
    if case.count("[") > case.count("]"):
        found = [status for ident, status in statuses.items() if ident.startswith(case)]
        if found and len({status in _PASSING for status in found}) == 1:
            return found[0]
    return None


def patched_paths(patch: str) -> list[str]:
    """Paths the patch touches, old and new (a rename or a deleted file counts both ways)."""
    try:
        files = PatchSet(patch)
    except UnidiffParseError:
        return []
    paths: list[str] = []
    for patched in files:
        for name in (patched.source_file, patched.target_file):
            if name and name != "/dev/null":
                rel = name[2:] if name[:2] in ("a/", "b/") else name
                if rel not in paths:
                    paths.append(rel)
    return paths


def _run_tests(
    clone: Path, instance: Instance, commit: str, tree: Path, deps: Path | None
) -> TestRun:
    git(["worktree", "add", "-q", "--detach", str(tree), commit], clone)
    try:
        copy_deps(deps, tree)
        problem = _lay_test_patch(tree, instance)
        if problem:
            return TestRun({}, problem=problem)
        return run_instance_tests(tree, instance, patched_paths(instance.test_patch))
    finally:
        git(["worktree", "remove", "--force", str(tree)], clone, check=False)
        shutil.rmtree(tree, ignore_errors=True)


def _lay_test_patch(tree: Path, instance: Instance) -> str | None:
    """Test files as at the base, then test_patch; the reason when that cannot be done."""
    base = instance.base_commit
    for rel in patched_paths(instance.test_patch):
        if git_ok(["cat-file", "-e", f"{base}:{rel}"], tree):
            git(["checkout", "-q", base, "--", rel], tree)
        elif (tree / rel).is_file() or (tree / rel).is_symlink():
            (tree / rel).unlink()
    try:
        git(["apply", "--whitespace=nowarn", "-"], tree, stdin=instance.test_patch.encode())
    except GitError as exc:
        return f"test_patch does not apply over the final tree: {exc}"
    return None


def _cause(output: str) -> str:
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    causes = find_causes(lines, limit=1)
    if causes:
        return causes[0].text[:200]
    return lines[-1][:200] if lines else "the test command printed nothing"


def _tally(statuses: dict[str, str]) -> dict[str, Any]:
    failing = [t for t, s in statuses.items() if s not in _PASSING]
    return {"passed": len(statuses) - len(failing), "total": len(statuses), "failing": failing}
