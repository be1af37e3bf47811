"""Running an instance's tests in one judged tree, confined: by the runner whose own ids the
instance's are, as the official harness runs it (`Grader`, summarizers/runners/table.py), or,
for an instance whose ids no such runner spells (JavaScript, TypeScript), through the
verdict's own seam.

That seam is what a run's `tests_pass` uses: the repository's detected test command scoped to
the files test_patch touches (`command_for_paths`), run by `run_tests`, its output read by the
runner modules. So a JS instance's ids are coder's runner ids (`summarizers.runners`), exactly
as the suite's builders found them, and the statuses are given in the words SWE-bench's grader
reads (PASSED, FAILED, ...).

Outcomes come from a report the harness asks the runner for, never from lines a test could
print: the grading runner writes its report into the sandbox's reports directory (a patch that
prints `PASSED <id>` at exit passes nothing), and when it wrote none, no test counts as run
(the log is not read instead). A runner without a report coder reads (the JavaScript ones) is
read from its log, and the evaluation says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.bench.swebench import Instance
from sandbox.running import REPORTS_ENV
from summarizers.runners.base import Grader
from summarizers.runners.table import GRADERS, grader_for

EVAL_TIMEOUT_S = 1800.0
"""The official harness's default per-instance timeout."""
EVAL_OUTPUT_CAP = 16 << 20
"""Large suites print one summary line per test; all of them must survive the output cap."""
_AS_GRADED = {
    "passed": "PASSED",
    "failed": "FAILED",
    "error": "ERROR",
    "skipped": "SKIPPED",
    "xfailed": "XFAIL",
}


@dataclass(frozen=True)
class TestRun:
    statuses: dict[str, str]
    """test id -> PASSED | FAILED | ERROR | SKIPPED | XFAIL"""
    output: str = ""
    problem: str | None = None
    """Why the tests did not run at all (the sandbox, the patch, no test command)."""
    source: str = ""
    """Where the statuses were read: a report, or the log (said in the evaluation)."""


def run_instance_tests(tree: Path, instance: Instance, test_files: list[str]) -> TestRun:
    """The instance's tests in `tree` (test_patch already laid), confined."""
    from sandbox.confine import SandboxUnavailable, make_sandbox
    from sandbox.limits import Limits

    try:
        sandbox = make_sandbox("auto", tree, limits=Limits(output_cap=EVAL_OUTPUT_CAP))
    except SandboxUnavailable as exc:
        return TestRun({}, problem=f"the sandbox cannot start here: {exc}")
    ids = instance.FAIL_TO_PASS + instance.PASS_TO_PASS
    grader = grader_for(ids)
    if grader is not None:
        command = grader.graded_command(ids, test_files, f"${REPORTS_ENV}")
        result = sandbox.run(command, cwd=tree, timeout_s=EVAL_TIMEOUT_S)
        return graded_run(grader, result.reports.get(grader.report), result.output)
    return _runner_tests(sandbox, tree, test_files)


def graded_run(grader: Grader, report: bytes | None, output: str) -> TestRun:
    """The statuses from the report the harness asked the grading runner for; without a
    readable one no test counts as run, whatever the log prints."""
    outcomes = grader.read_graded(report) if report is not None else None
    if outcomes is None:
        why = "wrote none" if report is None else "wrote one it cannot read"
        return TestRun({}, output, source=f"no report ({grader.name} {why}; the log is not read)")
    statuses = {ident: _AS_GRADED.get(o, o.upper()) for ident, o in outcomes.items()}
    return TestRun(statuses, output, source=grader.report_said)


def _runner_tests(sandbox: object, tree: Path, test_files: list[str]) -> TestRun:
    from coder.config import detect_test_cmd
    from coder.verdict.run import run_tests
    from coder.verdict.scoping import command_for_paths

    test_cmd = detect_test_cmd(tree)
    if not test_cmd:
        return TestRun({}, problem="no test command found in the repository (package.json)")
    present = [f for f in test_files if (tree / f).is_file()]
    scoped = command_for_paths(test_cmd, present, tree)
    run = run_tests(sandbox, tree, scoped.command, EVAL_TIMEOUT_S)  # type: ignore[arg-type]
    if run.result.timed_out:
        return TestRun(
            {}, run.result.output, f"`{scoped.command}` timed out after {EVAL_TIMEOUT_S:.0f}s"
        )
    statuses = {ident: _AS_GRADED.get(o, o.upper()) for ident, o in run.outcomes.items()}
    source = next(
        (g.report_said for g in GRADERS if g.report in run.result.reports),
        "the log (the runner writes no report coder reads)",
    )
    return TestRun(statuses, run.result.output, source=source)
