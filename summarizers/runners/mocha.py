"""mocha (v8-12), its default `spec` reporter.

The spec reporter prints no file names, so a test's id is its title path: `describe > test`
(what `--grep` matches). A failing hook is a failure of its own: mocha titles it
`"before each" hook for "test"`, and that title, under its describes, is its id, as an
`error` outcome (the tests it stopped never ran). A `--bail` run says nothing about the tests
it skipped: the harness takes the flag out of its own runs rather than read it here.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from summarizers.runners.base import Default, Reading, RunSetup, Selected, Unselectable
from summarizers.runners.jsargs import (
    JS_SOURCE,
    find_binary,
    is_js_test_file,
    replace_paths,
    strip_duration,
)
from summarizers.runners.model import ERROR, FAILED, PASSED, SKIPPED, Target, worst
from summarizers.runners.names import DIR, FILE, TEST, Name, Project
from summarizers.runners.outputs import Output, written
from summarizers.runners.stopargs import StopFlag, option_flags
from summarizers.runners.targets import escaped_title, fileless_target

_PASS = re.compile(r"^( +)[✔✓√] (.+)$")
_FAIL = re.compile(r"^( +)(\d+)\) (.+)$")
_PENDING = re.compile(r"^( +)- (.+)$")
_TOTALS = re.compile(r"^  (\d+) (passing|pending|failing)(?: \(.*\))?$")
_DETAIL = re.compile(r"^  (\d+)\) (.+)$")
_FRAME = re.compile(r"^\s+at (?:(.*) \()?([^()\s]+?:\d+:\d+)\)?$")
_HOOK = re.compile(r'^"(?:before|after)(?: each| all)?" hook')
_ERROR_LINE = re.compile(r"^\s*(?:\w+\.)?(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?:?.*$")
_WITH_VALUE = {
    "-g", "--grep", "-f", "--fgrep", "-R", "--reporter", "-O", "--reporter-option",
    "--reporter-options", "-r", "--require", "--config", "--package", "-t", "--timeout",
    "--slow", "-s", "--ui", "-u", "--extension", "--ignore", "--exclude", "--file", "-j",
    "--jobs", "--retries", "--spec", "--node-option", "-n",
}  # fmt: skip
SEPARATOR = " > "
_NO_TESTS = re.compile(r"^Error: No test files found\b|^\s*0 passing\b")


_OUTPUTS: tuple[Output, ...] = tuple(
    Output(option, keys=("output", "mochaFile"))
    for option in ("--reporter-option", "--reporter-options", "-O")
)
"""Its options that name a file or directory for it to write."""


class Mocha:
    name = "mocha"
    config_files = (".mocharc*", "package.json")
    artifacts = (".nyc_output/", "coverage/", "mochawesome-report/")
    setup = RunSetup()
    caches: tuple[str, ...] = ()
    default: Default | None = None

    def sniff(self, lines: list[str]) -> float:
        score = 0.0
        for line in lines:
            if _TOTALS.match(line):
                score += 0.4
            elif _PASS.match(line):
                score += 0.05
            elif _DETAIL.match(line) and line.rstrip().endswith(":"):
                score += 0.1
        return min(score, 1.0)

    def read(self, lines: list[str]) -> Reading:
        outcomes: dict[str, str] = {}
        messages: dict[str, str] = {}
        locations: dict[str, str] = {}
        counts: dict[str, int] = {}
        first_total = next((i for i, x in enumerate(lines) if _TOTALS.match(x)), len(lines))
        _read_tree(lines[:first_total], outcomes)
        i = first_total
        while i < len(lines):
            t = _TOTALS.match(lines[i])
            if t:
                word = {"passing": "passed", "failing": "failed", "pending": "skipped"}
                counts[word[t.group(2)]] = int(t.group(1))
                i += 1
                continue
            d = _DETAIL.match(lines[i])
            if d is None:
                i += 1
                continue
            titles, i = _title(lines, i, d.group(2))
            ident = SEPARATOR.join(titles)
            hook = _HOOK.match(titles[-1]) is not None
            outcomes.pop(_tree_guess(outcomes, titles[-1]) or "\0", None)
            outcomes[ident] = ERROR if hook else FAILED
            said, where = _failure(lines, i)
            messages[ident] = said or "failed"
            if where:
                locations[ident] = where
        return Reading(outcomes=outcomes, messages=messages, counts=counts, locations=locations)

    def writes(self, args: list[str]) -> tuple[str, ...]:
        return written(args, _OUTPUTS)

    def invoked_at(self, argv: list[str]) -> int | None:
        at = find_binary(argv, {"mocha", "_mocha"})
        return None if at is None else at + 1

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        return option_flags(args, {"--bail", "-b"}, optional_number=False)

    def select(
        self, args: list[str], names: Sequence[Name], project: Project
    ) -> Selected | Unselectable:
        """The given files instead of mocha's default spec (`./test`; `--spec` is taken out; a
        directory is its test files), a test by `--grep` on its full title; a test named
        without its file (mocha's own full title, `describe test`) by that alone, in the files
        the command itself runs. mocha's ids are title paths without the file, so a file or
        directory named stands for every test of the run it selects. A `spec` set in
        `.mocharc.*` or package.json's `mocha` is run as well as the paths (mocha joins the
        two): scoping such a project needs `--no-config`/`--no-package` with the config's
        other options carried over, which these arguments alone cannot know."""
        files: list[str] = []
        titles: list[tuple[str, ...]] = []
        targets: list[Target] = []
        for name in names:
            if name.kind == DIR:
                inside = [f for f in project.under(name.path) if JS_SOURCE.search(f)]
                files += inside
                targets.append(Target(name.text, DIR, prefixes=("",), files=tuple(inside)))
            elif name.kind == FILE:
                files.append(name.path)
                targets.append(Target(name.text, FILE, prefixes=("",), files=(name.path,)))
            elif name.fileless:
                titles.append(name.parts or (name.title,))
                targets.append(fileless_target(name, titles[-1], file_first=False))
            else:
                title = name.parts if project.is_file(name.path) else (name.path, *name.parts)
                if project.is_file(name.path):
                    files.append(name.path)
                title = tuple(t for t in title if t)
                titles.append(title)
                ident = SEPARATOR.join(title)
                parents = {SEPARATOR.join(title[:k]) for k in range(1, len(title))}
                targets.append(
                    Target(
                        name.text,
                        TEST,
                        frozenset({ident}),
                        (ident + SEPARATOR,),
                        frozenset(parents),
                        (name.path,) if project.is_file(name.path) else (),
                    )
                )
        if not files and not titles:
            return Unselectable("no test is named")
        drop = [i for i, a in enumerate(args) if a == "--spec" or a.startswith("--spec=")]
        drop += [i + 1 for i, a in enumerate(args) if a == "--spec"]
        only_tests = all(n.kind == TEST for n in names)
        if files and not any(n.fileless for n in names):
            new = replace_paths(
                args, [project.relative(f) for f in dict.fromkeys(files)], _WITH_VALUE, drop
            )
        else:
            new = list(args)
        if only_tests and titles:
            grep = "^(?:" + "|".join(escaped_title(t)[1:-1] for t in titles) + ")$"
            new = [*new, "--grep", grep]
        return Selected(new, tuple(targets))

    def listing(self, args: list[str]) -> list[str]:
        return args

    def is_test_file(self, path: str) -> bool:
        return is_js_test_file(path)

    def read_report(self, reports: Mapping[str, bytes]) -> dict[str, str] | None:
        return None

    def ran_nothing(self, reading: Reading, exit_code: int | None, lines: list[str]) -> str | None:
        if reading.outcomes or reading.counts.get("passed") or reading.counts.get("failed"):
            return None
        return next((x.strip() for x in lines if _NO_TESTS.match(x)), None)


def _read_tree(lines: list[str], outcomes: dict[str, str]) -> None:
    """The spec reporter's tree: suites are indented two spaces a level, tests carry a mark."""
    suites: list[str] = []
    for line in lines:
        if not line.strip():
            continue
        depth = (len(line) - len(line.lstrip())) // 2 - 1
        for pattern, outcome in ((_PASS, PASSED), (_FAIL, FAILED), (_PENDING, SKIPPED)):
            m = pattern.match(line)
            if m:
                name = strip_duration(m.group(m.lastindex or 2))
                path = [*suites[: max(depth, 0)], name]
                ident = SEPARATOR.join(path)
                outcomes[ident] = worst(outcomes.get(ident), outcome)
                break
        else:
            if depth >= 0 and line.startswith("  "):
                suites[depth:] = [line.strip()]


