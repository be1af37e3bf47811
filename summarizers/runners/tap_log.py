"""TAP as `node --test` prints it (the default reporter when stdout is not a terminal), and as
tape prints it.

Nested subtests are indented four spaces per level and announced by `# Subtest: name`, so a
test's id is the path of names from the outermost suite: "suite > test". tape has no subtests:
a `# name` comment opens each test, whose assertions follow as `ok N message` lines (no dash,
messages often repeated), so an assertion's id is "test > message".
"""

from __future__ import annotations

import re

from summarizers.logformats.context import add_unique, references, windows
from summarizers.logformats.model import Failure, ParsedLog

NAME = "node-tap"
"""The log format's name (`coder compact --format`, the evidence)."""

TEST_LINE = re.compile(r"^(\s*)(not ok|ok) \d+(?:(?: -)? (.*?))?(?: # (SKIP|TODO|skip|todo)\b.*)?$")
SUBTEST = re.compile(r"^(\s*)# Subtest: (.*)$")
_COUNT = re.compile(r"^# (tests|suites|pass|fail|cancelled|skipped|todo)\s+(\d+)$")
_TAPE_TEST = re.compile(r"^# (\S.*)$")
_KEY = re.compile(r"^(\s*)(\w+):(?: (.*))?$")
_INTERNAL = ("node:internal", "node:async_hooks", "(<anonymous>)", "new Promise", "Array.map")
SEPARATOR = " > "
_ERROR_LINE = re.compile(r"^((?:[A-Z]\w*)?Error(?: \[\w+\])?): (.+)$")
FILE_FAILED = "test failed"
"""node's whole message for a test file whose process exited non-zero."""


def sniff(lines: list[str]) -> float:
    score = 0.0
    for line in lines:
        if line.startswith("TAP version"):
            score += 5
        elif line.lstrip().startswith("# Subtest:"):
            score += 1
        elif _COUNT.match(line):
            score += 2
        elif line.lstrip().startswith(("ok ", "not ok ")) and TEST_LINE.match(line):
            score += 0.5
    return min(score, 25.0)


def test_path(stack: list[str], level: int, name: str) -> str:
    return SEPARATOR.join([*stack[:level], name])


def tape_style(lines: list[str]) -> bool:
    """node --test announces every test with `# Subtest:`; tape never does. Only in tape's
    output is a top-level `# ` comment the name of the test that follows (node's are output)."""
    return not any(SUBTEST.match(line) for line in lines)


def tape_test(line: str) -> str | None:
    """The test a tape `# name` line opens, or None (counts and the closing `# ok` are not)."""
    m = _TAPE_TEST.match(line)
    if m is None or _COUNT.match(line) or line.strip() == "# ok":
        return None
    return m.group(1).strip()


def enter_subtest(stack: list[str], sub: re.Match[str]) -> None:
    """Track the enclosing subtest names: a `# Subtest:` line opens one at its indent level."""
    level = len(sub.group(1)) // 4
    del stack[level:]
    stack.extend([""] * (level - len(stack)))
    stack.append(sub.group(2))


def parse(lines: list[str]) -> ParsedLog:
    log = ParsedLog(format="node-tap", lines=lines)
    stack: list[str] = []
    counts: list[str] = []
    diagnostics: list[int] = []
    tape = tape_style(lines)
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        sub = SUBTEST.match(line)
        if sub:
            enter_subtest(stack, sub)
            i += 1
            continue
        m = TEST_LINE.match(line)
        if not m:
            c = _COUNT.match(line)
            if c:
                counts.append(f"{c.group(1)} {c.group(2)}")
            elif tape and (name := tape_test(line)) is not None:
                stack[:] = [name]
            elif line.startswith("# "):
                diagnostics.append(i)
            i += 1
            continue
        level = len(stack) if tape else len(m.group(1)) // 4
        name = (m.group(3) or "").replace("\\#", "#")
        yaml_start, yaml_end = _yaml_block(lines, i + 1)
        if m.group(2) == "ok" or m.group(4):
            log.drop("passing/progress lines", 1 + yaml_end - yaml_start)
        else:
            failure = _failure(lines, test_path(stack, level, name), yaml_start, yaml_end, log)
            if failure is not None:
                if level == 0 and failure.message == FILE_FAILED:
                    _from_diagnostics(lines, diagnostics, failure, log)
                log.failures.append(failure)
        diagnostics = []
        i = max(i + 1, yaml_end)
    if counts:
        log.counts = [", ".join(counts)]
    return log


