"""select_tests and mark_sections on real-world test commands.

The runners are the small real `Runner` objects of tests/tablerunners.py, so the table tests
how a command is taken apart, not what one runner module's `select` does.
"""

from __future__ import annotations

import subprocess

import pytest
from tablerunners import RUNNERS

from summarizers.runners.commands import (
    NODE_BIN_PATH,
    Scoped,
    Unscopable,
    mark_sections,
    select_tests,
)
from summarizers.runners.model import SECTION_MARK
from summarizers.runners.names import Project, read_names

BIN = NODE_BIN_PATH


def scope_to_paths(command, paths, scripts, runners=None, majors=None):
    """`select_tests` on names that are files of the project (or ids in them)."""
    files = frozenset(p.split("::")[0].split(" > ")[0] for p in paths)
    project = Project(files, ".", majors or {})
    names = read_names(paths, project)
    assert isinstance(names, list)
    return select_tests(command, names, project, scripts, runners)


def scoped(command: str, paths: list[str], scripts: dict[str, str] | None = None):
    done = scope_to_paths(command, paths, scripts or {}, RUNNERS)
    return done if isinstance(done, Unscopable) else Scoped(done.command, done.runner, done.note)


SCOPED = [
    # the failing examples
    ("cd . && python -m pytest -q", ["test_x.py"], {}, "cd . && python -m pytest -q test_x.py", ""),
    ("sleep 8; pytest", ["test_x.py"], {}, "pytest test_x.py", "without `sleep 8`"),
    (
        "npm test --silent",
        ["test/ranges/a.js"],
        {"test": "tap", "posttest": "npm run lint", "lint": "eslint ."},
        f"{BIN} tap test/ranges/a.js",
        "without the posttest hook `npm run lint`",
    ),
    (
        "npm test",
        ["test/a.test.js"],
        {"test": "jest --coverage", "pretest": "npm run build", "build": "tsc"},
        f"{BIN} jest --coverage test/a.test.js",
        "without the pretest hook `npm run build`",
    ),
    (
        "pnpm test",
        ["src/a.test.ts"],
        {"test": "pnpm lint && vitest run --typecheck", "lint": "eslint ."},
        f"{BIN} vitest run --typecheck src/a.test.ts",
        "without `pnpm lint`",
    ),
    # monorepos and composite commands
    (
        "cd backend && pytest",
        ["backend/tests/test_a.py::test_x"],
        {},
        "cd backend && pytest tests/test_a.py::test_x",
        "",
    ),
    (
        "npm run build && npm test",
        ["test/a.test.ts"],
        {"build": "tsc", "test": "vitest run"},
        f"{BIN} vitest run test/a.test.ts",
        "without `npm run build`",
    ),
    (
        "cd backend && pytest; cd ../frontend && npx vitest run",
        ["frontend/src/a.test.ts"],
        {},
        "cd backend && cd ../frontend && npx vitest run src/a.test.ts",
        "without `pytest`",
    ),
    (
        "python -m pytest tests/unit && python -m pytest tests/integration",
        ["tests/unit/test_a.py"],
        {},
        "python -m pytest tests/unit/test_a.py",
        "without `python -m pytest tests/integration`",
    ),
    # env, venvs, pipes, redirections, quoting
    (
        "PYTHONPATH=src python -m pytest -q tests/",
        ["tests/test_a.py"],
        {},
        "PYTHONPATH=src python -m pytest -q tests/test_a.py",
        "",
    ),
    (".venv/bin/python -m pytest", ["t.py"], {}, ".venv/bin/python -m pytest t.py", ""),
    (
        "source .venv/bin/activate && pytest -x",
        ["t.py"],
        {},
        "source .venv/bin/activate && pytest -x t.py",
        "",
    ),
    ("pytest | tee log", ["t.py"], {}, "pytest t.py", "without `| tee log`"),
    ("yes | pytest", ["t.py"], {}, "pytest t.py", "without `yes |`"),
    (
        "pytest -q 2>&1 | tail -n 50",
        ["t.py"],
        {},
        "pytest -q t.py 2>&1",
        "without `| tail -n 50`",
    ),
    ("pytest -k 'a or b'", ["tests/a b.py"], {}, "pytest -k 'a or b' 'tests/a b.py'", ""),
    (
        "node_modules/.bin/tape 'test/**/*.js'",
        ["test/a.js"],
        {},
        "node_modules/.bin/tape test/a.js",
        "",
    ),
    ("time env CI=1 pytest", ["t.py"], {}, "time env CI=1 pytest t.py", ""),
    # launchers and package managers
    ("npx vitest run", ["a.test.ts"], {}, "npx vitest run a.test.ts", ""),
    (
        "npm test",
        ["test/a.js"],
        {"test": "nyc --reporter lcov --check-coverage mocha 'test/**/*.js'"},
        f"{BIN} mocha test/a.js",
        "without the coverage wrapper `nyc --reporter lcov --check-coverage`",
    ),
    (
        "npx c8 tape test/*.js",
        ["test/a.js"],
        {},
        "npx tape test/a.js",
        "without the coverage wrapper `c8`",
    ),
    ("pnpm exec vitest", ["a.test.ts"], {}, "pnpm exec vitest a.test.ts", ""),
    ("uv run pytest -q", ["t.py"], {}, "uv run pytest -q t.py", ""),
    (
        "yarn test",
        ["test/a.js"],
        {"test": "mocha --exit", "posttest": "eslint ."},
        f"{BIN} mocha --exit test/a.js",
        "without the posttest hook `eslint .`",
    ),
    ("bun run test", ["a.test.ts"], {"test": "vitest run"}, f"{BIN} vitest run a.test.ts", ""),
    (
        "pnpm test",
        ["a.test.ts"],
        {"test": "vitest run", "posttest": "eslint ."},
        f"{BIN} vitest run a.test.ts",
        "",  # pnpm runs no pre/post hooks
    ),
    (
        "npm test",
        ["a.test.js"],
        {"test": "npm run test:unit", "test:unit": "cross-env CI=1 jest"},
        f"{BIN} cross-env CI=1 jest a.test.js",
        "",
    ),
    (
        "npm test -- --runInBand",
        ["a.test.js"],
        {"test": "jest"},
        f"{BIN} jest --runInBand a.test.js",
        "",
    ),
    (
        "NODE_ENV=test npm test | cat",
        ["packages/a/src/x.test.ts"],
        {"test": "tsc --noEmit && cd packages/a && vitest run"},
        f"export NODE_ENV=test {BIN} && cd packages/a && vitest run src/x.test.ts",
        "without `| cat` and `tsc --noEmit`",
    ),
]


