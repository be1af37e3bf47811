"""The JavaScript runner modules (vitest, jest, mocha, tap) on logs made by really running each
runner (tests/summarizers/data/runners/README.md says how), plus one run of each real runner,
installed from the npm registry by scripts/js-runners."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from summarizers.logformats.prep import prepare
from summarizers.runners.base import Selected
from summarizers.runners.model import ERROR, FAILED, PASSED, SKIPPED
from summarizers.runners.names import Project, read_names
from summarizers.runners.stopargs import StopFlag
from summarizers.runners.table import RUNNERS as TABLE
from summarizers.runners.tap import V16_COVERAGE_OFF, V18_COVERAGE_OFF

DATA = Path(__file__).parent / "data" / "runners"
RUNNERS = {r.name: r for r in TABLE}


def select(name: str, args: list[str], paths: list[str], **majors: int) -> list[str]:
    """The runner's own arguments for these test files (each a file of the project)."""
    project = Project(frozenset(p.split(" > ")[0] for p in paths), ".", majors)
    names = read_names(paths, project)
    assert isinstance(names, list)
    done = RUNNERS[name].select(args, names, project)
    assert isinstance(done, Selected), done
    return done.args


_VOLATILE = ("ms", "time=", " s)", "(", "/tmp/", "pid")


def read(runner: str, log: str):
    return RUNNERS[runner].read(prepare((DATA / log).read_text()).lines)


def failing(reading) -> list[str]:
    return sorted(k for k, v in reading.outcomes.items() if v in (FAILED, ERROR))


# --- recognition: each log is its own runner's, and no other runner's ---------------------

LOGS = {
    "vitest": ["vitest_default.log", "vitest_verbose.log", "vitest_typecheck.log"],
    "jest": ["jest_default.log", "jest_verbose.log", "jest_coverage_gate.log"],
    "mocha": ["mocha_spec.log", "mocha_bail.log"],
    "tap": ["tap16.log", "tap21.log", "tape.log"],
}


@pytest.mark.parametrize(("name", "log"), [(n, x) for n, logs in LOGS.items() for x in logs])
def test_each_log_sniffs_as_its_own_runner(name, log):
    lines = prepare((DATA / log).read_text()).lines
    scores = {n: r.sniff(lines) for n, r in RUNNERS.items()}
    assert max(scores, key=lambda n: scores[n]) == name, scores
    assert scores[name] >= 0.5


def test_the_table_lists_the_js_runners():
    assert {"vitest", "jest", "mocha", "tap"} <= set(RUNNERS)


# --- vitest ---------------------------------------------------------------------------------


def test_vitest_default_reporter_failing_ids_messages_locations():
    r = read("vitest", "vitest_default.log")
    assert failing(r) == [
        "test/math.test.js > add > adds negatives",
        "test/math.test.js > add > nested group > deep fail",
        "test/math.test.js > top-level throws",
        "test/snap.test.js > snapshot matches",
    ]
    assert r.counts == {"passed": 7, "failed": 4, "skipped": 2}
    assert r.messages["test/math.test.js > top-level throws"] == (
        "TypeError: boom is not a function"
    )
    assert (
        "Snapshot `snapshot matches 1` mismatched"
        in r.messages["test/snap.test.js > snapshot matches"]
    )
    # the frame in the test's own file, not the library frame printed first
    assert r.locations["test/math.test.js > top-level throws"] == "test/math.test.js:15:34"
    assert r.outcomes["test/math.test.js > top-level passes"] == PASSED


def test_vitest_unhandled_error_is_a_failure_of_its_own():
    r = read("vitest", "vitest_default.log")
    assert r.errors == [
        "Uncaught Exception: Error: late failure after the test (test/unhandled.test.js:3:28)"
    ]
    assert "test/unhandled.test.js > starts a timer that throws later" not in failing(r)


