"""A test command aimed at some tests, and a composite command marked into sections.

`select_tests` finds the part of a test command that runs a test runner, whatever shell is
around it (`cd backend && pytest`, `npm run build && npm test`, `pytest | tee log`), following
`npm test` / `pnpm test` / `yarn test` / `bun run test` into the package.json script (itself
perhaps `pnpm lint && vitest run --typecheck`), and returns the command that runs that runner
on exactly the given paths. What it needs from before the runner (a `cd dir`, env
assignments, `source .venv/bin/activate`) is kept; lint, build, the rest of a pipeline and
lifecycle hooks (`pretest`, `posttest`) are not run, and `Scoped.note` says so in words. The
runner's own arguments are changed by the runner module's `select`, which also says what each
name covers among the ids that run reports (`Scoped.targets`). `with_listing` changes a
runner invoked directly by the command so that every test it runs is named.

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
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field

from summarizers.runners import coverage_wrappers
from summarizers.runners.base import Runner, Unselectable
from summarizers.runners.launchers import OtherPackage, launcher_words, script_call
from summarizers.runners.model import SECTION_MARK, Target
from summarizers.runners.names import Name, Project
from summarizers.runners.shell import Item, Simple, Word, parse, source
from summarizers.runners.table import RUNNERS

NODE_BIN_PATH = 'PATH="$PWD/node_modules/.bin:$PATH"'
_MAX_SCRIPT_DEPTH = 5
_KEPT_BEFORE = frozenset({"export", "source", ".", "set", "unset", "umask", "ulimit"})
"""Commands before the runner whose effect it needs (besides `cd` and assignments)."""


@dataclass(frozen=True)
class Scoped:
    command: str
    """The command to run: the runner on exactly the tests, with what it needs before it."""
    runner: str
    """The name of the runner it runs."""
    note: str = ""
    """What of the original command is not run, in words (empty when nothing is dropped)."""
    targets: tuple[Target, ...] = ()
    """What each name covers among the ids of the run (see `Target`)."""


@dataclass(frozen=True)
class Unscopable:
    reason: str
    """Why no runner part was found; the caller runs the whole command and says so."""


def select_tests(
    command: str,
    names: Sequence[Name],
    project: Project,
    scripts: Mapping[str, object] | None,
    runners: Iterable[Runner] | None = None,
) -> Scoped | Unscopable:
    """The command that runs the test runner in `command` on exactly the tests `names` stand
    for (repository paths; `project.cwd` is where `command` starts). `scripts`:
    package.json's `scripts` there. `runners`: the runners to look for (default: the table)."""
    known = list(runners) if runners is not None else list(RUNNERS)
    table = {k: v for k, v in (scripts or {}).items() if isinstance(v, str)}
    done = _Scoper(known, table, project).scope(command, list(names), depth=0)
    if isinstance(done, Unscopable):
        return done
    return Scoped(done.command, done.runner, _without(done.dropped), done.targets)


def runners_in(
    command: str, scripts: Mapping[str, object] | None, runners: Iterable[Runner] | None = None
) -> list[Runner]:
    """The runners `command` runs, directly or through package.json scripts (each once)."""
    known = list(runners) if runners is not None else list(RUNNERS)
    table = {k: v for k, v in (scripts or {}).items() if isinstance(v, str)}
    found: dict[str, Runner] = {}
    _Scoper(known, table, Project()).collect(command, found, depth=0)
    return list(found.values())


def readers_of(
    command: str, scripts: Mapping[str, object] | None, runners: Iterable[Runner] | None = None
) -> list[Runner] | None:
    """The runners whose output `command` prints: those it runs directly or through `&&`
    chains, launchers, coverage wrappers and package.json scripts (hooks too); None where
    a part of it cannot be followed (shell syntax coder does not read, a script with no
    table or of another package), so what it runs is not known."""
    known = list(runners) if runners is not None else list(RUNNERS)
    table = {k: v for k, v in (scripts or {}).items() if isinstance(v, str)}
    found: dict[str, Runner] = {}
    scoper = _Scoper(known, table, Project())
    return list(found.values()) if scoper.collect(command, found, depth=0) else None


