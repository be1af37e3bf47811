"""Every test run the harness counts as evidence: the command rewritten by one list of
transforms (each saying what it did), run in the sandbox, its output read once into facts.

The baseline, a step's `tests_pass`, the final check, reflect's critique run and `coder ci`'s
suite all come through `run_tests`. A run that stopped early is never evidence that tests
pass; what a runner can report in a file (a JUnit XML report) is read from that file in the
sandbox's own temporary directory, not from a line per test in the log.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path

from coder.verdict.judge import Facts, SectionFailure
from sandbox.artifacts import Artifacts, keep_tracked
from sandbox.confine import CommandResult, Sandbox
from sandbox.pipestatus import with_pipeline_status
from summarizers.logformats.prep import prepare
from summarizers.repofiles import read_beneath
from summarizers.runners.commands import (
    artifacts_in,
    mark_sections,
    with_listing,
    with_script_banners,
)
from summarizers.runners.model import FAILING, PASSED, TestLog
from summarizers.runners.reader import read_lines
from summarizers.runners.stopcut import without_stop_flags
from summarizers.runners.table import RUNNERS
from summarizers.sandbox_failures import environment_failures as sandbox_failures

SETUP_ENV: dict[str, str] = {k: v for r in RUNNERS for k, v in r.setup.env.items()}
"""What every runner asks of the environment of every harness run (see `RunSetup`)."""
SETUP_PRELUDE = "".join(f"{r.setup.prelude}\n" for r in RUNNERS if r.setup.prelude)


@dataclass(frozen=True)
class Transformed:
    """One transform's result: the command to run next, and what was done, if anything."""

    command: str
    said: str = ""
    shown: bool = True
    """Part of the command as the evidence shows it (`False`: plumbing, like pipeline status)."""
    removed: list[str] = field(default_factory=list)
    kept: list[str] = field(default_factory=list)


Transform = Callable[[str, Path], Transformed]


def stop_flags_out(command: str, root: Path) -> Transformed:
    cut = without_stop_flags(command, package_scripts(root))
    said = (
        f"ran without {', '.join(cut.removed)}: a run that stops at the first failure is not "
        "evidence about the tests after it"
        if cut.removed
        else ""
    )
    return Transformed(cut.command, said, True, cut.removed, cut.kept)


def script_banners(command: str, root: Path) -> Transformed:
    """npm prints which script runs only when not told to be silent: a red lint hook is then a
    section of its own, judged against the base by itself."""
    return Transformed(with_script_banners(command), "", shown=False)


def every_test_named(command: str, root: Path) -> Transformed:
    """A runner the command invokes directly reports every test by id (`Runner.listing`)."""
    return Transformed(with_listing(command), "", shown=False)


def section_marks(command: str, root: Path) -> Transformed:
    """A composite command (`a && b`) prints a mark before each part, so its log splits into
    sections."""
    return Transformed(mark_sections(command), "", shown=False)


def runner_setup(command: str, root: Path) -> Transformed:
    return Transformed(SETUP_PRELUDE + command, "", shown=False)


def pipeline_status(command: str, root: Path) -> Transformed:
    return Transformed(with_pipeline_status(command), "", shown=False)


TRANSFORMS: tuple[Transform, ...] = (
    stop_flags_out,
    script_banners,
    every_test_named,
    section_marks,
    runner_setup,
    pipeline_status,
)
"""In order: what is shown as the command ran, then the plumbing around it."""


def package_scripts(root: Path) -> dict[str, str]:
    """package.json's `scripts` at `root` (read without following a link); empty when there
    is none or it is not JSON."""
    try:
        data = json.loads(read_beneath(root, "package.json") or b"")
    except ValueError:
        return {}
    scripts = data.get("scripts") if isinstance(data, dict) else None
    if not isinstance(scripts, dict):
        return {}
    return {k: v for k, v in scripts.items() if isinstance(k, str) and isinstance(v, str)}