def test_vitest_verbose_reporter_names_every_test():
    r = read("vitest", "vitest_verbose.log")
    assert len(r.outcomes) == 13
    assert r.outcomes["test/math.test.js > add > nested group > deep pass"] == PASSED
    assert r.outcomes["test/math.test.js > add > skipped one"] == SKIPPED
    assert r.outcomes["test/math.test.js > add > to do later"] == SKIPPED
    assert failing(r) == failing(read("vitest", "vitest_default.log"))


def test_vitest_typecheck_errors_in_tests_at_top_level_and_in_sources():
    r = read("vitest", "vitest_typecheck.log")
    assert r.outcomes["test/types.test-d.ts > name returns a number"] == FAILED
    assert r.messages["test/types.test-d.ts > name returns a number"].startswith("TypeCheckError:")
    # a type error outside any test fails the file: an id of its own, outcome error
    assert r.outcomes["test/top.test-d.ts"] == ERROR
    assert r.locations["test/top.test-d.ts"] == "test/top.test-d.ts:2:7"
    # a type error in a source file: vitest's unhandled error
    assert len(r.errors) == 1
    assert r.errors[0].startswith("Unhandled Source Error: TypeCheckError:")
    assert r.errors[0].endswith("(src.ts:6:14)")


def test_vitest_bail_is_incomplete():
    r = read("vitest", "vitest_bail.log")
    assert r.incomplete and "1 of 4 test files" in r.incomplete
    assert read("vitest", "vitest_default.log").incomplete is None


def test_vitest_command_words():
    v = RUNNERS["vitest"]
    assert v.invoked_at(["npx", "vitest", "run", "x"]) == 3
    assert v.invoked_at(["pnpm", "exec", "vitest", "--typecheck"]) == 3
    assert v.invoked_at(["node_modules/.bin/vitest"]) == 1
    assert v.invoked_at(["npm", "test"]) is None
    assert v.invoked_at(["jest"]) is None
    assert v.stop_flags(["run", "--bail", "1", "--typecheck"]) == [StopFlag(1, 2)]
    assert v.stop_flags(["--bail=3"]) == [StopFlag(0)]
    assert select(
        "vitest", ["--typecheck", "--coverage", "-c", "cfg.ts", "src/"], ["a.test.ts"]
    ) == [
        "--typecheck",
        "-c",
        "cfg.ts",
        "--coverage.enabled=false",
        "--reporter=verbose",
        "a.test.ts",
    ]
    assert select("vitest", ["--reporter=dot"], ["a.test.ts"])[-2] == "--coverage.enabled=false"
    # `--bail N`'s number is the flag's, never a test path (it used to become `--bail a.test.ts`)
    assert select("vitest", ["--bail", "2"], ["a.test.ts"]) == [
        "--bail",
        "2",
        "--coverage.enabled=false",
        "--reporter=verbose",
        "a.test.ts",
    ]


# --- jest -----------------------------------------------------------------------------------


def test_jest_default_reporter():
    r = read("jest", "jest_default.log")
    assert failing(r) == [
        "test/broken.test.js",
        "test/math.test.js > add > adds negatives",
        "test/math.test.js > add > nested group > deep fail",
        "test/math.test.js > top-level throws",
        "test/snap.test.js > snapshot matches",
    ]
    assert r.counts == {"passed": 6, "failed": 4, "skipped": 2}
    assert r.messages["test/math.test.js > add > adds negatives"] == (
        "expect(received).toBe(expected) // Object.is equality (Expected: -4; Received: -3)"
    )
    assert r.locations["test/math.test.js > top-level throws"] == "test/math.test.js:12:34"


def test_jest_suite_and_snapshot_failures_are_failures_of_their_own():
    r = read("jest", "jest_default.log")
    assert r.outcomes["test/broken.test.js"] == ERROR  # "Test suite failed to run"
    assert "Cannot find module './does-not-exist'" in r.messages["test/broken.test.js"]
    snap = "test/snap.test.js > snapshot matches"
    assert r.outcomes[snap] == FAILED
    assert "Snapshot name: `snapshot matches 1`" in r.messages[snap]