def _from_diagnostics(lines: list[str], found: list[int], failure: Failure, log: ParsedLog) -> None:
    """A test file whose process failed says only "test failed"; the why is what the process
    printed, which node reports as `# ` lines before the file's own result (a missing module)."""
    for j in found:
        text = lines[j][2:].strip()
        if any(mark in text for mark in _INTERNAL) or text.startswith(("throw ", "^")):
            log.noise.add(j)
    useful = [j for j in found if j not in log.noise]
    for j in useful:
        m = _ERROR_LINE.match(lines[j][2:].strip())
        if m:
            failure.exc_type, failure.message = m.group(1), m.group(2)
            failure.details = [k for k in useful if k > j][:8]
            failure.blocks = [*windows([j], found[0], found[-1] + 1), *failure.blocks]
            add_unique(failure.locations, [r for k in useful for r in references(lines[k], None)])
            return


def _yaml_block(lines: list[str], start: int) -> tuple[int, int]:
    if start >= len(lines) or lines[start].strip() != "---":
        return start, start
    indent = len(lines[start]) - len(lines[start].lstrip())
    for j in range(start + 1, len(lines)):
        if lines[j].strip() == "..." and len(lines[j]) - len(lines[j].lstrip()) == indent:
            return start, j + 1
    return start, len(lines)


def _failure(lines: list[str], ident: str, start: int, end: int, log: ParsedLog) -> Failure | None:
    fields: dict[str, tuple[int, str]] = {}
    key_indent = None
    current = ""
    owner: dict[int, str] = {}
    for j in range(start + 1, max(start + 1, end - 1)):
        km = _KEY.match(lines[j])
        if km and (key_indent is None or len(km.group(1)) == key_indent):
            key_indent = len(km.group(1))
            current = km.group(2)
            fields[current] = (j, (km.group(3) or "").strip())
        owner[j] = current
    if fields.get("failureType", (0, ""))[1].strip("'") == "subtestsFailed":
        return None
    failure = Failure(id=ident)
    failure.exc_type = _unquote(fields.get("name", (0, ""))[1]) or _unquote(
        fields.get("code", (0, ""))[1]
    )
    error_lines = [
        j for j, k in owner.items() if k == "error" and j != fields.get("error", (-1,))[0]
    ]
    inline = _unquote(fields.get("error", (0, ""))[1])
    if inline and inline not in ("|-", "|", ">-"):
        failure.message = inline
    elif error_lines:
        body = [j for j in error_lines if lines[j].strip()]
        if body:
            failure.message = join_continuation([lines[j].strip() for j in body[:2]])
            failure.details = body[1:10]
            failure.details_dropped = max(0, len(body) - 10)
    compared = [fields[k][0] for k in ("expected", "actual", "operator") if k in fields]
    compared += [j for j, k in owner.items() if k in ("expected", "actual") and j not in compared]
    failure.details = sorted(set(failure.details) | set(compared))[:14]
    interesting = [fields[k][0] for k in ("error", "location") if k in fields] + compared
    if "at" in fields:  # tape's name for the location
        interesting.append(fields["at"][0])
    for key in ("location", "at"):
        if key in fields:
            add_unique(failure.locations, references(_unquote(fields[key][1]), None))
    for j, k in owner.items():
        text = lines[j]
        if k == "stack":
            if any(mark in text for mark in _INTERNAL):
                log.noise.add(j)
            else:
                interesting.append(j)
                add_unique(failure.locations, references(text, None))
        elif k in ("duration_ms", "failureType", "type"):
            log.noise.add(j)
    failure.blocks = windows(interesting, start + 1, max(start + 1, end - 1))
    return failure


def join_continuation(first_two: list[str]) -> str:
    """node's assertion messages end the first line with ':' and put the values on the next."""
    if len(first_two) == 2 and first_two[0].endswith(":"):
        return f"{first_two[0]} {first_two[1]}"
    return first_two[0] if first_two else ""


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
        return value[1:-1].replace("''", "'")
    return value


def ids_carry_durations(lines: list[str]) -> bool:
    """node-tap prints a test's duration after its name (`# time=40.6ms`), which this format's
    ids would keep; the runner module's reading leaves it out (node's own runner and tape never
    print it)."""
    return any("# time=" in line for line in lines[-200:])
