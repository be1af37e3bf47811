"""TAP: plain TAP, tape, and node-tap v16-21 (TAP 13/14 with indented subtests).

A test is a subtest (`# Subtest: name`, or TAP 14's buffered `ok 1 - name {`), its id the path
of names from the outermost one, which for node-tap is the test file: `test/a.js > group >
case`. Points without a subtest header are assertions (`ok 2 - should be equal`): they are not
tests, so a name like "should be equal" that repeats never becomes an id; a failing one fails
its enclosing test and gives it its message. tape has no subtests: a top-level `# name` comment
opens a test whose assertions follow.

Ids are leaves: a test that has subtests is reported only when it failed on its own (an
assertion of its own, a crash, a timeout, a plan mismatch), so one failing case is one failing
id, not one per enclosing group. Directives never reach an id: `# time=40.659ms`, `# SKIP`,
`# TODO`. node-tap's summary counts assertions, so `Reading.counts` is the tests' own tally.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from summarizers.runners.base import Default, Reading, RunSetup, Selected, Unselectable
from summarizers.runners.jsargs import find_binary, is_js_test_file, replace_paths
from summarizers.runners.model import FAILED, PASSED, SKIPPED
from summarizers.runners.names import DIR, TEST, Name, Project
from summarizers.runners.outputs import Output, written
from summarizers.runners.stopargs import StopFlag, option_flags
from summarizers.runners.targets import targets_by_path

POINT = re.compile(r"^(\s*)(not ok|ok)\b(?: \d+)?(?: -)?(?: (.*?))?(?:\s*# (\w+)\b(.*))?$")
SUBTEST = re.compile(r"^(\s*)# Subtest: (.*)$")
_BUFFERED = re.compile(r"^(.*) \{$")
_BAIL = re.compile(r"^\s*Bail out!(.*)$")
_TAPE_TEST = re.compile(r"^# (\S.*)$")
_TAPE_SKIP = re.compile(r"^# SKIP (.+)$")
_NODE_COUNTS = re.compile(r"^# (tests|suites|pass|fail|cancelled|skipped|todo|duration_ms)\b")
_TAP_SUMMARY = re.compile(r"^# (?:failed \d+ of \d+ tests|\{ total: \d+|time=)")
_YAML_KEY = re.compile(r"^\s*(type|name|message|found|wanted|operator|expected|actual):\s*(.*)$")
_AT_FILE = re.compile(r"^\s*(?:file|fileName):\s*(\S+)$")
_AT_LINE = re.compile(r"^\s*(?:line|lineNumber):\s*(\d+)$")
_AT_COL = re.compile(r"^\s*(?:column|columnNumber):\s*(\d+)$")
_SKIPS = ("skip", "todo")
SEPARATOR = " > "
_WITH_VALUE = {
    "-R", "--reporter", "-t", "--timeout", "-j", "--jobs", "-g", "--grep", "--test-regex",
    "--test-ignore", "-c", "--coverage-map", "--nyc-arg", "--node-arg", "-o", "--output-file",
    "--output-dir", "-d", "--reporter-arg", "--before", "--after", "--plugin", "-i", "--include",
    "--exclude",
}  # fmt: skip
V16_COVERAGE_OFF = "--no-coverage"
V18_COVERAGE_OFF = "--disable-coverage"
"""node-tap 18 and later check 100% coverage by default and refuse `--no-coverage`; 16 and
earlier refuse `--disable-coverage`. The flag turns off a gate one test file cannot meet."""
_V16_ONLY = {"--no-coverage", "--no-cov", "--check-coverage", "--100", "--nyc-arg", "--no-esm"}
_V18_ONLY = {"--disable-coverage", "--allow-incomplete-coverage", "--allow-empty-coverage"}


@dataclass
class _Test:
    path: str
    outcome: str = PASSED
    children: int = 0
    own_failure: str = ""
    location: str = ""
    closed: bool = False
    child_failed: bool = False


@dataclass
class _Read:
    tests: dict[str, _Test] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)
    incomplete: str | None = None

    def test(self, path: str) -> _Test:
        if path not in self.tests:
            self.tests[path] = _Test(path)
            self.order.append(path)
            parent = path.rpartition(SEPARATOR)[0]
            if parent and parent in self.tests:
                self.tests[parent].children += 1
        return self.tests[path]


_DOTS = re.compile(r"^\.+$")
_QUIET_REPORTERS = frozenset({"dot", "terse", "silent"})
"""node-tap's reporters that name no passing test: the harness's own runs get TAP instead."""
_NO_TESTS = re.compile(r"\bNo tests? found\b|^# No tests run\b", re.IGNORECASE)


_OUTPUTS: tuple[Output, ...] = (
    Output("--output-file"),
    Output("-o"),
    Output("--output-dir"),
    Output("-d"),
)
"""Its options that name a file or directory for it to write."""


class Tap:
    name = "tap"
    config_files = (".taprc", "package.json")
    artifacts = (".tap/", ".nyc_output/", "coverage/")
    setup = RunSetup()
    caches: tuple[str, ...] = ()
    default: Default | None = None

    def sniff(self, lines: list[str]) -> float:
        score = 0.0
        for line in lines:
            if line.startswith("TAP version"):
                score += 0.4
            elif SUBTEST.match(line):
                score += 0.1
            elif line.lstrip().startswith("duration_ms:"):
                score -= 0.2  # node --test's YAML: its own module reads it
            elif _TAP_SUMMARY.match(line) or "# time=" in line:
                score += 0.1
            elif _NODE_COUNTS.match(line) and not line.startswith(("# tests", "# pass", "# fail")):
                score -= 0.3  # node --test's own summary: its module reads it
            elif POINT.match(line) and line.lstrip().startswith(("ok ", "not ok ")):
                score += 0.05
        if score <= 0.0 and redrawn_dots(lines) is not None:
            return 0.5
        return max(0.0, min(score, 1.0))

    def read(self, lines: list[str]) -> Reading:
        dots = redrawn_dots(lines)
        if dots is not None and not any(POINT.match(x) for x in lines):
            return _dot_reading(lines, dots)
        state = _Read()
        tape = not any(SUBTEST.match(line) or "# time=" in line for line in lines)
        stack: list[str] = []  # names of the open subtests, one per indent level
        pending: dict[int, str] = {}  # level -> name announced by `# Subtest:`
        i = 0
        while i < len(lines):
            line = lines[i]
            bail = _BAIL.match(line)
            if bail:
                reason = bail.group(1).strip()
                state.incomplete = "the test runner bailed out" + (f" ({reason})" if reason else "")
            sub = SUBTEST.match(line)
            if sub:
                level = len(sub.group(1)) // 4
                del stack[level:]
                stack.extend([""] * (level - len(stack)))
                stack.append(sub.group(2).strip())
                pending[level] = sub.group(2).strip()
                state.test(SEPARATOR.join(stack))
                i += 1
                continue
            if tape and (name := _tape_test(line)) is not None:
                skipped = _TAPE_SKIP.match(line)
                stack[:] = [skipped.group(1).strip() if skipped else name]
                state.test(stack[0]).outcome = SKIPPED if skipped else PASSED
                i += 1
                continue
            point = POINT.match(line)
            if point is None or not line.lstrip().startswith(("ok", "not ok")):
                i += 1
                continue
            level = len(stack) if tape else len(point.group(1)) // 4
            name = (point.group(3) or "").replace("\\#", "#").strip()
            directive = (point.group(4) or "").lower()
            ok = point.group(2) == "ok"
            yaml_end = _yaml_end(lines, i + 1)
            buffered = _BUFFERED.match(name)
            if buffered:
                name = buffered.group(1).strip()
            is_subtest = buffered is not None or pending.get(level) == name
            if is_subtest and not tape:
                pending.pop(level, None)
                del stack[level:]
                stack.extend([""] * (level - len(stack)))
                test = state.test(SEPARATOR.join([*stack, name]))
                test.closed = True
                if directive in _SKIPS:
                    test.outcome = SKIPPED
                elif not ok:
                    test.outcome = FAILED
                    if not test.own_failure and not test.child_failed:
                        test.own_failure, test.location = _yaml_said(lines, i + 1, yaml_end, name)
                if buffered:
                    stack.append(name)
            elif directive in _SKIPS and not tape:  # a skipped subtest prints no header
                state.test(SEPARATOR.join([*stack[:level], name])).outcome = SKIPPED
            elif tape and not stack:  # plain TAP: every point is a test
                test = state.test(name or f"test {len(state.order) + 1}")
                test.outcome = SKIPPED if directive in _SKIPS else PASSED if ok else FAILED
                if test.outcome == FAILED:
                    test.own_failure, test.location = _yaml_said(lines, i + 1, yaml_end, name)
            else:  # an assertion of the test that encloses it
                owner = SEPARATOR.join(stack[:level]) if stack[:level] else "(top level)"
                test = state.test(owner)
                if not ok and directive not in _SKIPS:
                    test.outcome = FAILED
                    if not test.own_failure:
                        said, where = _yaml_said(lines, i + 1, yaml_end, name)
                        test.own_failure, test.location = said, where
                    _mark_parents(state, owner)
            if not ok and directive not in _SKIPS and is_subtest and not tape:
                _mark_parents(state, SEPARATOR.join([*stack[:level], name]))
            i = max(i + 1, yaml_end)
        return _reading(state)

    def writes(self, args: list[str]) -> tuple[str, ...]:
        return written(args, _OUTPUTS)

    def invoked_at(self, argv: list[str]) -> int | None:
        at = find_binary(argv, {"tap", "tape"})
        return None if at is None else at + 1

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        return option_flags(args, {"--bail", "-b"}, optional_number=False)

    def select(
        self, args: list[str], names: Sequence[Name], project: Project
    ) -> Selected | Unselectable:
        """The test files (a directory as its test files), a test by its file and one
        `--grep` per level of its subtests (node-tap matches each level in turn). `major` is
        node-tap's major version when known (package.json); else the arguments' own flags
        tell, and without any, 18+ (today's node-tap) is assumed: it picks the flag that turns
        off the coverage gate one test file cannot meet. The TAP reporter unless the command
        picks one: with colours on (`"color": 1` in package.json) node-tap's default reporter
        draws progress no reader can take ids from (the hosted-git-info live trial: every
        path-scoped run read as "no test ran")."""
        files: list[str] = []
        for name in names:
            if name.fileless:
                return Unselectable(
                    f"`{name.text}` names no file; node-tap selects a test within its file "
                    "(name it `file > test`)"
                )
            if name.kind == DIR:
                files += [f for f in project.under(name.path) if self.is_test_file(f)]
            else:
                files.append(name.path)
        if not files:
            return Unselectable("no test file is named")
        major = project.majors.get("tap")
        drop = [i for i, a in enumerate(args) if a in _V16_ONLY | _V18_ONLY]
        old = major is not None and major < 18 or major is None and bool(_V16_ONLY & set(args))
        coverage = V16_COVERAGE_OFF if old else V18_COVERAGE_OFF
        grep: list[str] = []
        tests = [n for n in names if n.kind == TEST and n.parts]
        if len(tests) == 1 and len(names) == 1:
            grep = [f"--grep=^{re.escape(part)}$" for part in tests[0].parts]
        shown = [project.relative(f) for f in dict.fromkeys(files)]
        new = [coverage, *self.listing(replace_paths(args, shown, _WITH_VALUE, drop)), *grep]
        return Selected(new, targets_by_path(names, project, SEPARATOR, files))

    def listing(self, args: list[str]) -> list[str]:
        """TAP unless the command picks a reporter that names its tests (a quiet one, `dot`,
        `terse`, `silent`, is swapped for TAP)."""
        out = list(args)
        chosen = False
        for i, arg in enumerate(out):
            if arg in ("-R", "--reporter"):
                chosen = True
                if out[i + 1 : i + 2] and out[i + 1] in _QUIET_REPORTERS:
                    out[i + 1] = "tap"
            elif arg.startswith(("-R", "--reporter=")):
                chosen = True
                flag = "--reporter=" if arg.startswith("--reporter=") else "-R"
                if arg.removeprefix(flag) in _QUIET_REPORTERS:
                    out[i] = f"{flag}tap"
        return out if chosen else ["--reporter=tap", *out]

    def is_test_file(self, path: str) -> bool:
        return is_js_test_file(path)

    def read_report(self, reports: Mapping[str, bytes]) -> dict[str, str] | None:
        return None

    def ran_nothing(self, reading: Reading, exit_code: int | None, lines: list[str]) -> str | None:
        if reading.outcomes:
            return None
        return next((x.strip() for x in lines if _NO_TESTS.search(x)), None)


def _tape_test(line: str) -> str | None:
    m = _TAPE_TEST.match(line)
    if m is None or _NODE_COUNTS.match(line) or line.strip() in ("# ok", "# not ok"):
        return None
    return m.group(1).strip()


def _mark_parents(state: _Read, path: str) -> None:
    parts = path.split(SEPARATOR)
    for k in range(1, len(parts)):
        parent = state.tests.get(SEPARATOR.join(parts[:k]))
        if parent is not None:
            parent.child_failed = True


def _yaml_end(lines: list[str], start: int) -> int:
    """The line after a point's YAML diagnostics block (`---` ... `...`), or `start`."""
    if start >= len(lines) or lines[start].strip() != "---":
        return start
    for j in range(start + 1, min(len(lines), start + 400)):
        if lines[j].strip() == "...":
            return j + 1
    return start


def _yaml_said(lines: list[str], start: int, end: int, name: str) -> tuple[str, str]:
    """How a point failed, in one line (its YAML's error type, and the name, which for a
    failed assertion is its message), and where (`file:line:col`)."""
    keys: dict[str, str] = {}
    file = line_no = col = ""
    first = lines[start + 1] if start + 1 < end else ""
    base = len(first) - len(first.lstrip())
    for line in lines[start:end]:
        top = len(line) - len(line.lstrip()) == base
        if top and (k := _YAML_KEY.match(line)) and k.group(1) not in keys:
            keys[k.group(1)] = k.group(2).strip().strip("'\"")
        elif (f := _AT_FILE.match(line)) and not file:
            file = f.group(1)
        elif (n := _AT_LINE.match(line)) and not line_no:
            line_no = n.group(1)
        elif (c := _AT_COL.match(line)) and not col:
            col = c.group(1)
    said = f"{keys['type']}: {name}" if keys.get("type") else name
    if keys.get("wanted") and keys.get("found"):
        said += f" (wanted {keys['wanted']}, found {keys['found']})"
    elif keys.get("expected") and keys.get("actual"):
        said += f" (expected {keys['expected']}, actual {keys['actual']})"
    where = ":".join(x for x in (file, line_no, col) if x) if file else ""
    return said, where


def _reading(state: _Read) -> Reading:
    outcomes: dict[str, str] = {}
    messages: dict[str, str] = {}
    locations: dict[str, str] = {}
    for path in state.order:
        test = state.tests[path]
        leaf = test.children == 0
        on_its_own = test.outcome == FAILED and not test.child_failed
        if test.path == "(top level)" and test.outcome != FAILED:
            continue
        if not leaf and not on_its_own:
            continue
        outcomes[path] = test.outcome
        if test.outcome == FAILED:
            messages[path] = test.own_failure or "failed"
            if test.location:
                locations[path] = test.location
    counts = {
        "passed": sum(1 for o in outcomes.values() if o == PASSED),
        "failed": sum(1 for o in outcomes.values() if o == FAILED),
        "skipped": sum(1 for o in outcomes.values() if o == SKIPPED),
    }
    return Reading(
        outcomes=outcomes,
        messages=messages,
        incomplete=state.incomplete,
        counts=counts,
        locations=locations,
    )


def redrawn_dots(lines: list[str]) -> int | None:
    """node-tap's `dot` reporter redraws one line of dots (one a result, whatever its outcome):
    how many its last drawing holds; None when the lines are no such drawing (the drawings
    start at one dot and grow one at a time, unlike node's own dot reporter's full rows)."""
    text = [x.strip() for x in lines if x.strip() and not x.startswith("> ")]
    marks = [x for x in text if _DOTS.match(x)]
    if not marks:
        return None
    grows = all(len(b) == len(a) + 1 for a, b in zip(marks, marks[1:], strict=False))
    if len(marks[0]) != 1 or not grows:
        return None
    return len(marks[-1])


def _dot_reading(lines: list[str], dots: int) -> Reading:
    """Counts from the dots: every one passed when nothing follows them (a failure is drawn
    as a dot too, its details printed after the dots); otherwise no count (the exit says)."""
    text = [x.strip() for x in lines if x.strip() and not x.startswith("> ")]
    last = max(i for i, x in enumerate(text) if _DOTS.match(x))
    return Reading(counts={"passed": dots} if last == len(text) - 1 else {})


def major_version(spec: str) -> int | None:
    """node-tap's major version from a package.json range or an installed version
    (`^16.3.0`, `~18.7`, `21.0.1`), or None."""
    m = re.search(r"\d+", spec)
    return int(m.group()) if m else None


TAP = Tap()
