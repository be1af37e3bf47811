"""pytest output in every --tb style (auto/long/short/line/native/no), -q/-v and -rA.

Failing ids come from the short test summary (present by default since pytest 6), falling back
to -v progress lines and then to the failure headlines; the detail of each failure comes from
its block in the FAILURES/ERRORS sections, matched to its id through the headline.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from summarizers.logformats import pytraceback
from summarizers.logformats.context import (
    add_unique,
    assertion_site,
    prioritize,
    references,
    split_exception,
    windows,
)
from summarizers.logformats.model import Failure, ParsedLog
from summarizers.runners import doctest_log

NAME = "pytest"
"""The log format's name (`coder compact --format`, the evidence)."""

_SECTION = re.compile(r"^={3,} (.+?) ={3,}$")
_BLOCK_HEAD = re.compile(r"^_+ (.+?) _+$")
"""pytest centres a failure's headline in underscores, down to one each side for long ids."""
_SUBSECTION = re.compile(r"^-{3,} (.+?) -{3,}$")
_SUMMARY = re.compile(r"^(FAILED|ERROR) (.+)$")
_FINAL = re.compile(
    r"^=*\s*((?:\d+ (?:failed|passed|skipped|deselected|xfailed|xpassed|errors?|warnings?|rerun|"
    r"subtests? (?:passed|failed|skipped))(?:, )?)+ in [\d.]+s(?: \([\d:]+\))?|no tests ran in [\d.]+s)"
    r"\s*=*$"
)
_INTERRUPTED = re.compile(r"^!{3,} (.+?) !{3,}$")
_VERBOSE = re.compile(
    r"^(?:\[gw\d+\] \[\s*\d+%\] (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S.*::.*)"
    r"|(\S.*?::.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS|SUBPASS|SUBFAIL)\b.*)$"
)
_PROGRESS = re.compile(r"^(?:\S+ )?[.FEsxX]+\s*(?:\[\s*\d+%\])?$")
_LOC_EXC = re.compile(r"^(\S+?):(\d+): (\w[\w.]*)$")
_LINE_ENTRY = re.compile(r"^(\S+?):(\d+): (.+)$")
_FRAME_LINE = re.compile(r"^\S+?:\d+:(?: |$)")
"""A frame of a long/short/line traceback: `path:line: in func`, `path:line: Exc` or bare."""
_ROOTDIR = re.compile(r"^rootdir: (.+?)(?:, \w+: .*)?$")
_E_LINE = re.compile(r"^E(?:\s|$)")
_FRAME_SEP = re.compile(r"^(?:_ ){5,}_?$")
_LOCAL = re.compile(r"^[A-Za-z_]\w* = ")
MIN_SIMILAR_FRAMES = 3
DETAIL_CAP = 10


@dataclass
class _Block:
    key: str | None
    section: str
    start: int
    end: int


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines:
        if line.startswith("="):
            if "test session starts" in line or "short test summary info" in line:
                score += 5
            elif _SECTION.match(line) and ("FAILURES" in line or "ERRORS" in line):
                score += 4
            elif _FINAL.match(line):
                score += 5
        elif line.startswith(("FAILED ", "ERROR ")) and "::" in line:
            score += 1
        elif _FINAL.match(line):
            score += 4
    return min(score, 30.0)


def parse(lines: list[str]) -> ParsedLog:
    log = ParsedLog(format="pytest", lines=lines)
    root = _rootdir(lines)
    sections = _sections(lines)
    log.counts = _counts(lines)
    summary_range = next((r for name, *r in sections if "short test summary" in name), None)
    failures = _summary_failures(lines, summary_range or [0, len(lines)], strict=not summary_range)
    listed = bool(summary_range and failures)
    verbose = _verbose_failures(lines, log)
    if not failures:
        failures = verbose
    blocks = _detail_blocks(lines, sections, log)
    _attach(failures, blocks, verbose, listed=listed)
    for failure, block in failures:
        if block is not None:
            _analyze(lines, block, failure, root, log)
    log.failures = [f for f, _ in failures]
    return log


