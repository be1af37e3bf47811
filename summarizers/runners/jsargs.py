"""What the JavaScript runner modules share: finding a runner's binary in a command's words
whatever launches it (`npx`, `pnpm exec`, `yarn`, `node_modules/.bin/`), splitting its own
arguments into options and test paths, and taking durations out of test names."""

from __future__ import annotations

import re
from collections.abc import Collection

LAUNCHERS = {"npx", "pnpx", "bunx", "npm", "pnpm", "yarn", "bun", "exec", "x", "dlx", "--", "run"}
"""Words that may stand between the start of a command and a runner's binary: `npx vitest`,
`pnpm exec jest`, `npm exec -- mocha`, `yarn dlx tap`, `bun x vitest`."""
_LAUNCH_OPTIONS = {"--yes", "-y", "--no-install", "--silent", "-s", "--offline", "--quiet"}
_NODE_OPTIONS_WITH_VALUE = {"-r", "--require", "--import", "--loader", "--experimental-loader"}
_DURATION = re.compile(r"\s+(?:\(\s*)?\d+(?:\.\d+)?\s?(?:ms|s|m)\)?$")
_PACKAGE_VERSION = re.compile(r"(?<=.)@[\w.^~<>=*-]+$")
_SCRIPT_EXT = re.compile(r"\.(?:c|m)?js$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def find_binary(argv: list[str], names: Collection[str]) -> int | None:
    """Index of the word that is one of `names` (`vitest`, `node_modules/.bin/vitest`,
    `vitest@4`, `node node_modules/jest/bin/jest.js`), reached only through launchers,
    `node` and its options, `env` and variable assignments; else None."""
    skip = False
    for i, word in enumerate(argv):
        if skip:
            skip = False
            continue
        base = _PACKAGE_VERSION.sub("", word.rsplit("/", 1)[-1])
        if base in names or _SCRIPT_EXT.sub("", base) in names and "/" in word:
            return i
        if word == "env" or _ASSIGNMENT.match(word) or word == "node":
            continue
        if word in LAUNCHERS or word in _LAUNCH_OPTIONS:
            continue
        if word in _NODE_OPTIONS_WITH_VALUE:
            skip = True
            continue
        if not word.startswith("-"):
            return None
    return None


def positionals(
    args: list[str], with_value: Collection[str], numeric: Collection[str] = ()
) -> list[int]:
    """Indices of the arguments that are not options nor option values (test paths, filters).
    `with_value` names the options whose value is the next word (`--config x`); `numeric`
    those whose value is the next word only when it is a number (`--bail 2`, `--bail`)."""
    out: list[int] = []
    skip = False
    rest = False
    for i, arg in enumerate(args):
        if skip:
            skip = False
            continue
        if rest or not arg.startswith("-") or arg == "-":
            out.append(i)
        elif arg == "--":
            rest = True
        elif arg in with_value:
            skip = True
        elif arg in numeric and i + 1 < len(args) and args[i + 1].isdigit():
            skip = True
    return out


def replace_paths(
    args: list[str],
    paths: list[str],
    with_value: Collection[str],
    drop: Collection[int] = (),
    numeric: Collection[str] = (),
) -> list[str]:
    """`args` with its own test paths (positionals) and the indices `drop` left out, and
    `paths` appended after the options."""
    gone = set(positionals(args, with_value, numeric)) | set(drop)
    kept = [a for i, a in enumerate(args) if i not in gone and a != "--"]
    return [*kept, *paths]


def strip_duration(name: str) -> str:
    """A test's name without the time it took (`adds 12ms`, `adds (5 ms)`, `adds 1.2s`)."""
    return _DURATION.sub("", name).rstrip()


JS_SOURCE = re.compile(r"\.(?:[cm]?[jt]sx?)$")
_JS_TEST_NAME = re.compile(
    r"(?:^|/)(?:__tests__|tests?|spec)/|(?:^|[./])(?:tests?|spec)\.[cm]?[jt]sx?$"
)


def is_js_test_file(path: str) -> bool:
    """The common test-file shapes of the JavaScript runners: `*.test.js`, `*.spec.ts`, a
    package's single `test.js` (as AVA projects keep it), and the sources under `__tests__/`,
    `test/`, `tests/` or `spec/`."""
    return bool(JS_SOURCE.search(path)) and bool(_JS_TEST_NAME.search(path))