@dataclass(frozen=True)
class TestRun:
    requested: str
    """The command as asked for (the repository's test command, or an invariant's)."""
    command: str
    """The command as shown: `requested` without the stop flags that could be taken out."""
    result: CommandResult
    log: TestLog = field(default_factory=lambda: TestLog([]))
    removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    """What the transforms did, one line each."""
    kept_stop_flags: list[str] = field(default_factory=list)
    environment: list[str] = field(default_factory=list)
    """One line per failure of the sandbox's making in the output."""
    saved: Mapping[str, object] | None = None
    """Facts restored from state.json (no log): outcomes, messages, incomplete."""

    @property
    def outcomes(self) -> dict[str, str]:
        if self.saved is not None:
            return dict(self.saved.get("outcomes", {}))  # type: ignore[call-overload]
        return self.log.outcomes

    @property
    def messages(self) -> dict[str, str]:
        if self.saved is not None:
            return dict(self.saved.get("messages", {}))  # type: ignore[call-overload]
        return self.log.messages

    @property
    def incomplete(self) -> str | None:
        if self.saved is not None:
            return self.saved.get("incomplete")  # type: ignore[return-value]
        result = self.result
        if result.exit_code == 0 or result.timed_out:
            return None
        said = self.log.incomplete
        if said is None and self.kept_stop_flags:
            said = (
                f"it stops at the first failure ({', '.join(self.kept_stop_flags)}) and the "
                "flag could not be taken out of the command"
            )
        return said

    @property
    def failing(self) -> list[str]:
        return sorted(t for t, o in self.outcomes.items() if o in FAILING)

    @property
    def passed(self) -> int:
        listed = sum(1 for o in self.outcomes.values() if o == PASSED)
        counted = sum(s.counts.get("passed", 0) for s in self.log.sections)
        return max(listed, counted)

    def note(self) -> str:
        """One line on what was run differently from what was asked, or ""."""
        return "; ".join(self.notes)

    def facts(self) -> Facts:
        result = self.result
        return Facts(
            command=self.command,
            exit_code=None if result.timed_out else result.exit_code,
            outcomes=self.outcomes,
            messages=self.messages,
            timed_out=result.timed_out,
            duration_s=result.duration_s,
            incomplete=self.incomplete,
            all_listed=self.log.all_listed and not self._dropped_text(),
            passed_count=self.passed,
            section_failures=tuple(self._section_failures()),
            environment=tuple(self.environment),
            output_dropped=result.dropped_bytes > 0,
            readers=tuple(dict.fromkeys(s.runner for s in self.log.sections if s.runner)),
        )

    def _dropped_text(self) -> bool:
        """Outcomes read from a log the sandbox cut may leave tests out."""
        return self.result.dropped_bytes > 0 and not self.result.reports

    def _section_failures(self) -> list[SectionFailure]:
        result = self.result
        if result.exit_code == 0 or result.timed_out:
            return []
        sections = self.log.sections
        found = [
            SectionFailure(s.name, tuple(s.errors), s.exit_code, s.command, s.script)
            for s in sections
            if not s.failing
            and (
                s.exit_code not in (None, 0)
                or (s.exit_code is None and s.runner is None and s.errors and len(sections) > 1)
            )
        ]
        if not found and not self.failing:
            if not sections:
                return [SectionFailure("", (), result.exit_code)]
            last = sections[-1]
            found.append(
                SectionFailure(
                    last.name, tuple(last.errors), result.exit_code, last.command, last.script
                )
            )
        return found


def run_tests(
    sandbox: Sandbox,
    root: Path,
    command: str,
    timeout_s: float,
    *,
    transforms: tuple[Transform, ...] = TRANSFORMS,
    env: Mapping[str, str] | None = None,
) -> TestRun:
    """`command` rewritten, run once in `sandbox` at `root`, its output read once. A file git
    tracks that the run's runners write (a `junit.xml` the project keeps) is put back as it
    was: the harness's runs leave the tree as they found it, but for untracked artifacts."""
    shown, running = command, command
    notes: list[str] = []
    removed: list[str] = []
    kept_flags: list[str] = []
    for transform in transforms:
        step = transform(running, root)
        running = step.command
        if step.shown:
            shown = step.command
        notes += [step.said] if step.said else []
        removed += step.removed
        kept_flags += step.kept
    scripts = package_scripts(root)
    kept = keep_tracked(root, Artifacts(artifacts_in(command, scripts)))
    try:
        result = _run_once(sandbox, root, running, timeout_s, env)
    finally:
        kept.restore()
    result = replace(result, command=shown)
    return read_run(
        command, shown, result, notes=notes, removed=removed, kept=kept_flags, scripts=scripts
    )


def _run_once(
    sandbox: Sandbox, root: Path, running: str, timeout_s: float, env: Mapping[str, str] | None
) -> CommandResult:
    """The run, and once more without the runners' setup where the setup itself failed."""
    result = sandbox.run(running, cwd=root, timeout_s=timeout_s, env={**SETUP_ENV, **(env or {})})
    refused = {
        k: v
        for r in RUNNERS
        if r.setup.refused and r.setup.refused in result.output
        for k, v in r.setup.fallback.items()
    }
    if refused and not result.timed_out:
        again = {**SETUP_ENV, **refused, **(env or {})}
        result = sandbox.run(running, cwd=root, timeout_s=timeout_s, env=again)
    return result


def read_run(
    requested: str,
    shown: str,
    result: CommandResult,
    *,
    notes: list[str] | None = None,
    removed: list[str] | None = None,
    kept: list[str] | None = None,
    scripts: Mapping[str, str] | None = None,
) -> TestRun:
    """A finished command's output and reports read once into a TestRun; `scripts`:
    package.json's, where `requested` runs one (which runners print its sections)."""
    lines = prepare(result.output).lines
    log = read_lines(lines, result.reports, requested, scripts)
    return TestRun(
        requested=requested,
        command=shown,
        result=result,
        log=log,
        removed=list(removed or []),
        notes=list(notes or []),
        kept_stop_flags=list(kept or []),
        environment=environment_failures(lines),
    )


def environment_failures(lines: list[str]) -> list[str]:
    """Failures of the sandbox's making, one line each ("read_only /path: the line")."""
    try:
        failures = sandbox_failures(lines)
    except Exception:  # noqa: BLE001 - a reader never takes the verdict down
        return []
    return [f"{f.kind}{' ' + f.path if f.path else ''}: {f.line.strip()[:200]}" for f in failures]


def restored_run(
    requested: str,
    ran: str,
    result: CommandResult,
    outcomes: Mapping[str, str],
    messages: Mapping[str, str],
    incomplete: str | None,
    removed: list[str],
) -> TestRun:
    """A run as state.json saved it: its facts without its log (nothing judges by the log)."""
    return TestRun(
        requested=requested,
        command=ran,
        result=result,
        removed=list(removed),
        saved={"outcomes": dict(outcomes), "messages": dict(messages), "incomplete": incomplete},
    )
