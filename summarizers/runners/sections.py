"""Split one command's log into the sections it is made of, each to be read with its own format.

A section starts where the log itself says a new command begins: the harness's own marks
(`[coder] section: <cmd>`), npm's and pnpm's script banners (`> pkg@1.0.0 posttest` and the
`> eslint .` line under it), yarn's `$ cmd` echo, a CI runner's `##[group]Run cmd` or
`::group::`, tox's `py311: commands[0]> pytest`, and a second pytest session in a row
(`=== test session starts ===`). Each section is named for what ran and what it is (tests,
lint, typecheck, build, hook, other), from the command where the log names one, else from
what the output looks like. A section's exit status is filled in where the log says it (npm's
"Lifecycle script `x` failed", `##[error]Process completed with exit code N`, tox's
`py311: exit 1`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from summarizers.runners.model import BUILD, HOOK, LINT, OTHER, SECTION_MARK, TESTS, TYPECHECK


@dataclass(frozen=True)
class Span:
    name: str
    kind: str
    start: int
    end: int
    exit_code: int | None = None
    command: str = ""
    """The part's own command, where the log names it (a mark, npm's `> eslint .` line)."""
    script: bool = False
    """It ran as a package.json script (its `node_modules/.bin` on PATH)."""


_NPM_BANNER = re.compile(r"^> (\S+@\S*|\S+) (\S+)(?: (/\S*))?$")
_NPM_COMMAND = re.compile(r"^> (.+)$")
_NPM_EVENT = re.compile(r"^> ([\w:.-]+)$")
_YARN = re.compile(r"^\$ (\S.*)$")
_GROUP = re.compile(r"^(?:##\[group\]|::group::)(?:Run )?(.+)$")
_TOX = re.compile(r"^([\w.-]+): commands(?:\[\d+\])?> (.+)$")
_TOX3 = re.compile(r"^([\w.-]+) run-test: commands\[\d+\] \| (.+)$")
_PYTEST_START = re.compile(r"^=+ test session starts =+$")
_NPM_FAILED = re.compile(r"^npm (?:error|ERR!) (?:Lifecycle script `([\w:-]+)` failed|.* (\S+): `)")
_NPM_CODE = re.compile(r"^npm (?:error|ERR!) (?:code|errno) (\d+)$")
_CI_EXIT = re.compile(r"^##\[error\]Process completed with exit code (\d+)\.?$")
_TOX_EXIT = re.compile(r"^\s*([\w.-]+): (?:exit (\d+)|FAIL code (\d+)|OK|commands succeeded)")
_PNPM_FAILED = re.compile(r"^\s*(?:\S+\s+)?ELIFECYCLE\s+Command failed with exit code (\d+)")

_TEST_TOOLS = (
    "pytest", "py.test", "unittest", "nose2", "tox", "nox", "vitest", "jest", "mocha", "tap",
    "tape", "ava", "node --test", "karma", "playwright", "cypress", "go test", "cargo test",
    "phpunit", "rspec", "ctest", "make test", "make check", "c8", "nyc",
)  # fmt: skip
_LINT_TOOLS = (
    "eslint", "prettier", "biome", "oxlint", "standard", "xo", "ruff", "flake8", "pylint",
    "black", "isort", "stylelint", "markdownlint", "lint", "format", "clippy", "gofmt",
)  # fmt: skip
_TYPE_TOOLS = ("tsc", "mypy", "pyright", "vue-tsc", "typecheck", "type-check", "flow", "tsd")
_BUILD_TOOLS = (
    "build", "webpack", "rollup", "vite build", "esbuild", "babel", "tsup", "compile",
    "make", "cargo build", "setup.py", "pip install", "npm ci", "npm install", "pnpm install",
)  # fmt: skip
_SCRIPT_KINDS = (
    (LINT, ("lint", "format", "prettier", "eslint", "style")),
    (TYPECHECK, ("typecheck", "type-check", "types", "tsc", "check-types")),
    (BUILD, ("build", "compile", "bundle")),
    (TESTS, ("test", "unit", "e2e", "coverage")),
)
"""npm script names that say what they run (`lint:js`, `test:unit`, `build`)."""
_HOOK_NAMES = re.compile(r"^(?:pre|post)[\w:-]+$|^(?:prepare|prepublish\w*|install)$")


def split_sections(lines: list[str]) -> list[Span]:
    """The log's sections in order, covering every line; one section when nothing splits it."""
    starts: list[tuple[int, str, str]] = []  # (line, name, script)
    commands: dict[int, str] = {}
    session_in_current = False
    i = 0
    while i < len(lines):
        line = lines[i]
        found = _boundary(lines, i)
        if found is not None:
            name, script, width = found
            starts.append((i, name, script))
            commands[i] = name.split(": ", 1)[1] if script and ": " in name else name
            session_in_current = False
            i += width
            continue
        if _PYTEST_START.match(line):
            if session_in_current:
                starts.append((i, "pytest", ""))
            session_in_current = True
        i += 1
    if not starts or starts[0][0] > 0:
        if not starts or any(x.strip() for x in lines[: starts[0][0]]):
            starts.insert(0, (0, "", ""))
        else:
            first = starts.pop(0)
            starts.insert(0, (0, first[1], first[2]))
            commands[0] = commands.pop(first[0], "")
    spans: list[Span] = []
    for k, (start, name, script) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else len(lines)
        body = lines[start:end]
        kind = section_kind(name, script, body)
        exit_code = _exit_code(body, name.split(": ", 1)[0])
        command = commands.get(start, "") if name else ""
        spans.append(
            Span(name or _content_name(body), kind, start, end, exit_code, command, bool(script))
        )
    return _npm_failures(lines, spans)