def test_jest_verbose_tree_gives_passing_ids():
    r = read("jest", "jest_verbose.log")
    assert r.outcomes["test/math.test.js > add > nested group > deep pass"] == PASSED
    assert r.outcomes["test/math.test.js > add > skipped one"] == SKIPPED
    assert r.outcomes["test/ok.test.js > also good"] == PASSED
    assert failing(r) == failing(read("jest", "jest_default.log"))


def test_jest_bail_and_coverage_gate():
    assert "1 of 4 test suites" in (read("jest", "jest_bail.log").incomplete or "")
    r = read("jest", "jest_coverage_gate.log")
    assert failing(r) == []
    assert r.errors == [
        'Jest: Coverage for statements (75%) does not meet "global" threshold (100%)'
    ]


def test_jest_command_words():
    j = RUNNERS["jest"]
    assert j.invoked_at(["npx", "jest", "--ci"]) == 2
    assert j.invoked_at(["node", "node_modules/jest/bin/jest.js", "-b"]) == 2
    assert j.stop_flags(["--ci", "-b", "--bail=2"]) == [StopFlag(1), StopFlag(2)]
    assert select("jest", ["--ci", "--coverage", "test/"], ["test/a.test.js"]) == [
        "--ci",
        "--coverage=false",
        "--verbose",
        "--runTestsByPath",
        "test/a.test.js",
    ]


# --- mocha ----------------------------------------------------------------------------------


def test_mocha_spec_reporter():
    r = read("mocha", "mocha_spec.log")
    assert failing(r) == [
        "add > adds negatives",
        "add > nested group > deep fail",
        "top-level throws",
        'with a broken hook > "before each" hook for "never gets to run"',
    ]
    assert r.outcomes['with a broken hook > "before each" hook for "never gets to run"'] == ERROR
    assert r.outcomes["add > nested group > deep pass"] == PASSED
    assert r.outcomes["add > pending without body"] == SKIPPED
    assert r.outcomes["slow > takes a while"] == PASSED  # "(130ms)" is not part of it
    assert r.counts == {"passed": 5, "skipped": 2, "failed": 4}
    assert r.messages["top-level throws"] == "TypeError: boom is not a function"
    assert r.locations["top-level throws"] == "test/math.spec.js:13:32"


def test_mocha_command_words():
    m = RUNNERS["mocha"]
    assert m.invoked_at(["npx", "mocha", "--bail"]) == 2
    assert m.stop_flags(["--bail", "-b", "--grep", "x"]) == [StopFlag(0), StopFlag(1)]
    assert select("mocha", ["--spec", "test/**/*.js", "-r", "ts-node"], ["test/a.js"]) == [
        "-r",
        "ts-node",
        "test/a.js",
    ]


# --- tap ------------------------------------------------------------------------------------


@pytest.mark.parametrize("log", ["tap16.log", "tap21.log"])
def test_node_tap_subtests_leaf_ids_without_durations(log):
    r = read("tap", log)
    assert failing(r) == ["test/parse.js > parse nested > inner bad", "test/throws.js > explodes"]
    assert r.outcomes["test/parse.js > parse splits"] == PASSED  # its t.throws(TypeError) pass
    assert r.outcomes["test/parse.js > skipped"] == SKIPPED
    assert r.outcomes["test/sub/good.js > all good"] == PASSED
    assert r.messages["test/parse.js > parse nested > inner bad"] == "counts two fields"
    assert r.messages["test/throws.js > explodes"] == (
        "TypeError: Cannot read properties of null (reading 'x')"
    )
    assert r.locations["test/parse.js > parse nested > inner bad"] == "test/parse.js:11:38"
    assert all("time=" not in k and "#" not in k for k in r.outcomes)


@pytest.mark.parametrize("log", ["tap16_bail.log", "tap21_bail.log"])
def test_node_tap_bail_is_incomplete(log):
    assert (read("tap", log).incomplete or "").startswith("the test runner bailed out")


def test_tape_tests_are_its_comments():
    r = read("tap", "tape.log")
    assert r.outcomes == {
        "adds": FAILED,
        "throws TypeError properly": PASSED,
        "skipped one": SKIPPED,
    }
    assert r.messages["adds"] == "two plus two (expected 5, actual 4)"


