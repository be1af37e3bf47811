"""A whole test run's output, read once: prepared, split into sections, each section read by
the runner that recognises it, assembled into a `TestLog`.

Where a runner wrote a structured report the harness asked for (pytest's JUnit XML), its
outcomes (`Runner.read_report`) replace what the log's lines say for that runner's section;
the log still gives messages and errors.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import replace

from summarizers.logformats.prep import prepare
from summarizers.runners.base import Reading, Runner
from summarizers.runners.commands import readers_of
from summarizers.runners.model import OTHER, TESTS, Section, TestLog
from summarizers.runners.sections import Span, split_sections
from summarizers.runners.table import RUNNERS

MIN_SNIFF = 0.0
"""At or below this, no runner recognises a section: it is read as a section of no test runner."""
OTHER_PROGRAM_SNIFF = 0.3
"""A section whose command cannot be followed (a script coder has no table for) is claimed by
a runner's reading only on strong signs (a TAP header, a summary line), never on a check mark."""
ERROR_LINES = 5
_ERROR = re.compile(
    r"(\berror\b|\bERR!|Error:|\bERROR\b|\bFAIL(?:ED)?\b|✖|✗|failed|not met|exited? (?:with )?code [1-9])",
    re.IGNORECASE,
)
_VOLATILE = (
    (re.compile(r"\b\d+(?:\.\d+)?\s?(?:ms|s|sec|seconds)\b"), "…s"),
    (re.compile(r"\b0x[0-9a-fA-F]{6,}\b"), "0x…"),
    (re.compile(r"/tmp/[^\s:'\"]+"), "/tmp/…"),
)
_COUNT_KEYS = ("passed", "failed", "error", "skipped", "xfailed")


def read_log(
    text: str,
    reports: Mapping[str, bytes] | None = None,
    command: str = "",
    scripts: Mapping[str, str] | None = None,
) -> TestLog:
    """`text` read into sections; `reports`: the files the command left in its reports
    directory, by name (a runner's report is used for its section when the log holds one);
    `command`: what printed the log, with package.json's `scripts` where it runs one."""
    lines = prepare(text).lines
    return read_lines(lines, reports, command, scripts)


def read_lines(
    lines: list[str],
    reports: Mapping[str, bytes] | None = None,
    command: str = "",
    scripts: Mapping[str, str] | None = None,
) -> TestLog:
    """A section is read by a runner module only when its own command (where the log names
    it; the whole `command` for a log no mark or banner splits) runs that runner: the
    output of a runner coder does not know (AVA's `✔` lines) is never taken for a known
    one's by its look, and is judged by its exit and its counts line. A section whose
    command is not known, or not followed, is recognised by its look."""
    sections: list[Section] = []
    spans = split_sections(lines)
    for span in spans:
        if len(spans) == 1 and not span.command and command.strip():
            kind = TESTS if span.kind == OTHER else span.kind
            span = replace(span, command=command, kind=kind)
        part = lines[span.start : span.end]
        runner = _reader(span.command, part, scripts)
        reading = _read(runner, part) if runner else Reading()
        sections.append(_section(span, part, runner, reading))
    return TestLog(_with_reports(sections, _reported(reports or {})))


def _reader(command: str, lines: list[str], scripts: Mapping[str, str] | None) -> Runner | None:
    """The runner module that reads a section run by `command` (empty: not known)."""
    if not command.strip():
        return _pick(lines, list(RUNNERS))
    found = readers_of(command, scripts)
    if found is None:
        return _pick(lines, list(RUNNERS), OTHER_PROGRAM_SNIFF)
    if len(found) == 1:
        return found[0]
    return _pick(lines, found) or (found[0] if found else None)


def _reported(reports: Mapping[str, bytes]) -> dict[str, dict[str, str]]:
    """Runner name -> the outcomes its report gives, for the runners that wrote one."""
    found: dict[str, dict[str, str]] = {}
    for runner in RUNNERS:
        try:
            outcomes = runner.read_report(reports)
        except Exception:  # noqa: BLE001 - a bad report is no report; the log is read
            outcomes = None
        if outcomes is not None:
            found[runner.name] = outcomes
    return found