def _rootdir(lines: list[str]) -> str | None:
    for line in lines[:40]:
        m = _ROOTDIR.match(line)
        if m:
            return m.group(1).strip()
    return None


def _sections(lines: list[str]) -> list[tuple[str, int, int]]:
    heads = [(i, m.group(1)) for i, line in enumerate(lines) if (m := _SECTION.match(line))]
    out = []
    for k, (i, name) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        out.append((name.lower(), i + 1, end))
    return out


def _counts(lines: list[str]) -> list[str]:
    counts: list[str] = []
    for line in reversed(lines[-200:] if len(lines) > 200 else lines):
        m = _FINAL.match(line)
        if m:
            counts.append(m.group(1))
            break
    for line in lines[-200:]:
        m = _INTERRUPTED.match(line)
        if m:
            counts.insert(0, m.group(1))
    return counts


def split_summary(rest: str) -> tuple[str, str]:
    """("path::test[a - b]", "msg") from "path::test[a - b] - msg": ids may hold " - "."""
    cut = 0
    if "[" in rest:
        depth = 0
        for k, ch in enumerate(rest):
            if ch == "[":
                depth += 1
            elif ch == "]":
                depth -= 1
                if depth == 0:
                    cut = k
            elif ch == " " and depth == 0 and rest.startswith(" - ", k):
                break
    pos = rest.find(" - ", cut)
    if pos < 0:
        return rest.strip(), ""
    return rest[:pos].strip(), rest[pos + 3 :].strip()


def _summary_failures(
    lines: list[str], span: list[int], *, strict: bool
) -> list[tuple[Failure, _Block | None]]:
    """FAILED/ERROR lines of the short summary; without its header, only ones that look like ids."""
    out: list[tuple[Failure, _Block | None]] = []
    for i in range(span[0], span[1]):
        m = _SUMMARY.match(lines[i])
        if not m:
            continue
        ident, msg = split_summary(m.group(2))
        if strict and "::" not in ident and not ident.endswith(".py"):
            continue
        exc_type, message = split_exception(msg)
        if not exc_type and message.startswith("assert"):
            exc_type = "AssertionError"
        out.append((Failure(id=ident, label=m.group(1), exc_type=exc_type, message=message), None))
    return out


def _verbose_failures(lines: list[str], log: ParsedLog) -> list[tuple[Failure, _Block | None]]:
    found: dict[str, str] = {}
    for i, line in enumerate(lines):
        if not line or line[0].isspace():
            continue
        m = _VERBOSE.match(line)
        if m:
            status, ident = (m.group(1), m.group(2)) if m.group(1) else (m.group(4), m.group(3))
            if status in ("FAILED", "ERROR", "SUBFAIL"):
                label = "ERROR" if status == "ERROR" else "FAILED"
                if found.get(ident) != "ERROR":
                    found[ident] = label
            else:
                log.drop("passing/progress lines")
        elif (" " in line or "%]" in line) and _PROGRESS.match(line):
            log.drop("passing/progress lines")
            log.progress.add(i)
    return [(Failure(id=ident, label=label), None) for ident, label in found.items()]


def _detail_blocks(
    lines: list[str], sections: list[tuple[str, int, int]], log: ParsedLog
) -> list[_Block]:
    blocks: list[_Block] = []
    for name, start, end in sections:
        if name in ("failures", "errors"):
            blocks += _split_blocks(lines, name, start, end)
        elif "warnings summary" in name:
            log.drop("warnings-summary lines", end - start)
        elif name == "passes":
            log.drop("passing-test output lines", end - start)
        elif "short test summary" in name:
            log.drop(
                "passing/skipped summary lines",
                sum(
                    1
                    for i in range(start, end)
                    if lines[i].startswith(("PASSED ", "SKIPPED ", "XFAIL"))
                ),
            )
    return blocks