def test_plain_tap_points_are_tests():
    lines = ["TAP version 13", "1..3", "ok 1 - first", "not ok 2 - second", "ok 3 # SKIP"]
    r = RUNNERS["tap"].read(lines)
    assert r.outcomes == {"first": PASSED, "second": FAILED, "test 3": SKIPPED}


def test_tap_command_words():
    t = RUNNERS["tap"]
    assert t.invoked_at(["npx", "tap", "-b"]) == 2
    assert t.stop_flags(["-R", "tap", "--bail", "-b"]) == [StopFlag(2), StopFlag(3)]
    assert select("tap", ["-R", "tap", "test/"], ["test/a.js"]) == [
        V18_COVERAGE_OFF,
        "-R",
        "tap",
        "test/a.js",
    ]
    assert select("tap", ["--100"], ["a.js"]) == [V16_COVERAGE_OFF, "--reporter=tap", "a.js"]
    assert select("tap", ["test/"], ["a.js"], tap=16) == [
        V16_COVERAGE_OFF,
        "--reporter=tap",
        "a.js",
    ]


# --- the property: the same suite run twice gives the same ids ------------------------------


@pytest.mark.parametrize(
    ("name", "first", "second"),
    [
        ("vitest", "vitest_default.log", "vitest_default_again.log"),
        ("jest", "jest_default.log", "jest_default_again.log"),
        ("mocha", "mocha_spec.log", "mocha_spec_again.log"),
        ("tap", "tap16.log", "tap16_again.log"),
        ("tap", "tap21.log", "tap21_again.log"),
    ],
)
def test_same_suite_twice_same_ids(name, first, second):
    a, b = (DATA / first).read_text(), (DATA / second).read_text()
    assert a != b  # the runs differ (durations), so the property is tested, not assumed
    one, two = read(name, first), read(name, second)
    assert one.outcomes and one.outcomes == two.outcomes
    assert set(one.locations.values()) == set(two.locations.values())
    for ident in one.outcomes:
        assert not any(mark in ident for mark in _VOLATILE), ident


# --- one real run of each runner ------------------------------------------------------------

JS_RUNNERS = Path(
    os.environ.get("CODER_JS_RUNNERS")
    or Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "coder" / "js-runners"
)


@pytest.fixture
def js_project(tmp_path):
    """A project directory whose node_modules are the runners scripts/js-runners installed."""
    modules = JS_RUNNERS / "node_modules"
    if not modules.is_dir():
        if os.environ.get("CI"):
            pytest.fail(f"{modules} is missing: .ci/run installs it with scripts/js-runners")
        pytest.skip(f"no JavaScript runners in {JS_RUNNERS}: run scripts/js-runners")
    (tmp_path / "node_modules").symlink_to(modules)
    return tmp_path


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _run(root: Path, name: str, args: list[str], paths: list[str]) -> tuple[int, list[str]]:
    runner = RUNNERS[name]
    argv = [str(root / "node_modules" / ".bin" / name), *args]
    at = runner.invoked_at(argv)
    assert at is not None
    own = argv[at:]
    gone = {f.index + k for f in runner.stop_flags(own) for k in range(f.words)}
    own = [a for i, a in enumerate(own) if i not in gone]
    argv = [*argv[:at], *select(name, own, paths)]
    env = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0"}
    done = subprocess.run(argv, cwd=root, capture_output=True, text=True, env=env, timeout=120)
    return done.returncode, prepare(done.stdout + done.stderr).lines


def test_real_vitest(js_project):
    _write(
        js_project,
        {
            "package.json": '{"type": "module"}',
            "a.test.js": "import {test, expect} from 'vitest'\n"
            "test('one', () => expect(1).toBe(2))\ntest('two', () => expect(1).toBe(1))\n",
            "b.test.js": "import {test} from 'vitest'\ntest('other file', () => {})\n",
        },
    )
    code, lines = _run(js_project, "vitest", ["run", "--bail=1"], ["a.test.js"])
    r = RUNNERS["vitest"].read(lines)
    assert code == 1
    assert RUNNERS["vitest"].sniff(lines) >= 0.5
    assert r.outcomes == {"a.test.js > one": FAILED, "a.test.js > two": PASSED}
    assert r.messages["a.test.js > one"].startswith("AssertionError: expected 1 to be 2")


