"""pytest: how it is recognised and how it selects tests (files, directories, node ids, dotted
ids mapped to their module file), how its output is read, its JUnit XML report, what its runs
leave in the tree, its stop flags, the command a project with Python tests gets by default.

Outcomes come from pytest's JUnit XML report when the harness asked for one (`read_junit`),
else from the log: the short test summary (only inside its own section, so a passing test
whose captured output prints `FAILED ...` is not read as a failure), `-v` progress lines and
pytest-xdist's `[gw0] [ 10%] PASSED id` lines (the worker id is not part of the test id).
Failure messages always come from the log (the one place both a base run and a later run
read them the same way).

A benchmark instance whose ids are all node ids is run here as SWE-bench's harness runs it
(`Grader`), its outcomes read from the JUnit XML alone.
"""

from __future__ import annotations

import io
import json
import posixpath
import re
import shlex
from collections.abc import Mapping, Sequence
from pathlib import Path
from xml.etree import ElementTree

from summarizers.runners import pytest_log
from summarizers.runners.base import Default, Reading, RunSetup, Selected, Unselectable
from summarizers.runners.jsargs import replace_paths
from summarizers.runners.messages import failure_messages
from summarizers.runners.model import ERROR, FAILED, PASSED, SKIPPED, XFAILED, worst
from summarizers.runners.names import TEST, Name, Project
from summarizers.runners.outputs import Output, written
from summarizers.runners.stopargs import StopFlag, cluster_flag
from summarizers.runners.targets import targets_by_path

_WORD = {
    "PASSED": PASSED,
    "XPASS": PASSED,
    "FAILED": FAILED,
    "ERROR": ERROR,
    "SKIPPED": SKIPPED,
    "XFAIL": XFAILED,
}
_SECTION = re.compile(r"^={3,} (.+?) ={3,}$")
_SHORT = re.compile(r"^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED) (\S.*)$")
_VERBOSE = re.compile(r"^(\S.*?::\S.*?) (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS)(?: .*)?$")
_XDIST = re.compile(r"^\[gw\d+\] \[\s*\d+%\] (PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S.*)$")
_COUNT = re.compile(r"(\d+) (passed|failed|errors?|skipped|xfailed|xpassed|deselected)\b")
_FINAL = re.compile(r"^=*\s*(?:\d+ \w+(?:, )?)+.* in [\d.]+s.*$")
_BANNER = re.compile(r"^!{3,} (.+?) !{3,}$")
_STOP = re.compile(r"^stopping after \d+ failures?$")
_COLLECTION = re.compile(r"^Interrupted: \d+ errors? during collection$")
_WITH_VALUE = frozenset(
    "-p -k -m -c -o -W -r -n --rootdir --confcutdir --basetemp --deselect --ignore --ignore-glob "
    "--junitxml --junit-xml --dist --maxfail --tb --durations --log-level --log-cli-level "
    "--log-file --timeout --cov --cov-report --cov-config --cov-fail-under --override-ini "
    "--capture --import-mode --numprocesses --maxprocesses --reruns --reruns-delay "
    "--randomly-seed --color --html --config-file".split()
)
"""pytest options (and common plugins') whose value is the next word."""
_STOP_FLAGS = ("-x", "--exitfirst", "--sw", "--stepwise", "--sw-skip", "--stepwise-skip")
JUNIT_FILE = "pytest-junit.xml"
"""The report's file name in the command's reports directory."""
OUTCOMES_FILE = "pytest-outcomes.jsonl"
"""What the harness's own plugin (pytest_plugin/coder_outcomes.py) writes there."""
_PLUGIN = Path(__file__).with_name("pytest_plugin") / "coder_outcomes.py"
SETUP = RunSetup(
    env={
        "PYTEST_ADDOPTS": "-p no:cacheprovider --continue-on-collection-errors --maxfail=0 "
        "-o junit_family=xunit1",
        "CODER_PYTEST_PLUGIN": _PLUGIN.read_text(encoding="utf-8"),
    },
    prelude=(
        'if [ -n "${CODER_REPORTS:-}" ]; then export PYTEST_ADDOPTS="${PYTEST_ADDOPTS:-} '
        f'--junitxml=$CODER_REPORTS/{JUNIT_FILE}"; '
        'if [ -n "${CODER_PYTEST_PLUGIN:-}" ] && mkdir -p "$CODER_REPORTS/.plugins" && '
        'printf "%s" "$CODER_PYTEST_PLUGIN" > "$CODER_REPORTS/.plugins/coder_outcomes.py"; then '
        'export PYTHONPATH="$CODER_REPORTS/.plugins${PYTHONPATH:+:$PYTHONPATH}" '
        'PYTEST_ADDOPTS="$PYTEST_ADDOPTS -p coder_outcomes"; fi; fi'
    ),
    refused='Error importing plugin "coder_outcomes"',
    fallback={"CODER_PYTEST_PLUGIN": ""},
)
"""Every test runs even when a file fails to import or the repository's own configuration
says `-x` (a later `--maxfail` wins), each test's file is named in the JUnit report, and the
harness's plugin records each test's own outcome, which a `conftest.py` cannot rewrite; all
written where the harness reads them. A command that sets its own `PYTHONPATH` cannot import
the plugin: it runs again without it (the JUnit report stands in)."""
_NO_TESTS = re.compile(r"\bno tests ran\b|\bcollected 0 items\b|\bfile or directory not found\b")
_TEST_FILE = re.compile(r"(?:^|/)(?:test_[^/]*|[^/]*_test|conftest)\.py$")
_TEST_DIR = re.compile(r"(?:^|/)tests?/")


