"""The baseline: the test command once on the untouched worktree, before the first model call.

It decides whether the run can start at all (a command that cannot run is bad input), and it is
what every later test run is judged against: tests red before the change are not the change's
fault. A failure to import a module that is not a file of the repository is most often a
missing environment (dependencies, a generated file), which the run says with the fix.
"""

from __future__ import annotations

import math
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from coder.verdict.judge import Facts
from coder.verdict.run import TestRun, run_tests
from contracts.result import BaselineResult
from sandbox.changes import worktree_files
from sandbox.confine import Sandbox
from summarizers.causes import MissingImport, missing_imports
from summarizers.logformats.prep import prepare
from summarizers.runners.base import Reading
from summarizers.runners.table import runner_named

NOT_RUNNABLE = {127: "not found", 126: "not executable"}
"""Exit codes a POSIX shell reserves for a command it could not start."""
_SHELL_ERROR = re.compile(
    r"^(?:\S*sh: )?(?:line \d+: |\d+: )?(.+?): "
    r"(command not found|not found|No such file or directory|Permission denied)$"
)
ENVIRONMENT_FIX = (
    "if your checkout has it (an ignored or generated file, installed dependencies), name it "
    "in `.worktreeinclude` or the `include` config key; if it has to be built, set `setup_cmd`"
)
BRIEFING_IDS = 30
EVENT_IDS = 200


class BaselineUnrunnable(Exception):
    """The test command cannot run at all: one line for the person, nothing started."""


class BaselineCut(Exception):
    """The run's --timeout ran out while the baseline ran: the run stops with `timeout`."""


@dataclass(frozen=True)
class Baseline:
    command: str | None
    run: TestRun | None = None
    duration_s: float = 0.0
    missing_environment: list[str] = field(default_factory=list)
    """One line per import that failed for a module that is not a file of the repository."""

    @property
    def exit_code(self) -> int | None:
        return self.run.result.exit_code if self.run else None

    @property
    def timed_out(self) -> bool:
        return bool(self.run and self.run.result.timed_out)

    @property
    def outcomes(self) -> dict[str, str]:
        return self.run.outcomes if self.run else {}

    @property
    def failing(self) -> list[str]:
        return self.run.failing if self.run else []

    @property
    def incomplete(self) -> str | None:
        return self.run.incomplete if self.run else None

    def facts(self) -> Facts | None:
        """What the baseline showed, as the judge compares a later run with it."""
        return self.run.facts() if self.run else None

    def failing_at_base(self) -> dict[str, str] | None:
        """Tests known red before the change, and how they failed; None when the baseline
        knows nothing per test."""
        if self.run is None or self.timed_out or not self.outcomes:
            return None
        return {t: self.run.messages.get(t, "") for t in self.failing}

    def result(self) -> BaselineResult | None:
        if self.command is None:
            return None
        return BaselineResult(
            command=self.command,
            exit_code=self.exit_code,
            passed=self.run.passed if self.run else 0,
            failing=self.failing,
        )

    def event(self) -> dict[str, Any]:
        """The `baseline` trace event's payload."""
        run = self.run
        return {
            "command": self.command,
            "ran": run.command if run and run.command != self.command else None,
            "exit_code": self.exit_code,
            "passed": run.passed if run else 0,
            "failed": len(self.failing),
            "failing": self.failing[:EVENT_IDS],
            "duration_s": round(self.duration_s, 3),
            "timed_out": self.timed_out,
            "incomplete": self.incomplete,
            "removed_flags": run.removed if run else [],
            "missing_environment": self.missing_environment,
        }


def run_baseline(
    sandbox: Sandbox,
    root: Path,
    command: str | None,
    timeout_s: float,
    *,
    allow_no_tests: bool = False,
    run_left_s: float | None = None,
) -> Baseline:
    """Raises BaselineUnrunnable when the command cannot start, timed out, or ran no test
    (unless `allow_no_tests`): the run must not begin, since no verdict could be trusted.
    `run_left_s`: what is left of the run's --timeout, which bounds the baseline too
    (BaselineCut when it was what cut it)."""
    if not command:
        if allow_no_tests:
            return Baseline(None)
        raise BaselineUnrunnable(
            "no test command found for this repository: pass --test-cmd (or set test_cmd), "
            "or --allow-no-tests to run without tests"
        )
    started = time.monotonic()
    limit = baseline_limit(timeout_s)
    cut = run_left_s is not None and run_left_s < limit
    if run_left_s is not None and cut:
        limit = max(1.0, run_left_s)
    run = run_tests(sandbox, root, command, limit)
    duration = time.monotonic() - started
    if cut and run.result.timed_out:
        raise BaselineCut(f"the run passed its --timeout in the baseline (`{command}`)")
    problem = unrunnable(run) or timed_out(run, limit)
    if problem is None and not allow_no_tests:
        problem = ran_no_test(run)
    if problem:
        raise BaselineUnrunnable(problem)
    missing = []
    if run.result.exit_code != 0:
        missing = environment_diagnosis(run.result.output, set(worktree_files(root)))
    return Baseline(command, run, duration, missing)


BASELINE_LIMIT_S = 600.0
HEADROOM = 2.0
"""A command limit is at least this many times what the test command took at the base: the
machine may be busier later, and a step adds tests."""


def baseline_limit(cmd_timeout_s: float) -> float:
    """The baseline may take up to ten times the command limit (at most ten minutes, never
    less than the limit): a suite that merely needs more time than the limit on this machine,
    today, gets a raised limit (`raised_limit`) instead of a refused run."""
    return max(cmd_timeout_s, min(10 * cmd_timeout_s, BASELINE_LIMIT_S))