def _pick(lines: list[str], runners: list[Runner], floor: float = MIN_SNIFF) -> Runner | None:
    best, score = None, floor
    for runner in runners:
        try:
            said = runner.sniff(lines)
        except Exception:  # noqa: BLE001 - one runner's bug must not blind the others
            continue
        if said > score:
            best, score = runner, said
    return best


def _read(runner: Runner, lines: list[str]) -> Reading:
    try:
        return runner.read(lines)
    except Exception:  # noqa: BLE001 - the promise is "never raises"
        return Reading()


_COUNTED = re.compile(
    r"\b(\d+) (?:tests? )?(passed|passing|failed|failing|skipped|pending|ignored)\b", re.IGNORECASE
)
_WORD = {"passing": "passed", "failing": "failed", "pending": "skipped", "ignored": "skipped"}


def counts_line(lines: list[str]) -> dict[str, int]:
    """What a runner coder does not read says of its totals (`2 tests passed`, `1 failed;
    0 ignored`, `3 passing`), from its last lines: the judge's only count of such a run."""
    counts: dict[str, int] = {}
    for line in lines[-12:]:
        seen: dict[str, int] = {}
        for number, word in _COUNTED.findall(line):
            key = _WORD.get(word.lower(), word.lower())
            seen[key] = seen.get(key, 0) + int(number)
        counts.update(seen)  # a later summary line says it last
    return counts


def _section(span: Span, lines: list[str], runner: Runner | None, reading: Reading) -> Section:
    if runner is None and span.kind == TESTS and not reading.counts:
        reading = Reading(counts=counts_line(lines))
    failing = any(o in ("failed", "error") for o in reading.outcomes.values())
    errors = list(reading.errors)
    if not failing and not errors:
        errors = first_errors(lines)
    return Section(
        name=span.name or (runner.name if runner else ""),
        kind=TESTS if runner else span.kind,
        runner=runner.name if runner else None,
        outcomes=dict(reading.outcomes),
        messages=dict(reading.messages),
        errors=errors,
        incomplete=reading.incomplete,
        exit_code=span.exit_code,
        start=span.start,
        end=span.end,
        counts=dict(reading.counts),
        command=span.command,
        script=span.script,
        all_listed=_all_listed(reading),
    )


def _all_listed(reading: Reading) -> bool:
    """The per-test lines add up to the runner's own counts; a run whose counts say it ran no
    test lists all of none (a name selection that matched nothing: the named test is missing)."""
    counts = reading.counts
    total = counts.get("ran", counts.get("tests"))
    if total is None and any(k in counts for k in _COUNT_KEYS):
        total = sum(counts.get(k, 0) for k in _COUNT_KEYS)
    if total == 0:
        return not reading.outcomes
    return total is not None and len(reading.outcomes) >= total > 0


def first_errors(lines: list[str]) -> list[str]:
    """The first lines that say something failed, made comparable between two runs (no
    durations, addresses or temporary paths), for a section that names no failing test."""
    found: list[str] = []
    for line in lines:
        text = line.strip()
        if text and _ERROR.search(text) and text not in found:
            for pattern, mask in _VOLATILE:
                text = pattern.sub(mask, text)
            found.append(text[:200])
            if len(found) >= ERROR_LINES:
                break
    return found


def _with_reports(
    sections: list[Section], reports: Mapping[str, Mapping[str, str]]
) -> list[Section]:
    for name, outcomes in reports.items():
        mine = [i for i, s in enumerate(sections) if s.runner == name]
        if not mine:  # run by a command no runner module follows (`make test`), or too short
            mine = [
                i
                for i, s in enumerate(sections)
                if s.runner is None and (len(sections) == 1 or s.kind == TESTS)
            ]
        if len(mine) != 1:
            continue
        old = sections[mine[0]]
        failing = any(o in ("failed", "error") for o in outcomes.values())
        sections[mine[0]] = replace(
            old,
            runner=name,
            kind=TESTS,
            outcomes=dict(outcomes),
            errors=[] if failing and not old.errors else old.errors,
            all_listed=True,
        )
    return sections