def test_real_jest_path_run_ignores_the_coverage_gate(js_project):
    config = {
        "jest": {
            "testEnvironment": "node",
            "collectCoverage": True,
            "collectCoverageFrom": ["lib.js"],
            "coverageThreshold": {"global": {"statements": 100}},
        }
    }
    _write(
        js_project,
        {
            "package.json": json.dumps(config),
            "lib.js": "exports.a = () => 1\nexports.b = () => 2\n",
            "a.test.js": "const {a} = require('./lib')\ntest('a is 1', () => expect(a()).toBe(1))\n",
            "b.test.js": "test('b fails', () => expect(1).toBe(3))\n",
        },
    )
    code, lines = _run(js_project, "jest", ["--ci", "--bail"], ["a.test.js"])
    r = RUNNERS["jest"].read(lines)
    assert (code, r.errors) == (0, [])  # the gate would fail a run of one file
    assert RUNNERS["jest"].sniff(lines) >= 0.5
    assert r.counts == {"passed": 1, "failed": 0, "skipped": 0}


def test_real_mocha(js_project):
    _write(
        js_project,
        {
            "test/a.js": "const assert = require('assert')\n"
            "describe('g', () => { it('ok', () => {}); it('bad', () => assert.equal(1, 2)) })\n",
            "test/b.js": "it('other file', () => { throw new Error('must not run') })\n",
        },
    )
    # mocha's default spec (./test) gives way to the paths; a configured `spec` would not
    code, lines = _run(js_project, "mocha", ["--bail"], ["test/a.js"])
    r = RUNNERS["mocha"].read(lines)
    assert code == 1
    assert r.outcomes == {"g > ok": PASSED, "g > bad": FAILED}
    assert r.messages["g > bad"].startswith("AssertionError")


def test_real_tap_path_run_ignores_the_coverage_gate(js_project):
    _write(
        js_project,
        {
            "package.json": "{}",
            "lib.js": "exports.a = () => 1\nexports.b = () => 2\n",
            "test/a.js": "const t = require('tap')\nconst {a} = require('../lib')\n"
            "t.test('group', async t => { t.test('case', async t => t.equal(a(), 1)) })\n",
            "test/b.js": "require('tap').fail('other file')\n",
        },
    )
    code, lines = _run(js_project, "tap", ["-b"], ["test/a.js"])
    r = RUNNERS["tap"].read(lines)
    assert code == 0, "\n".join(lines)
    assert r.outcomes == {"test/a.js > group > case": PASSED}


def test_vitest_typecheck_refused_write_is_an_error_and_an_environment_failure():
    """The live failure: every test green, tsc's build info not writable in node_modules."""
    from summarizers.sandbox_failures import READ_ONLY, environment_failures

    r = read("vitest", "vitest_typecheck_erofs.log")
    assert failing(r) == [] and r.counts["passed"] == 2
    (error,) = r.errors
    assert error.startswith("Typecheck Error: Error: error TS5033: Could not write file")
    lines = prepare((DATA / "vitest_typecheck_erofs.log").read_text()).lines
    (env,) = environment_failures(lines)
    assert env.kind == READ_ONLY
    assert env.path and env.path.endswith("node_modules/vitest/dist/tsconfig.tmp.tsbuildinfo")


_DUPLICATES = {
    "vitest": (
        {
            "package.json": '{"type": "module"}',
            "a.test.js": "import {test, expect} from 'vitest'\n"
            "test('dup', () => {})\ntest('dup', () => expect(1).toBe(2))\n",
        },
        ["run", "--reporter=verbose"],
        "a.test.js > dup",
        "⎯⎯",
    ),
    "jest": (
        {
            "package.json": "{}",
            "a.test.js": "test('dup', () => {})\ntest('dup', () => expect(1).toBe(2))\n",
        },
        ["--ci", "--verbose"],
        "./a.test.js > dup",
        "  ●",
    ),
    "mocha": (
        {
            "test/a.js": "const assert = require('assert')\n"
            "it('dup', () => {})\nit('dup', () => assert.equal(1, 2))\n"
        },
        [],
        "dup",
        "  1 passing",
    ),
}