def artifacts_in(
    command: str, scripts: Mapping[str, object] | None, runners: Iterable[Runner] | None = None
) -> tuple[str, ...]:
    """What the runs of `command` write into the tree, as `Artifacts` patterns: each runner's
    (and coverage wrapper's) own `artifacts`, and the paths their arguments name for them to
    write (`--junitxml=junit.xml`); a path is anchored where its runner runs
    (`/backend/junit.xml` after `cd backend`). Through package.json scripts and their hooks."""
    known = list(runners) if runners is not None else list(RUNNERS)
    table = {k: v for k, v in (scripts or {}).items() if isinstance(v, str)}
    found: list[str] = []
    for runner, args, here, wrapper in _Scoper(known, table, Project()).runs(command, ".", 0):
        found += [a for a in runner.artifacts if not a.startswith("./")]
        named = tuple(a[2:] for a in runner.artifacts if a.startswith("./"))
        named += runner.writes(args)
        if wrapper:
            found += coverage_wrappers.ARTIFACTS
            named += coverage_wrappers.writes(wrapper)
        if here is not None:
            found += ["/" + posixpath.normpath(posixpath.join(here, p)) for p in named]
    return tuple(dict.fromkeys(found))


_SCRIPT_SUFFIXES = (".sh", ".bash", ".py", ".js", ".mjs", ".cjs", ".ts")
_INTERPRETERS = frozenset(
    {"sh", "bash", "zsh", "dash", "ksh", "python", "python3", "node", "deno", "bun", "perl"}
)
_BUILD_TOOLS = frozenset({"make", "gmake", "tox", "nox", "just", "invoke", "rake", "turbo", "nx"})

_QUIET = frozenset({"--silent", "-s", "--loglevel=silent", "--quiet", "-q"})


def with_script_banners(command: str) -> str:
    """`command` with `--silent` (and the like) taken out of its package-manager script calls
    (`npm test --silent`): the banners npm prints before each script (`> pkg@1.0.0 posttest`,
    `> eslint .`) are what tells a red lint hook from a red test runner in the log. Only words
    written plainly before the script's own arguments (`--`) are taken out."""
    items = parse(command)
    if not items:
        return command
    cuts: list[tuple[int, int]] = []
    for item in items:
        for simple in item.pipeline.commands:
            argv = simple.argv
            if not argv or not isinstance(script_call(argv, {"test": ""}), tuple):
                continue
            for word in simple.words[1:]:
                if word.text == "--":
                    break
                if word.plain and word.text in _QUIET:
                    cuts.append((word.start, word.end))
    for start, end in sorted(cuts, reverse=True):
        command = command[:start].rstrip(" \t") + command[end:]
    return command


def direct_runner(
    argv: list[str], runners: Iterable[Runner] | None = None
) -> tuple[Runner, int] | None:
    """The runner one simple command runs directly (past launchers and coverage wrappers),
    and the index of its first own argument; None when it runs none (or a script)."""
    known = list(runners) if runners is not None else list(RUNNERS)
    found = _Scoper(known, {}, Project())._direct(argv) if argv else None
    return (found[0], found[1]) if found else None


def with_listing(command: str, runners: Iterable[Runner] | None = None) -> str:
    """`command` with each runner it invokes directly (not through a script) changed so that
    every test it runs is named in its output (`Runner.listing`); the rest of the command,
    quoting included, as written. Unchanged where the shell syntax is not followed."""
    known = list(runners) if runners is not None else list(RUNNERS)
    items = parse(command)
    if not items:
        return command
    scoper = _Scoper(known, {}, Project())
    edits: list[tuple[int, int, str]] = []
    for item in items:
        for simple in item.pipeline.commands:
            direct = scoper._direct(simple.argv) if simple.argv else None
            if direct is None:
                continue
            runner, at, _ = direct
            words = simple.words[at:]
            new = runner.listing([w.text for w in words])
            if new == [w.text for w in words]:
                continue
            start = words[0].start if words else simple.words[-1].end
            end = words[-1].end if words else simple.words[-1].end
            text = " ".join(_requoted(command, words, new))
            edits.append((start, end, (" " if not words else "") + text))
    for start, end, text in sorted(edits, reverse=True):
        command = command[:start] + text + command[end:]
    return command


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


@dataclass(frozen=True)
class _Done:
    command: str
    runner: str
    dropped: list[str]
    targets: tuple[Target, ...] = ()


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
    targets: tuple[Target, ...] = ()