def _split_blocks(lines: list[str], section: str, start: int, end: int) -> list[_Block]:
    heads = [
        i
        for i in range(start, end)
        if _BLOCK_HEAD.match(lines[i]) and not _FRAME_SEP.match(lines[i])
    ]
    if heads:
        out = []
        for k, i in enumerate(heads):
            stop = heads[k + 1] if k + 1 < len(heads) else end
            head = _BLOCK_HEAD.match(lines[i])
            key = _headline_key(head.group(1)) if head else None
            out.append(_Block(key, section, i, stop))
        return out
    # --tb=line: one "path:line: message" line closes each failure, E lines may precede it.
    out, begin = [], start
    for i in range(start, end):
        line = lines[i]
        if line and not line[0].isspace() and not _E_LINE.match(line) and _LINE_ENTRY.match(line):
            if not _SUBSECTION.match(line):
                out.append(_Block(None, section, begin - 1, i + 1))
                begin = i + 1
    return out


def _headline_key(headline: str) -> str:
    for prefix in (
        "ERROR collecting ",
        "ERROR at setup of ",
        "ERROR at teardown of ",
        "[doctest] ",
    ):
        if headline.startswith(prefix):
            return headline[len(prefix) :]
    return headline


def headline_of(nodeid: str) -> str:
    parts = nodeid.split("::")
    return parts[0] if len(parts) == 1 else ".".join(parts[1:])


def _attach(
    failures: list[tuple[Failure, _Block | None]],
    blocks: list[_Block],
    verbose: list[tuple[Failure, _Block | None]],
    *,
    listed: bool,
) -> None:
    """Give each detail block to its failure. When the short summary listed the failures, it
    is the whole list: a block that matches none of them is detail of one, never another
    failure (one failure, one line)."""
    by_key: dict[str, list[int]] = {}
    for n, (failure, _) in enumerate(failures):
        by_key.setdefault(headline_of(failure.id), []).append(n)
    full_ids = {headline_of(f.id): f.id for f, _ in verbose}
    keyless = [n for n, (f, _) in enumerate(failures) if f.label == "FAILED"]
    for block in blocks:
        want = "ERROR" if block.section == "errors" else "FAILED"
        k: int | None
        if block.key is None:
            k = next((n for n in keyless if failures[n][1] is None), None)
        else:
            candidates = [n for n in by_key.get(block.key, []) if failures[n][1] is None]
            k = next((n for n in candidates if failures[n][0].label == want), None)
            if k is None and candidates:
                k = candidates[0]
        if k is not None:
            failures[k] = (failures[k][0], block)
        elif not listed:
            ident = full_ids.get(block.key or "", block.key or "unnamed failure")
            failures.append((Failure(id=ident, label=want), block))


