"""A test command aimed at some paths, and a composite command marked into sections.

`scope_to_paths` finds the part of a test command that runs a test runner, whatever shell is
around it (`cd backend && pytest`, `npm run build && npm test`, `pytest | tee log`), following
`npm test` / `pnpm test` / `yarn test` / `bun run test` into the package.json script (itself
perhaps `pnpm lint && vitest run --typecheck`), and returns the command that runs that runner
on exactly the given paths. What it needs from before the runner (a `cd dir`, env
assignments, `source .venv/bin/activate`) is kept; lint, build, the rest of a pipeline and
lifecycle hooks (`pretest`, `posttest`) are not run, and `Scoped.note` says so in words. The
runner's own arguments are changed by the runner module's `path_args`.

A script is run as its package manager would run it, in the form
`PATH="$PWD/node_modules/.bin:$PATH" <script>`: npm, pnpm, yarn and bun all put the package's
`node_modules/.bin` first on PATH before handing the script to a shell, and that is all the
scoped command needs from them. `npx`/`npm exec` would do the same lookup but fetch a missing
package from the registry (no network in the sandbox, and a slow wrong answer), and going
through the manager again would run the hooks this exists to leave out. The assignment is
the shell's own, so the command stays readable and its words stay visible to the harness's
other rewrites (stop flags), which a quoted `sh -c '...'` would hide.

`mark_sections` puts `printf '%s\\n' '[coder] section: <part>'` before each top-level part
of `a && b` / `a; b`, so the log reader can tell which output came from which part.

Pure: no I/O; package.json's scripts come in as a mapping.
"""

from __future__ import annotations

import posixpath
import shlex
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from summarizers.runners import registry
from summarizers.runners.base import Runner
from summarizers.runners.launchers import OtherPackage, launcher_words, script_call
from summarizers.runners.model import SECTION_MARK
from summarizers.runners.shell import Item, Simple, Word, parse, source

NODE_BIN_PATH = 'PATH="$PWD/node_modules/.bin:$PATH"'
_MAX_SCRIPT_DEPTH = 5
_KEPT_BEFORE = frozenset({"export", "source", ".", "set", "unset", "umask", "ulimit"})
"""Commands before the runner whose effect it needs (besides `cd` and assignments)."""
_PYTHON_RUNNERS = frozenset({"pytest", "unittest"})
_COVERAGE_WRAPPERS = frozenset({"nyc", "c8"})


@dataclass(frozen=True)
class Scoped:
    command: str
    """The command to run: the runner on exactly the paths, with what it needs before it."""
    runner: str
    """The registry name of the runner it runs."""
    note: str = ""
    """What of the original command is not run, in words (empty when nothing is dropped)."""


@dataclass(frozen=True)
class Unscopable:
    reason: str
    """Why no runner part was found; the caller runs the whole command and says so."""


def scope_to_paths(
    command: str,
    paths: Sequence[str],
    scripts: Mapping[str, object] | None,
    runners: Iterable[Runner] | None = None,
    majors: Mapping[str, int] | None = None,
) -> Scoped | Unscopable:
    """The command that runs the test runner in `command` on exactly `paths` (relative to the
    directory `command` starts in). `scripts`: package.json's `scripts` there. `runners`:
    the runners to look for (default: every registered runner module). `majors`: runner name
    -> the major version the project pins (from package.json), for the runners whose flags
    differ between versions."""
    known = list(runners) if runners is not None else _registered()
    table = {k: v for k, v in (scripts or {}).items() if isinstance(v, str)}
    done = _Scoper(known, table, dict(majors or {})).scope(command, list(paths), depth=0)
    if isinstance(done, Unscopable):
        return done
    return Scoped(done.command, done.runner, _without(done.dropped))


def mark_sections(command: str) -> str:
    """`command` with a section mark printed before each of its top-level parts; a part
    joined by `||` stays with the one before it, so the exit status is the command's own. A
    single part, or syntax the shell reader does not follow, is returned unchanged."""
    items = parse(command)
    if not items:
        return command
    sections: list[list[Item]] = []
    for item in items:
        if item.before == "||" and sections:
            sections[-1].append(item)
        else:
            sections.append([item])
    if len(sections) < 2:
        return command
    out: list[str] = []
    for group in sections:
        text = command[group[0].pipeline.start : group[-1].pipeline.end]
        mark = "printf '%s\\n' " + shlex.quote(SECTION_MARK + " ".join(text.split()))
        joiner = group[0].before
        if joiner is not None:
            out.append("\n" if joiner == "\n" else f" {joiner} ")
        out.append(f"{mark} && {text}")
    return "".join(out) + command[items[-1].pipeline.end :].rstrip(" \t")


def _registered() -> list[Runner]:
    load = getattr(registry, "load", None)
    if callable(load):
        load()
    return list(registry.RUNNERS.values())