_OUTPUTS: tuple[Output, ...] = (
    Output("--junitxml"),
    Output("--junit-xml"),
    Output("--report-log"),
    Output("--result-log"),
    Output("--html"),
    Output("--json-report-file"),
    Output("--basetemp"),
    Output("--cov-report", keys=("*",)),
)
"""Its options that name a file or directory for it to write."""


class Pytest:
    name = "pytest"
    config_files = ("conftest.py", "pytest.ini", "setup.cfg", "tox.ini", "pyproject.toml")
    artifacts = (".pytest_cache/", "__pycache__/", ".coverage", ".coverage.*", "htmlcov/")
    setup = SETUP
    language = "python"
    report = JUNIT_FILE
    report_said = "pytest's JUnit XML report"
    caches: tuple[str, ...] = ()
    default: Default | None = Default(
        "{python} -m pytest -q",
        ("test_*.py", "*_test.py", "conftest.py"),
        ("pyproject.toml", "setup.py"),
    )

    def sniff(self, lines: list[str]) -> float:
        return min(pytest_log.sniff(lines) / 10.0, 1.0)

    def read(self, lines: list[str]) -> Reading:
        outcomes: dict[str, str] = {}
        section = ""
        for line in lines:
            if not line or line[0].isspace():
                continue
            head = _SECTION.match(line)
            if head:
                section = head.group(1)
                continue
            if not section or "short test summary" in section:
                m = _SHORT.match(line)
                if m:
                    ident = pytest_log.split_summary(m.group(2))[0]
                    if "::" in ident or ident.endswith(".py"):
                        _record(outcomes, ident, _WORD[m.group(1)])
                    continue
                if section:
                    continue
            if section and "test session starts" not in section:
                continue  # failure tracebacks, captured output: not outcome lines
            m = _XDIST.match(line)
            if m:
                _record(outcomes, m.group(2).split(" ", 1)[0], _WORD[m.group(1)])
                continue
            m = _VERBOSE.match(line)
            if m:
                _record(outcomes, m.group(1), _WORD[m.group(2)])
        return Reading(
            outcomes=outcomes,
            messages=failure_messages(pytest_log.parse, lines),
            incomplete=stopped_early(lines),
            counts=counts(lines),
        )

    def writes(self, args: list[str]) -> tuple[str, ...]:
        return written(args, _OUTPUTS)

    def invoked_at(self, argv: list[str]) -> int | None:
        for i, word in enumerate(argv):
            base = word.rsplit("/", 1)[-1]
            if base in ("pytest", "py.test"):
                return i + 1
            if word == "-m" and i + 1 < len(argv) and argv[i + 1] == "pytest":
                return i + 2
        return None

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        flags: list[StopFlag] = []
        for i, arg in enumerate(args):
            if arg in _STOP_FLAGS or arg.startswith("--maxfail=") and arg != "--maxfail=0":
                flags.append(StopFlag(i))
            elif arg == "--maxfail" and i + 1 < len(args) and args[i + 1] != "0":
                flags.append(StopFlag(i, 2))
            elif (cluster := cluster_flag(i, arg, "x", "qvslx")) is not None:
                flags.append(cluster)
        return flags

    def select(
        self, args: list[str], names: Sequence[Name], project: Project
    ) -> Selected | Unselectable:
        """The command's own options kept with their values (`-p no:cacheprovider`, `-m "not
        slow"`), its test paths replaced by the names as pytest takes them: files and
        directories as they are, a test as its node id (`file::Class::test[param]`, however
        the contract spelled it), a dotted id by the module file it names."""
        located: list[Name] = []
        for name in names:
            if name.fileless:
                return Unselectable(
                    f"`{name.text}` names no file; pytest selects a test by its node id "
                    "(`path/test_x.py::test_name`)"
                )
            if name.kind == TEST and not name.path:
                found = _module_file(name.dotted, project)
                if found is None:
                    return Unselectable(f"{name.text}: no module file of the tree is named so")
                name = Name(name.text, TEST, *found)
            located.append(name)
        paths = [_spelled(n, project) for n in located]
        files = [f for f in project.files if self.is_test_file(f)]
        targets = targets_by_path(located, project, "::", files, params=True)
        return Selected(replace_paths(args, paths, _WITH_VALUE), targets)

    def listing(self, args: list[str]) -> list[str]:
        return args

    def is_test_file(self, path: str) -> bool:
        return bool(_TEST_FILE.search(path)) or (
            path.endswith(".py") and bool(_TEST_DIR.search(path))
        )

    def read_report(self, reports: Mapping[str, bytes]) -> dict[str, str] | None:
        """The plugin's record where the session finished (a test's own outcome, whatever a
        conftest made of its report), else the JUnit XML."""
        own = reports.get(OUTCOMES_FILE)
        if own is not None and (outcomes := read_outcomes(own)) is not None:
            return outcomes
        data = reports.get(JUNIT_FILE)
        return None if data is None else read_junit(data)

    def ran_nothing(self, reading: Reading, exit_code: int | None, lines: list[str]) -> str | None:
        if reading.outcomes or reading.counts.get("passed"):
            return None
        said = next((m.group(0) for x in lines[-200:] if (m := _NO_TESTS.search(x))), None)
        if said:
            return said
        return f"exit {exit_code}" if exit_code in (4, 5) else None

    def grades(self, ids: Sequence[str]) -> bool:
        """Every id a node id (`file::test`), as SWE-bench's Python instances name them."""
        return all("::" in t for t in ids)

    def graded_command(self, ids: Sequence[str], files: Sequence[str], reports: str) -> str:
        """As SWE-bench's harness runs them (`-rA`), with the JUnit XML report asked for (family
        xunit1, which names each test's file) and no cache written into the tree."""
        paths = [f for f in files if f.endswith(".py")]
        for ident in ids:
            path = ident.split("::", 1)[0]
            if path not in paths:
                paths.append(path)
        return (
            "python -m pytest -rA --tb=short -p no:cacheprovider -o junit_family=xunit1 "
            f'--junitxml="{reports}/{JUNIT_FILE}" ' + " ".join(shlex.quote(p) for p in paths)
        )

    def read_graded(self, data: bytes) -> dict[str, str] | None:
        return read_junit(data)