def raised_limit(cmd_timeout_s: float, base: Baseline) -> float | None:
    """The command limit the run's later test runs need, when the baseline took more than
    half of `cmd_timeout_s`; None when the limit leaves enough room."""
    if base.run is None or HEADROOM * base.duration_s <= cmd_timeout_s:
        return None
    return float(math.ceil(HEADROOM * base.duration_s))


def unrunnable(run: TestRun) -> str | None:
    """A one-line diagnosis when the shell could not start the command (exit 127 or 126)."""
    code = run.result.exit_code
    if code not in NOT_RUNNABLE or run.result.timed_out:
        return None
    said = next(
        (m for line in prepare(run.result.output).lines if (m := _SHELL_ERROR.match(line.strip()))),
        None,
    )
    what = f"{said.group(1)}: {said.group(2)}" if said else NOT_RUNNABLE[code]
    return (
        f"the test command `{run.requested}` cannot run: {what} (exit {code}); "
        "fix the command with --test-cmd or the test_cmd config key"
    )


def ran_no_test(run: TestRun) -> str | None:
    """One line when the baseline ran no test at all: every later verdict would be empty. The
    runner that read each part says how it tells ("no tests ran", "Ran 0 tests", an exit
    status); a runner's counts line of all zeros says it for any runner."""
    if run.result.timed_out or run.outcomes or run.passed:
        return None
    lines = prepare(run.result.output).lines
    said: list[str] = []
    for section in run.log.sections:
        if section.runner is None:
            continue
        reading = Reading(outcomes=dict(section.outcomes), counts=dict(section.counts))
        part = lines[section.start : section.end] or lines
        found = runner_named(section.runner).ran_nothing(reading, run.result.exit_code, part)
        if found:
            said.append(found)
    totals = [s.counts for s in run.log.sections if s.counts]
    if not said and not (totals and all(not any(c.values()) for c in totals)):
        return None
    why = ", ".join([*dict.fromkeys(said), f"exit {run.result.exit_code}"])
    return (
        f"the test command `{run.requested}` ran no test on the untouched tree ({why}): "
        "pass a --test-cmd that runs the repository's tests, or --allow-no-tests to run "
        "without them"
    )


def timed_out(run: TestRun, timeout_s: float) -> str | None:
    """One line when the baseline hit the command time limit: every later run would too."""
    if not run.result.timed_out:
        return None
    return (
        f"the test command `{run.requested}` timed out after {timeout_s:.0f}s on the untouched "
        "tree: pass a narrower --test-cmd, or a larger --cmd-timeout (the baseline may take ten "
        "times the command limit)"
    )


def environment_diagnosis(output: str, files: set[str]) -> list[str]:
    """Imports that failed for modules that are not files of the repository, one line each."""
    found = [m for m in missing_imports(prepare(output).lines) if not _in_repository(m, files)]
    lines = [
        f"`{m.name}` cannot be imported ({_clip(m.line)}) and is not a file of the repository"
        for m in found[:5]
    ]
    if len(found) > 5:
        lines.append(f"and {len(found) - 5} more module(s)")
    return lines


def _clip(text: str, limit: int = 160) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


_NODE_EXTENSIONS = ("", ".js", ".mjs", ".cjs", ".ts", ".mts", ".cts", ".json", "/index.js")


def _in_repository(missing: MissingImport, files: set[str]) -> bool:
    if missing.language == "python":
        parts = missing.name.split(".")
        stem = "/".join(parts)
        wanted = (f"{stem}.py", f"{stem}/__init__.py", f"{stem}.pyi")
        return any(f == w or f.endswith("/" + w) for f in files for w in wanted)
    name = missing.name.removeprefix("file://")
    if not name.startswith((".", "/")):
        return False  # a package name: node_modules/, never a file of the repository
    candidates = [name + ext for ext in _NODE_EXTENSIONS]
    if name.startswith("/"):
        return any(c.endswith("/" + f) for c in candidates for f in files)
    suffixes = [re.sub(r"^(?:\.\.?/)+", "", c) for c in candidates]
    return any(f == s or f.endswith("/" + s) for s in suffixes for f in files)


BEFORE = "Before any change (at the commit this run starts from)"
"""Not "at the base": in a PR fix the PR's base is another commit, and both are told."""


def briefing_note(base: Baseline, *, planner: bool = True) -> str:
    """What the model is told about the baseline: tests already red, a missing environment;
    the planner also how red tests count against the steps it plans."""
    if base.command is None or base.run is None:
        return ""
    lines = []
    if base.timed_out:
        lines.append(f"{BEFORE} `{base.command}` timed out.")
    elif base.exit_code == 0:
        lines.append(f"{BEFORE} `{base.command}` passes.")
    elif base.failing:
        counting = (
            "; they do not count against a step unless an invariant names them by id "
            '(e.g. tests_pass {"paths": ["tests/test_x.py::test_y"]}), so do not demand one '
            "that fails for another reason than the task:"
            if planner
            else ":"
        )
        lines.append(f"{BEFORE} these tests already fail under `{base.command}`" + counting)
        lines += [f"  - {t}" for t in base.failing[:BRIEFING_IDS]]
        if len(base.failing) > BRIEFING_IDS:
            lines.append(f"  (+{len(base.failing) - BRIEFING_IDS} more)")
    else:
        lines.append(
            f"{BEFORE} `{base.command}` exits {base.exit_code} without naming a failing test."
        )
    if base.incomplete:
        lines.append(f"The baseline run was incomplete: {base.incomplete}.")
    if base.missing_environment:
        lines.append("Likely a missing environment, not a code problem:")
        lines += [f"  - {line}" for line in base.missing_environment]
        lines.append(f"  The user's fix: {ENVIRONMENT_FIX}.")
    return "\n".join(lines)