class _Scoper:
    def __init__(self, runners: list[Runner], scripts: dict[str, str], project: Project) -> None:
        self.runners = runners
        self.scripts = scripts
        self.project = project

    def collect(self, command: str, found: dict[str, Runner], depth: int) -> bool:
        """Every runner of `command`, through scripts too, into `found`; False where a part
        could not be followed (shell syntax, a script not in the table)."""
        unfollowed: list[str] = []
        for runner, _, _, _ in self.runs(command, ".", depth, unfollowed):
            found.setdefault(runner.name, runner)
        return not unfollowed

    def runs(
        self, command: str, here: str | None, depth: int, unfollowed: list[str] | None = None
    ) -> Iterator[tuple[Runner, list[str], str | None, list[str]]]:
        """Each runner invocation of `command` (through scripts and their hooks): the runner,
        its own arguments, the directory it runs in (None past a `cd` coder cannot name, or
        in a script of another directory's package.json, read as this one's), and the
        arguments of a coverage wrapper around it. What cannot be followed (shell syntax
        coder does not read, a script with no table) is added to `unfollowed`."""
        lost = unfollowed if unfollowed is not None else []
        at = here
        items = parse(command)
        if items is None:
            lost.append(command)
        for item in items or []:
            for simple in item.pipeline.commands:
                if not simple.argv:
                    continue
                direct = self._direct(simple.argv)
                if direct is not None:
                    runner, start, wrapper = direct
                    wrapped = simple.argv[wrapper.start + 1 : wrapper.stop] if wrapper else []
                    yield runner, simple.argv[start:], at, wrapped
                    continue
                call = script_call(simple.argv, self.scripts)
                if call is None:
                    if self._opaque(simple.argv):
                        lost.append(" ".join(simple.argv))
                    continue
                if not (
                    isinstance(call, tuple)
                    and call[1] in self.scripts
                    and depth < _MAX_SCRIPT_DEPTH
                ):
                    lost.append(" ".join(simple.argv))
                    continue
                inside = "." if at == "." else None
                for hook in (f"pre{call[1]}", call[1], f"post{call[1]}"):
                    if hook in self.scripts:
                        yield from self.runs(self.scripts[hook], inside, depth + 1, lost)
            moved = _cd_target(item)
            if isinstance(moved, _Unknown) or at is None:
                at = None
            elif moved is not None:
                at = posixpath.normpath(posixpath.join(at, moved))

    def scope(self, command: str, paths: list[Name], depth: int) -> _Done | Unscopable:
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
        return self._assemble(command, items, _best(found, paths, self.runners))

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
        return _Done(" && ".join(kept + [hit.command]), hit.runner, dropped, hit.targets)

    def _runner_in(
        self,
        command: str,
        simple: Simple,
        index: int,
        member: int,
        here: str | _Unknown,
        paths: list[Name],
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
        selected = runner.select(argv[at:], paths, self.project.at(here))
        if isinstance(selected, Unselectable):
            return Unscopable(f"{runner.name} cannot select them: {selected.reason}")
        new_args = selected.args
        kept = [w for i, w in enumerate(simple.words[:at]) if i not in wrapper]
        words = [source(command, w) for w in (*simple.assignments, *kept)]
        words += _requoted(command, simple.words[at:], new_args)
        words += [source(command, w) for w in simple.redirects]
        dropped = (
            [f"the coverage wrapper `{' '.join(argv[i] for i in wrapper)}`"] if wrapper else []
        )
        return _Found(index, member, runner.name, " ".join(words), dropped, selected.targets)

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
            if coverage_wrappers.is_wrapper(rest[0]):
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

    def _opaque(self, argv: list[str]) -> bool:
        """Whether `argv` runs something coder cannot see into, which may run any runner: a
        file (`./run-tests.sh`, `sh run-tests.sh`, `node t.js`) or a build tool (`make
        test`, `tox`). A program coder knows is no runner (`xo`, `ava`, `tsc`) is not."""
        rest = argv
        while rest and (step := launcher_words(rest, self.scripts)):
            rest = rest[step:]
        if not rest:
            return False
        head = rest[0]
        name = head.rsplit("/", 1)[-1]
        if "/" in head or name.endswith(_SCRIPT_SUFFIXES):
            return True
        if name in _INTERPRETERS:
            return any(not a.startswith("-") for a in rest[1:])
        return name in _BUILD_TOOLS

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
        paths: list[Name],
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
        return _Found(index, member, inner.runner, text, hooks + inner.dropped, inner.targets)


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


def _best(found: list[_Found], paths: list[Name], runners: list[Runner]) -> _Found:
    """With several runner parts (`pytest && vitest run`), the one the named tests belong to:
    the first whose runner takes their files as its test files; else the first."""
    by_name = {r.name: r for r in runners}
    files = [n.path for n in paths if n.path]
    for hit in found:
        runner = by_name.get(hit.runner)
        if runner is not None and files and all(runner.is_test_file(f) for f in files):
            return hit
    return found[0]


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