@pytest.mark.parametrize("name", sorted(_DUPLICATES))
def test_a_failing_test_named_like_a_passing_one_is_failed_from_the_list_alone(js_project, name):
    """Two tests of one name (upstream js-yaml, ufo and dayjs have such pairs) share one id:
    the id keeps the worse outcome even where only the list of tests survived (an output cap
    that kept the head), never the first one's pass."""
    files, args, ident, details = _DUPLICATES[name]
    _write(js_project, files)
    path = "test/a.js" if name == "mocha" else "a.test.js"
    code, lines = _run(js_project, name, args, [path])
    assert code == 1
    cut = next(i for i, line in enumerate(lines) if line.startswith(details))
    assert RUNNERS[name].read(lines[:cut]).outcomes[ident] == FAILED
    assert RUNNERS[name].read(lines).outcomes[ident] == FAILED


def test_jest_console_header_is_not_a_failing_test():
    """jest 22 heads what a file's tests printed with `● Console`: read as a failing test
    `file > Console`, it failed a right step of the dayjs live trial as "missing after it"."""
    lines = prepare((DATA / "jest22_console.log").read_text()).lines
    r = RUNNERS["jest"].read(lines)
    assert r.outcomes == {}
    assert r.counts["passed"] == 4 and r.counts["failed"] == 0


# --- reporters that print no per-test line ----------------------------------------------------


def test_node_dot_reporter_counts_its_marks_and_names_its_failures():
    """`node --test --test-reporter=dot` in a package script: one mark a test or suite."""
    lines = prepare((DATA / "node_dot.log").read_text()).lines
    scores = {n: r.sniff(lines) for n, r in RUNNERS.items()}
    assert max(scores, key=lambda n: scores[n]) == "node-test", scores
    r = RUNNERS["node-test"].read(lines)
    assert r.counts == {"passed": 5, "failed": 2}
    assert r.outcomes == {"two": FAILED, "calc": FAILED}
    assert r.messages["two"].startswith("AssertionError")


def test_node_tap_dot_reporter_counts_its_last_drawing():
    """node-tap's dot reporter redraws one line: the last drawing's dots, not every drawing's."""
    lines = prepare((DATA / "tap_dot.log").read_text()).lines
    scores = {n: r.sniff(lines) for n, r in RUNNERS.items()}
    assert max(scores, key=lambda n: scores[n]) == "tap", scores
    assert RUNNERS["tap"].read(lines).counts == {"passed": 4}


def test_the_harness_runs_ask_quiet_reporters_for_every_test():
    assert RUNNERS["node-test"].listing(["--test-reporter=dot"]) == ["--test-reporter=tap"]
    assert RUNNERS["tap"].listing(["-R", "dot"]) == ["-R", "tap"]
    assert RUNNERS["tap"].listing(["--reporter=base"]) == ["--reporter=base"]
    assert RUNNERS["jest"].listing(["--reporters=summary"]) == [
        "--reporters=summary",
        "--verbose",
        "--reporters=default",
    ]


def test_real_jest_summary_reporter_run_still_names_every_test(js_project):
    _write(
        js_project,
        {
            "package.json": '{"jest": {"testEnvironment": "node"}}',
            "test/a.test.js": "test('one', () => expect(1).toBe(1))\ntest('two', () => {})\n",
        },
    )
    code, lines = _run(js_project, "jest", ["--silent", "--reporters=summary"], ["test/a.test.js"])
    r = RUNNERS["jest"].read(lines)
    assert code == 0, "\n".join(lines)
    assert r.outcomes == {"test/a.test.js > one": PASSED, "test/a.test.js > two": PASSED}