def _boundary(lines: list[str], i: int) -> tuple[str, str, int] | None:
    """(name, npm script, lines taken) when a new section starts at line i."""
    line = lines[i]
    if line.startswith(SECTION_MARK):
        return line[len(SECTION_MARK) :].strip(), "", 1
    banner = _NPM_BANNER.match(line)
    if banner and i + 1 < len(lines) and _npm_pair(banner, lines[i + 1]):
        command = _NPM_COMMAND.match(lines[i + 1])
        script = banner.group(2)
        assert command is not None
        return f"{script}: {command.group(1).strip()}", script, 2
    event = _npm_event(lines, i)
    if event is not None:
        return f"{event}: {lines[i + 1][2:].strip()}", event, 2
    for pattern in (_GROUP, _YARN):
        m = pattern.match(line)
        if m and line.strip() not in ("##[group]", "::group::"):
            return m.group(1).strip(), "", 1
    tox = _TOX.match(line) or _TOX3.match(line)
    if tox:
        return f"{tox.group(1)}: {tox.group(2).strip()}", "", 1
    return None


def _npm_pair(banner: re.Match[str], following: str) -> bool:
    """`> pkg@1.0.0 test` is npm's banner only when the next line is `> <command>` and the
    package names a version (or pnpm's path follows): a quoted `> ` line alone is not."""
    return following.startswith("> ") and ("@" in banner.group(1) or bool(banner.group(3)))


def _npm_event(lines: list[str], i: int) -> str | None:
    """The script of npm's banner for a package with no version: `> posttest` alone (npm
    names no `pkg@version` then), then `> <command>`. Told from a quoted `> word` by where npm
    puts it: after an empty line (or at the top), with the command's lines followed by one."""
    event = _NPM_EVENT.match(lines[i])
    if event is None or i + 1 >= len(lines) or not lines[i + 1].startswith("> "):
        return None
    if i > 0 and lines[i - 1].strip():
        return None
    after = lines[i + 2] if i + 2 < len(lines) else ""
    return event.group(1) if not after.strip() or after.startswith("> ") else None


def section_kind(name: str, script: str, body: list[str]) -> str:
    """What a section is: from its npm script's name where that says (`lint`, `build`,
    `typecheck`, `test`), else its command, else a pre/post hook, else its output."""
    for kind, prefixes in _SCRIPT_KINDS:
        if script.startswith(prefixes):
            return kind
    command = name.split(": ", 1)[1] if script and ": " in name else name
    words = f" {command.lower()} "
    for kind, tools in ((TYPECHECK, _TYPE_TOOLS), (LINT, _LINT_TOOLS), (TESTS, _TEST_TOOLS)):
        if any(f" {t} " in words or f"/{t} " in words or f" {t}:" in words for t in tools):
            return kind
    if any(f" {t}" in words for t in _BUILD_TOOLS):
        return BUILD
    if script and _HOOK_NAMES.match(script):
        return HOOK
    return _content_kind(body)


def _content_kind(body: list[str]) -> str:
    text = "\n".join(body[:400])
    if "test session starts" in text or re.search(
        r"^(?:TAP version|Tests?:|Ran \d+ tests?)", text, re.M
    ):
        return TESTS
    if re.search(r"error TS\d+:|^Found \d+ errors? in \d+ files?", text, re.M):
        return TYPECHECK
    if re.search(r"^✖ \d+ problems?|^Found \d+ errors?\.$|would reformat", text, re.M):
        return LINT
    return OTHER


def _content_name(body: list[str]) -> str:
    if any(_PYTEST_START.match(x) for x in body[:50]):
        return "pytest"
    return ""


def _exit_code(body: list[str], label: str) -> int | None:
    """The exit status the section's own last lines give: a CI step's, pnpm's, or tox's for
    the environment `label` names."""
    for line in reversed(body[-40:]):
        m = _CI_EXIT.match(line) or _PNPM_FAILED.match(line)
        if m:
            return int(m.group(1))
        tox = _TOX_EXIT.match(line)
        if tox and tox.group(1) == label:
            code = tox.group(2) or tox.group(3)
            return int(code) if code else 0
    return None


def _npm_failures(lines: list[str], spans: list[Span]) -> list[Span]:
    """npm names the script that failed in its closing lines (`Lifecycle script `posttest`
    failed`, then `code 1`), often after the banner of that very section: give that section
    its exit status."""
    failed: str | None = None
    code: int | None = None
    for line in lines[-60:]:
        m = _NPM_FAILED.match(line)
        if m:
            failed = m.group(1) or m.group(2)
        c = _NPM_CODE.match(line)
        if c and failed and code is None:
            code = int(c.group(1))
    if failed is None:
        return spans
    out = []
    for span in spans:
        if span.name.startswith(f"{failed}: ") and span.exit_code is None:
            span = replace(span, exit_code=code if code is not None else 1)
        out.append(span)
    return out