@dataclass(frozen=True)
class _Done:
    command: str
    runner: str
    dropped: list[str]


_NO_RUNNER = "no test runner coder knows is run by"


@dataclass(frozen=True)
class _Found:
    """A simple command that runs a runner, directly or through a package.json script."""

    index: int
    """Which item of the list."""
    member: int
    """Which command of that item's pipeline."""
    runner: str
    command: str
    """That simple command rewritten for the paths (and the script followed)."""
    dropped: list[str] = field(default_factory=list)
    """What the followed script left out."""


class _Scoper:
    def __init__(
        self, runners: list[Runner], scripts: dict[str, str], majors: dict[str, int]
    ) -> None:
        self.runners = runners
        self.scripts = scripts
        self.majors = majors

    def scope(self, command: str, paths: list[str], depth: int) -> _Done | Unscopable:
        items = parse(command)
        if items is None:
            return Unscopable(f"coder does not follow the shell syntax of `{command}`")
        if not items:
            return Unscopable("the test command is empty")
        found: list[_Found] = []
        why: list[str] = []
        here: str | _Unknown = "."
        for index, item in enumerate(items):
            for member, simple in enumerate(item.pipeline.commands):
                hit = self._runner_in(command, simple, index, member, here, paths, depth)
                if isinstance(hit, Unscopable):
                    why.append(hit.reason)
                elif hit is not None:
                    found.append(hit)
            moved = _cd_target(item)
            if isinstance(moved, _Unknown) or isinstance(here, _Unknown):
                here = _UNKNOWN
            elif moved is not None:
                here = posixpath.normpath(posixpath.join(here, moved))
        if not found:
            return Unscopable(why[0] if why else f"{_NO_RUNNER} `{command}`")
        return self._assemble(command, items, _best(found, paths))

    def _assemble(self, command: str, items: list[Item], hit: _Found) -> _Done | Unscopable:
        kept: list[str] = []
        dropped: list[str] = []
        for item in items[: hit.index]:
            text = _text(command, item)
            first = item.pipeline.commands[0]
            if _cd_target(item) is _UNKNOWN:
                return Unscopable(f"`{text}` moves to a directory coder cannot name")
            if len(item.pipeline.commands) == 1 and _needed_before(first):
                kept.append(text)
            else:
                dropped.append(f"`{text}`")
        pipeline = items[hit.index].pipeline.commands
        dropped += [f"`{command[c.start : c.end]} |`" for c in pipeline[: hit.member]]
        dropped += [f"`| {command[c.start : c.end]}`" for c in pipeline[hit.member + 1 :]]
        dropped += [f"`{_text(command, item)}`" for item in items[hit.index + 1 :]]
        dropped += hit.dropped
        return _Done(" && ".join(kept + [hit.command]), hit.runner, dropped)

    def _runner_in(
        self,
        command: str,
        simple: Simple,
        index: int,
        member: int,
        here: str | _Unknown,
        paths: list[str],
        depth: int,
    ) -> _Found | Unscopable | None:
        argv = simple.argv
        if not argv:
            return None
        direct = self._direct(argv)
        if direct is None:
            return self._script(command, simple, index, member, here, paths, depth)
        runner, at, wrapper = direct
        if isinstance(here, _Unknown):
            return Unscopable("the runner runs in a directory coder cannot name")
        new_args = runner.path_args(
            argv[at:], [_relative(p, here) for p in paths], major=self.majors.get(runner.name)
        )
        kept = [w for i, w in enumerate(simple.words[:at]) if i not in wrapper]
        words = [source(command, w) for w in (*simple.assignments, *kept)]
        words += _requoted(command, simple.words[at:], new_args)
        words += [source(command, w) for w in simple.redirects]
        dropped = (
            [f"the coverage wrapper `{' '.join(argv[i] for i in wrapper)}`"] if wrapper else []
        )
        return _Found(index, member, runner.name, " ".join(words), dropped)

    def _direct(self, argv: list[str]) -> tuple[Runner, int, range] | None:
        """The runner `argv` runs, where its own arguments start, and the words of a coverage
        wrapper around it (`nyc --check-coverage mocha`: a suite's coverage gate is not one
        file's), looking past launchers (`npx`, `pnpm exec`, `uv run`, `env`, `time`, ...)
        for runner modules that do not."""
        skipped = 0
        while skipped < len(argv):
            rest = argv[skipped:]
            hit = self._invoked(rest)
            if hit is not None:
                return hit[0], skipped + hit[1], range(0)
            if posixpath.basename(rest[0]) in _COVERAGE_WRAPPERS:
                for start in range(1, len(rest)):
                    hit = self._invoked(rest[start:])
                    if hit is not None:
                        return hit[0], skipped + start + hit[1], range(skipped, skipped + start)
                return None
            step = launcher_words(rest, self.scripts)
            if not step:
                return None
            skipped += step
        return None

    def _invoked(self, argv: list[str]) -> tuple[Runner, int] | None:
        for runner in self.runners:
            at = runner.invoked_at(argv)
            if at is not None:
                return runner, at
        return None

    def _script(
        self,
        command: str,
        simple: Simple,
        index: int,
        member: int,
        here: str | _Unknown,
        paths: list[str],
        depth: int,
    ) -> _Found | Unscopable | None:
        call = script_call(simple.argv, self.scripts)
        if isinstance(call, OtherPackage):
            return Unscopable(f"`{call.command}` runs the scripts of another package")
        if call is None:
            return None
        manager, name, extra = call
        if here != ".":
            return Unscopable(
                f"`{command[simple.start : simple.end]}` runs a package.json script of "
                "another directory, which coder does not read"
            )
        if name not in self.scripts:
            return Unscopable(f"package.json has no `{name}` script")
        if depth >= _MAX_SCRIPT_DEPTH:
            return Unscopable(f"package.json scripts call each other too deep (`{name}`)")
        script = " ".join([self.scripts[name], *map(shlex.quote, extra)])
        inner = self.scope(script, paths, depth + 1)
        if isinstance(inner, Unscopable):
            if inner.reason.startswith(_NO_RUNNER):
                return None
            return Unscopable(f"the `{name}` script: {inner.reason}")
        hooks = [
            f"the {hook} hook `{self.scripts[hook]}`"
            for hook in (f"pre{name}", f"post{name}")
            if hook in self.scripts and manager != "pnpm"
        ]
        pieces = [source(command, w) for w in simple.assignments]
        if depth == 0:
            pieces.append(NODE_BIN_PATH)
        redirects = [source(command, w) for w in simple.redirects]
        if pieces and _is_simple(inner.command):
            text = " ".join([*pieces, inner.command, *redirects])
        elif pieces:
            text = " ".join(["export", *pieces, "&&", inner.command, *redirects])
        else:
            text = " ".join([inner.command, *redirects])
        return _Found(index, member, inner.runner, text, hooks + inner.dropped)