def _spelled(name: Name, project: Project) -> str:
    path = project.relative(name.path)
    return "::".join([path, *name.parts]) if name.kind == TEST else path


def _module_file(dotted: str, project: Project) -> tuple[str, tuple[str, ...]] | None:
    """`pkg.mod.Class.test` -> (`pkg/mod.py`, (`Class`, `test`)): the longest prefix that is a
    module file of the tree (as seen from where pytest runs)."""
    parts = dotted.split(".")
    for k in range(len(parts) - 1, 0, -1):
        rel = "/".join(parts[:k]) + ".py"
        for candidate in (rel, posixpath.normpath(posixpath.join(project.cwd, rel))):
            if candidate in project.files:
                return candidate, tuple(parts[k:])
    return None


def _record(outcomes: dict[str, str], ident: str, outcome: str) -> None:
    ident = ident.strip()
    if ident:
        outcomes[ident] = worst(outcomes.get(ident), outcome)


def counts(lines: list[str]) -> dict[str, int]:
    """What pytest's last summary line says ("2 failed, 5 passed in 0.31s")."""
    for line in reversed(lines[-50:]):
        if _FINAL.match(line.strip()):
            found: dict[str, int] = {}
            for number, word in _COUNT.findall(line):
                key = {"errors": "error", "xpassed": "passed"}.get(word, word)
                found[key] = found.get(key, 0) + int(number)
            return found
    return {}