@pytest.mark.parametrize(("command", "paths", "scripts", "expected", "note"), SCOPED)
def test_a_test_command_is_scoped_to_the_paths(command, paths, scripts, expected, note):
    assert scoped(command, paths, scripts) == Scoped(expected, scoped_runner(expected), note)


def scoped_runner(expected: str) -> str:
    for runner in RUNNERS:
        for word in expected.split():
            if word.rsplit("/", 1)[-1] in runner.programs or word == runner.module:
                return runner.name
    raise AssertionError(expected)


UNSCOPABLE = [
    ("tox -e py311", {}, "no test runner"),
    ("make test", {}, "no test runner"),
    ("npm test", {"build": "tsc"}, "no `test` script"),
    ("npm test", {"test": "eslint . && tsc"}, "no test runner"),
    ("cd frontend && npm test", {"test": "jest"}, "another directory"),
    ("cd $APP && pytest", {}, "cannot name"),
    ("npm test --workspace=a", {"test": "jest"}, "another package"),
    ("if true; then pytest; fi", {}, "shell syntax"),
    ("(cd backend && pytest)", {}, "shell syntax"),
]


@pytest.mark.parametrize(("command", "scripts", "reason"), UNSCOPABLE)
def test_what_cannot_be_scoped_says_why(command, scripts, reason):
    result = scoped(command, ["t.py"], scripts)
    assert isinstance(result, Unscopable)
    assert reason in result.reason