class _Unknown:
    def __repr__(self) -> str:
        return "<unknown directory>"


_UNKNOWN = _Unknown()


def _cd_target(item: Item) -> str | _Unknown | None:
    """Where a `cd` item moves to (relative), _UNKNOWN when it cannot be named, None when
    the item is no `cd`."""
    commands = item.pipeline.commands
    if len(commands) != 1 or not commands[0].words:
        return None
    words = commands[0].words
    if words[0].text in ("pushd", "popd"):
        return _UNKNOWN
    if words[0].text != "cd":
        return None
    args = [w for w in words[1:] if w.text != "--"]
    if len(args) != 1 or not args[0].plain or args[0].text.startswith(("/", "~", "-")):
        return _UNKNOWN
    return args[0].text


def _needed_before(simple: Simple) -> bool:
    if not simple.words:
        return bool(simple.assignments)
    return simple.words[0].text in _KEPT_BEFORE or simple.words[0].text == "cd"


def _best(found: list[_Found], paths: list[str]) -> _Found:
    """With several runner parts (`pytest && vitest run`), the one the paths belong to: a
    Python runner for `.py` paths, another for the rest; else the first."""
    python = bool(paths) and all(p.split("::")[0].endswith(".py") for p in paths)
    for hit in found:
        if (hit.runner in _PYTHON_RUNNERS) == python:
            return hit
    return found[0]


def _relative(path: str, here: str) -> str:
    """A repository path as seen from `here` (after `cd here`); a test id keeps its `::...`."""
    if here == ".":
        return path
    file, sep, rest = path.partition("::")
    return posixpath.relpath(posixpath.normpath(file), here) + sep + rest


def _requoted(command: str, old: Sequence[Word], new: list[str]) -> list[str]:
    """The runner's new arguments as shell words: one it kept is written as it was (a glob,
    `$VAR` or quoting keeps its meaning), a new one is quoted."""
    unused = list(old)
    out = []
    for arg in new:
        same = next((w for w in unused if w.text == arg), None)
        if same is not None:
            unused.remove(same)
            out.append(source(command, same))
        else:
            out.append(shlex.quote(arg))
    return out


def _text(command: str, item: Item) -> str:
    return " ".join(command[item.pipeline.start : item.pipeline.end].split())


def _is_simple(command: str) -> bool:
    items = parse(command)
    return items is not None and len(items) == 1 and len(items[0].pipeline.commands) == 1


def _without(dropped: list[str]) -> str:
    if not dropped:
        return ""
    if len(dropped) == 1:
        return f"without {dropped[0]}"
    return f"without {', '.join(dropped[:-1])} and {dropped[-1]}"