def _tree_guess(outcomes: dict[str, str], last: str) -> str | None:
    """The tree's entry for a failure the details name in full (same last title, failed)."""
    for ident, outcome in outcomes.items():
        if outcome == FAILED and (ident == last or ident.endswith(SEPARATOR + last)):
            return ident
    return None


def _title(lines: list[str], i: int, first: str) -> tuple[list[str], int]:
    """A failure's title path: `N) a` then `b`, `c:` on the lines below, deeper each."""
    titles = [first]
    j = i + 1
    while not titles[-1].endswith(":") and j < len(lines) and lines[j].startswith("     "):
        titles.append(lines[j].strip())
        j += 1
    titles[-1] = titles[-1].removesuffix(":")
    return titles, j


def _failure(lines: list[str], start: int) -> tuple[str, str]:
    said, where = "", ""
    for line in lines[start : start + 80]:
        if _DETAIL.match(line) or _TOTALS.match(line):
            break
        if not said and _ERROR_LINE.match(line):
            said = line.strip().rstrip(":")
        frame = _FRAME.match(line)
        if frame and not frame.group(2).startswith("node:") and "node_modules" not in line:
            if not where or (frame.group(1) or "").startswith("Context."):
                where = frame.group(2)
            if (frame.group(1) or "").startswith("Context."):
                break
    if not said:
        said = next((x.strip() for x in lines[start : start + 5] if x.strip()), "")
    return said, where


MOCHA = Mocha()