def test_the_node_bin_path_form_finds_the_package_bin(tmp_path):
    """What the PATH assignment does, under bash: the package's bin is found first."""
    bin_dir = tmp_path / "node_modules" / ".bin"
    bin_dir.mkdir(parents=True)
    (bin_dir / "jest").write_text('#!/bin/sh\necho "local jest $*"\n')
    (bin_dir / "jest").chmod(0o755)
    result = scoped("npm test", ["a.test.js"], {"test": "jest --ci"})
    assert isinstance(result, Scoped)
    done = _bash(result.command, tmp_path)
    assert done.stdout == "local jest --ci a.test.js\n"


def _bash(command: str, cwd) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["bash", "-c", command], cwd=cwd, capture_output=True, text=True, timeout=30
    )


MARKED = [
    "true && false && echo never",
    "false; echo after",
    "echo one && echo two; echo three",
    "false || echo rescued && echo four",
    "echo a | cat && exit 3",
    "cd sub && pwd && python3 -c 'import sys; print(1); sys.exit(2)'",
    "python3 -c 'print(\"x y\")' && printf '%s\\n' \"it's\"",
    "echo five &&\n echo six\n",
    'echo "$(echo a && echo b)" && echo c',
    "echo `echo q; echo r` && true",
    "echo x 2>&1 && echo y >/dev/null; echo z # done; echo not-run",
    "A=1; echo \"$A\" 'a && b' a\\;b",
]


@pytest.mark.parametrize("command", MARKED)
def test_marked_sections_keep_output_and_exit_code(command, tmp_path):
    (tmp_path / "sub").mkdir()
    marked = mark_sections(command)
    assert marked != command
    plain, split = _bash(command, tmp_path), _bash(marked, tmp_path)
    assert split.returncode == plain.returncode
    lines = split.stdout.splitlines()
    assert [line for line in lines if not line.startswith(SECTION_MARK)] == (
        plain.stdout.splitlines()
    )
    assert lines[0].startswith(SECTION_MARK)


def test_each_section_is_named_before_its_output(tmp_path):
    done = _bash(mark_sections("echo a && false || echo b; echo c"), tmp_path)
    assert done.stdout.splitlines() == [
        f"{SECTION_MARK}echo a",
        "a",
        f"{SECTION_MARK}false || echo b",
        "b",
        f"{SECTION_MARK}echo c",
        "c",
    ]


@pytest.mark.parametrize(
    "command",
    [
        "python -m pytest -q",
        "pytest | tee log",
        "a || b",
        "(a && b)",
        "pytest;",
        "cat <<EOF && echo x\nbody\nEOF",
        "for f in a b; do echo $f; done",
    ],
)
def test_a_single_part_is_left_untouched(command):
    assert mark_sections(command) == command


def test_node_tap_16_gets_its_own_coverage_flag() -> None:
    """The hosted-git-info live trial: tap 16 refused 18's `--disable-coverage`, so every
    path-scoped check of a right fix failed; the major version pinned in package.json picks."""
    runners = None
    old = scope_to_paths("npm test", ["test/a.js"], {"test": "tap"}, runners, majors={"tap": 16})
    new = scope_to_paths("npm test", ["test/a.js"], {"test": "tap"}, runners, majors={"tap": 21})
    assert isinstance(old, Scoped) and isinstance(new, Scoped)
    assert "--no-coverage" in old.command and "--disable-coverage" not in old.command
    assert "--disable-coverage" in new.command


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            "python -m pytest -q -p no:cacheprovider -m 'not slow' tests",
            "python -m pytest -q -p no:cacheprovider -m 'not slow' test_x.py",
        ),
        (
            "python -m unittest -k fast discover",
            "python -m unittest -v -k fast discover -k 'test_x*'",
        ),
    ],
)
def test_a_python_runners_option_keeps_its_value(command: str, expected: str) -> None:
    """With the real runner modules: `-p no:cacheprovider` lost its value and pytest took the
    test file for a plugin (`-p test_x.py`), so every path-scoped run of it failed."""
    assert scope_to_paths(command, ["test_x.py"], {}).command == expected