def stopped_early(lines: list[str]) -> str | None:
    """Why pytest did not run every test it selected (`-x`, `--maxfail`, a collection error)."""
    for line in lines[-400:]:
        banner = _BANNER.match(line)
        if banner:
            said = banner.group(1).strip()
            if _STOP.match(said):
                return f"pytest was {said}"
            if _COLLECTION.match(said):
                return f"pytest stopped at collection ({said.removeprefix('Interrupted: ')})"
    return None


def read_outcomes(data: bytes) -> dict[str, str] | None:
    """Test id -> outcome from the plugin's lines (the worst where a test has several: an
    error in teardown after a pass); None unless the session finished (a run killed, or a
    test that closed the file, leaves no complete record)."""
    outcomes: dict[str, str] = {}
    finished = False
    for line in data.decode("utf-8", "replace").splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            return None
        if not isinstance(record, dict):
            return None
        ident, outcome = str(record.get("id", "")), str(record.get("outcome", ""))
        if not ident:
            finished = finished or outcome == "finished"
        elif outcome in (PASSED, FAILED, ERROR, SKIPPED, XFAILED):
            _record(outcomes, ident, outcome)
    return outcomes if finished else None


def read_junit(data: bytes) -> dict[str, str] | None:
    """Test id -> outcome from pytest's JUnit XML (family xunit1, which names each test's
    file); None when it cannot be read. Ids are pytest node ids, as the log prints them."""
    outcomes: dict[str, str] = {}
    try:
        for _, element in ElementTree.iterparse(io.BytesIO(data)):
            if element.tag != "testcase":
                continue
            ident = _node_id(
                element.get("file"), element.get("classname", ""), element.get("name", "")
            )
            outcome = PASSED
            for child in element:
                if child.tag == "failure":
                    outcome = worst(outcome, FAILED)
                elif child.tag == "error":
                    outcome = worst(outcome, ERROR)
                elif child.tag == "skipped":
                    xfail = child.get("type") == "pytest.xfail"
                    outcome = XFAILED if xfail else SKIPPED
            if ident:
                _record(outcomes, ident, outcome)
            element.clear()
    except ElementTree.ParseError:
        return None
    return outcomes


def _node_id(file: str | None, classname: str, name: str) -> str:
    """pytest's node id from a JUnit testcase: the file, then the classes inside the module
    (the classname is the module's dotted path, then the classes), then the test's name."""
    if not name:
        return ""
    if file and file.endswith(".py"):
        module = file[: -len(".py")].replace("/", ".").replace("\\", ".")
        if not classname and name == module:
            return file  # a file that failed to collect: pytest's id is the file
        rest = classname[len(module) :].lstrip(".") if classname.startswith(module) else ""
        parts = [file, *(p for p in rest.split(".") if p), name]
        return "::".join(parts)
    return "::".join(p for p in (classname, name) if p)


PYTEST = Pytest()