def _analyze(
    lines: list[str], block: _Block, failure: Failure, root: str | None, log: ParsedLog
) -> None:
    start, end = block.start + 1, block.end
    for i in range(start, end):
        if _SUBSECTION.match(lines[i]) and "Captured" in lines[i]:
            log.drop("captured-output lines", end - i)
            end = i
            break
    _collapse_similar_frames(lines, start, end, log)
    interesting: list[int] = [i for i in log.replaced if start <= i < end]
    e_runs: list[list[int]] = []
    frames: list[str] = []
    key_line: int | None = None
    exc_from_loc = ""
    native = False
    for i in range(start, end):
        line = lines[i]
        if i in log.noise:
            continue
        if _E_LINE.match(line):
            if e_runs and e_runs[-1][-1] == i - 1:
                e_runs[-1].append(i)
            else:
                e_runs.append([i])
                interesting.append(i)
            continue
        if line.startswith(">"):
            interesting.append(i)
        elif line.startswith(pytraceback.TRACEBACK_HEAD):
            native = True
        refs = references(line, root)
        if refs:
            add_unique(failure.locations, refs)
            if _FRAME_LINE.match(line):
                frames += refs
            m = _LOC_EXC.match(line)
            if m:
                exc_from_loc = m.group(3)
                interesting.append(i)
            elif not native and ": in " in line:
                interesting.append(i)
    if e_runs:
        _from_e_run(lines, e_runs[-1], end, failure)
        key_line = e_runs[-1][0]
    if native or not e_runs:
        facts = pytraceback.analyze(lines, start, end, root)
        if facts.message_line is not None:
            failure.exc_type, failure.message = facts.exc_type, facts.message
            failure.details, failure.details_dropped = facts.details, facts.details_dropped
            key_line = facts.message_line
            interesting += facts.interesting
            add_unique(failure.locations, facts.locations)
            frames = frames or facts.frames
    if block.key is None:
        _from_line_entry(lines[block.end - 1], failure, root)
        interesting.append(block.end - 1)
    failure.site, failure.origin = assertion_site(frames, failure.id)
    if exc_from_loc and not failure.exc_type:
        failure.exc_type = exc_from_loc
    doctest = doctest_log.analyze(lines, start, end)
    if doctest is not None:
        failure.message = doctest.message
        failure.details, failure.details_dropped = doctest.lines, doctest.dropped
        key_line = doctest.lines[-1]
        if exc_from_loc:
            failure.exc_type = exc_from_loc
    failure.blocks = prioritize(windows(interesting, start, end), key_line)


def _collapse_similar_frames(lines: list[str], start: int, end: int, log: ParsedLog) -> None:
    """--tb=long prints each recursive frame with its own locals, so the frames differ as text
    but not as information: keep the first and last of a run and say how many went."""
    seps = [i for i in range(start, end) if _FRAME_SEP.match(lines[i])]
    if len(seps) < MIN_SIMILAR_FRAMES:
        return
    frames = list(zip([start, *[s + 1 for s in seps]], [*seps, end], strict=True))

    def signature(frame: tuple[int, int]) -> tuple[str, ...]:
        return tuple(x for x in lines[frame[0] : frame[1]] if x.strip() and not _LOCAL.match(x))

    sigs = [signature(f) for f in frames]
    k = 0
    while k < len(frames):
        j = k
        while j + 1 < len(frames) and sigs[j + 1] == sigs[k]:
            j += 1
        if j - k + 1 >= MIN_SIMILAR_FRAMES:
            first_dropped, last_dropped = frames[k + 1][0], frames[j - 1][1]  # keeps sep before j
            log.noise.update(range(first_dropped, last_dropped + 1))
            log.replaced[first_dropped] = f"    [{j - k - 1} similar frames dropped]"
            log.drop("repeated frame lines", last_dropped + 1 - first_dropped)
        k = j + 1


def _from_e_run(lines: list[str], run: list[int], end: int, failure: Failure) -> None:
    first = lines[run[0]][1:].strip()
    exc_type, message = split_exception(first)
    if exc_type or message:
        failure.exc_type = exc_type or failure.exc_type
        failure.message = message
    details = list(run[1:])
    stop = run[-1] + 1
    while stop < end and lines[stop].startswith("  ") and lines[stop].strip():
        details.append(stop)  # --tb=line continues an E line without the E prefix
        stop += 1
    failure.details = details[:DETAIL_CAP]
    failure.details_dropped = max(0, len(details) - DETAIL_CAP)
    if not failure.exc_type and failure.message.startswith("assert"):
        failure.exc_type = "AssertionError"


def _from_line_entry(line: str, failure: Failure, root: str | None) -> None:
    m = _LINE_ENTRY.match(line)
    if not m:
        return
    add_unique(failure.locations, references(line, root))
    if not failure.message:
        exc_type, message = split_exception(m.group(3))
        failure.exc_type = failure.exc_type or exc_type
        failure.message = message
