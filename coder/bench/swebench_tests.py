"""Running an instance's tests in one judged tree, confined: pytest as the official harness runs
it, or, for an instance whose ids are not pytest node ids (JavaScript, TypeScript), through the
verdict's own seam.

That seam is what a run's `tests_pass` uses: the repository's detected test command scoped to
the files test_patch touches (`command_for_paths`), run by `run_tests`, its output read by the
runner modules. So a JS instance's ids are coder's runner ids (`summarizers.runners`), exactly
as the suite's builders found them, and the statuses are given in the pytest words the grader
reads.

Outcomes come from a report the harness asks the runner for, never from lines a test could
print: pytest writes its JUnit XML into the sandbox's reports directory (a patch that prints
`PASSED <id>` at exit passes nothing), and when it wrote none, no test counts as run (the log is
not read instead). A runner without a report coder reads (the JavaScript ones) is read from its
log, and the evaluation says so.
"""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from coder.bench.swebench import Instance
from sandbox.running import REPORTS_ENV
from summarizers.runners.pytest import JUNIT_FILE, read_junit

EVAL_TIMEOUT_S = 1800.0
"""The official harness's default per-instance timeout."""
EVAL_OUTPUT_CAP = 16 << 20
"""Large suites print one summary line per test; all of them must survive the output cap."""
_AS_PYTEST = {
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
    if instance.language == "python":  # every id a pytest node id
        files = [f for f in test_files if f.endswith(".py")]
        for ident in instance.FAIL_TO_PASS + instance.PASS_TO_PASS:
            path = ident.split("::", 1)[0]
            if path not in files:
                files.append(path)
        command = (
            "python -m pytest -rA --tb=short -p no:cacheprovider -o junit_family=xunit1 "
            f'--junitxml="${REPORTS_ENV}/{JUNIT_FILE}" ' + " ".join(shlex.quote(f) for f in files)
        )
        result = sandbox.run(command, cwd=tree, timeout_s=EVAL_TIMEOUT_S)
        return junit_run(result.reports.get(JUNIT_FILE), result.output)
    return _runner_tests(sandbox, tree, test_files)


def junit_run(report: bytes | None, output: str) -> TestRun:
    """pytest's statuses from the JUnit XML the harness asked for; without a readable one no
    test counts as run, whatever the log prints."""
    outcomes = read_junit(report) if report is not None else None
    if outcomes is None:
        why = "wrote none" if report is None else "wrote one that is not valid XML"
        return TestRun({}, output, source=f"no report (pytest {why}; the log is not read)")
    statuses = {ident: _AS_PYTEST.get(o, o.upper()) for ident, o in outcomes.items()}
    return TestRun(statuses, output, source="pytest's JUnit XML report")


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
    statuses = {ident: _AS_PYTEST.get(o, o.upper()) for ident, o in run.outcomes.items()}
    source = (
        "pytest's JUnit XML report"
        if JUNIT_FILE in run.result.reports
        else "the log (the runner writes no report coder reads)"
    )
    return TestRun(statuses, run.result.output, source=source)
