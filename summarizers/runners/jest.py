"""jest (v27-30), its default and `--verbose` reporters.

A test's id is `file > describe > test` (jest's own `●` headers say `describe › test`; the
file is the `PASS`/`FAIL` line above). The default reporter names only failing tests; with
`--verbose` every test is listed as a tree, and passing ones get ids too.

Failures of their own: a file that could not run (`● Test suite failed to run`: a syntax
error, a missing module) is an `error` outcome whose id is the file; a snapshot mismatch is the
failure of the test that took the snapshot (its message says which snapshot); a coverage
threshold not met goes to `Reading.errors`, since it fails the run with every test green.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from summarizers.runners.base import Default, Reading, RunSetup, Selected, Unselectable
from summarizers.runners.jsargs import (
    find_binary,
    is_js_test_file,
    replace_paths,
    strip_duration,
)
from summarizers.runners.model import ERROR, FAILED, PASSED, SKIPPED, worst
from summarizers.runners.names import DIR, TEST, Name, Project
from summarizers.runners.outputs import Output, written
from summarizers.runners.stopargs import StopFlag, option_flags
from summarizers.runners.targets import (
    escaped_title,
    fileless_target,
    targets_by_path,
    title_words,
)

_FILE = re.compile(r"^\s?(PASS|FAIL) +(?:\S+ {2,})?(\S+?)(?: \(\d+(?:\.\d+)? ?m?s\))?$")
_HEADER = re.compile(r"^  ● (.+)$")
SUITE_FAILED = "Test suite failed to run"
CONSOLE = "Console"
"""jest 22's header over what a file's tests printed (`  ● Console`): not a failure."""
_TREE = re.compile(r"^( +)(✓|✕|○|✎|√|×) (?:(?:skipped|todo) )?(.+)$")
_MARK = {"✓": PASSED, "√": PASSED, "✕": FAILED, "×": FAILED, "○": SKIPPED, "✎": SKIPPED}
_FRAME = re.compile(r"^\s+at (?:.* \()?([^()\s]+?:\d+:\d+)\)?$")
_SUMMARY = re.compile(r"^(Tests|Test Suites|Snapshots):\s+(.*)$")
_COUNT = re.compile(r"(\d+) (failed|passed|skipped|todo|total|obsolete)")
_OF_TOTAL = re.compile(r"(\d+) of (\d+) total")
_COVERAGE = re.compile(r"^Jest: .*(?:coverage threshold|does not meet .* threshold).*$", re.I)
_WITH_VALUE = {
    "-c", "--config", "-t", "--testNamePattern", "--testPathPattern", "--testPathPatterns",
    "--testPathIgnorePatterns", "--selectProjects", "--reporters", "-w", "--maxWorkers",
    "--shard", "--testTimeout", "--outputFile", "--rootDir", "--roots", "--env",
    "--testEnvironment", "--coverageDirectory", "--collectCoverageFrom", "--seed",
    "--coverageProvider", "--testRunner", "--setupFiles", "--cacheDirectory",
}  # fmt: skip
_PATH_MODES = {
    "--findRelatedTests", "--runTestsByPath", "--onlyChanged", "-o", "--changedSince",
    "--lastCommit", "--onlyFailures", "-f", "--listTests",
}  # fmt: skip
SEPARATOR = " > "
_NO_TESTS = re.compile(r"^No tests found\b")


_OUTPUTS: tuple[Output, ...] = (Output("--outputFile"), Output("--coverageDirectory"))
"""Its options that name a file or directory for it to write."""


class Jest:
    name = "jest"
    config_files = ("jest.config.*", "package.json", "jest.setup.*")
    artifacts = ("coverage/", "./junit.xml", "*.tsbuildinfo")
    setup = RunSetup()
    caches: tuple[str, ...] = ()
    default: Default | None = None

    def sniff(self, lines: list[str]) -> float:
        score = 0.0
        for line in lines:
            if _SUMMARY.match(line) and line.startswith(("Tests:", "Test Suites:")):
                score += 0.4
            elif _FILE.match(line):
                score += 0.2
            elif _HEADER.match(line) and "›" in line:
                score += 0.1
            elif line.startswith("Ran all test suites"):
                score += 0.3
        return min(score, 1.0)

    def read(self, lines: list[str]) -> Reading:
        outcomes: dict[str, str] = {}
        messages: dict[str, str] = {}
        locations: dict[str, str] = {}
        errors: list[str] = []
        counts: dict[str, int] = {}
        incomplete = None
        current = ""
        describes: list[str] = []
        in_tree = False
        for i, line in enumerate(lines):
            f = _FILE.match(line)
            if f:
                current, describes, in_tree = f.group(2), [], True
                continue
            header = _HEADER.match(line)
            if header:
                in_tree = False
            if header and current and header.group(1).strip() == CONSOLE:
                continue
            if header and current:
                title = header.group(1).strip()
                if title == SUITE_FAILED:
                    ident, outcome = current, ERROR
                else:
                    ident, outcome = _ident(current, title.split(" › ")), FAILED
                outcomes[ident] = outcome
                said, where = _failure(lines, i + 1, current)
                messages[ident] = said or title
                if where:
                    locations[ident] = where
                continue
            if in_tree and line.strip():
                _tree_line(line, current, describes, outcomes)
                continue
            in_tree = False
            s = _SUMMARY.match(line)
            if s:
                found = {word: int(n) for n, word in _COUNT.findall(s.group(2))}
                if s.group(1) == "Tests":
                    counts["passed"] = found.get("passed", 0)
                    counts["failed"] = found.get("failed", 0)
                    counts["skipped"] = found.get("skipped", 0) + found.get("todo", 0)
                partial = _OF_TOTAL.search(s.group(2))
                if partial and s.group(1) == "Test Suites":
                    incomplete = (
                        f"jest ran {partial.group(1)} of {partial.group(2)} test suites "
                        "(stopped early: --bail)"
                    )
            elif _COVERAGE.match(line):
                errors.append(line.strip())
        return Reading(
            outcomes=outcomes,
            messages=messages,
            errors=errors,
            incomplete=incomplete,
            counts=counts,
            locations=locations,
        )

    def writes(self, args: list[str]) -> tuple[str, ...]:
        return written(args, _OUTPUTS)

    def invoked_at(self, argv: list[str]) -> int | None:
        at = find_binary(argv, {"jest"})
        return None if at is None else at + 1

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        return option_flags(args, {"--bail", "-b"}, optional_number=True)

    def select(
        self, args: list[str], names: Sequence[Name], project: Project
    ) -> Selected | Unselectable:
        """Exactly these files (`--runTestsByPath`: a positional is a regular expression; a
        directory is its test files, since that flag takes files only), a test by its file
        and its full title (`-t`, only when every name is a test: `-t` would skip the other
        tests of a file named whole); a test named without its file (jest's own `describe ›
        test`) by its full title alone, in every file the command itself runs; the coverage
        gate off (`--coverage=false`): one file cannot meet a whole suite's; and `--verbose`,
        since the default reporter names no passing test and a proof must see its tests pass
        by name."""
        files: list[str] = []
        for name in names:
            if name.kind == DIR:
                files += [f for f in project.under(name.path) if self.is_test_file(f)]
            elif not name.fileless:
                files.append(name.path)
        fileless = any(n.fileless for n in names)
        if not files and not fileless:
            return Unselectable("no test file is named")
        tests = [n for n in names if n.kind == TEST and (n.parts or n.title)]
        titles = [escaped_title(_words(n))[1:-1] for n in tests]
        only_tests = len(tests) == len(names)
        drop = [i for i, a in enumerate(args) if a.split("=")[0] in _PATH_MODES]
        drop += [i for i, a in enumerate(args) if a.split("=")[0] == "--coverage"]
        drop += [i + 1 for i, a in enumerate(args) if a in ("--changedSince",)]
        if only_tests:
            drop += [
                i for i, a in enumerate(args) if a.split("=")[0] in ("-t", "--testNamePattern")
            ]
            drop += [i + 1 for i, a in enumerate(args) if a in ("-t", "--testNamePattern")]
        pattern = ["-t", f"^(?:{'|'.join(titles)})$"] if only_tests else []
        if fileless:
            kept = [a for i, a in enumerate(args) if i not in drop]
            paths: list[str] = []
        else:
            kept = replace_paths(args, [], _WITH_VALUE, drop, numeric={"--bail", "-b"})
            paths = ["--runTestsByPath", *(project.relative(f) for f in dict.fromkeys(files))]
        targets = [
            fileless_target(n, _words(n), file_first=True)
            if n.fileless
            else targets_by_path([n], project, SEPARATOR, files)[0]
            for n in names
        ]
        return Selected(
            [*self.listing([*kept, "--coverage=false"]), *pattern, *paths], tuple(targets)
        )

    def listing(self, args: list[str]) -> list[str]:
        """`--verbose`, and the default reporter beside reporters that list no test (`summary`,
        a dot reporter): `--verbose` lists every test only through the default one."""
        out = args if "--verbose" in args else [*args, "--verbose"]
        chosen = _reporters(args)
        return out if not chosen or "default" in chosen else [*out, "--reporters=default"]

    def is_test_file(self, path: str) -> bool:
        return is_js_test_file(path)

    def read_report(self, reports: Mapping[str, bytes]) -> dict[str, str] | None:
        return None

    def ran_nothing(self, reading: Reading, exit_code: int | None, lines: list[str]) -> str | None:
        if reading.outcomes or reading.counts.get("passed"):
            return None
        return next((x.strip() for x in lines if _NO_TESTS.match(x.strip())), None)


def _reporters(args: list[str]) -> list[str]:
    """The reporters `--reporters` names (`--reporters=a`, `--reporters a`, repeated)."""
    found: list[str] = []
    for i, arg in enumerate(args):
        if arg.startswith("--reporters="):
            found.append(arg.split("=", 1)[1])
        elif arg == "--reporters" and i + 1 < len(args):
            found.append(args[i + 1])
    return found


def _tree_line(line: str, file: str, describes: list[str], outcomes: dict[str, str]) -> None:
    """One line of the verbose tree: a test (a mark, indented two spaces a level) or the
    name of the describe block the next lines are in."""
    depth = max(0, (len(line) - len(line.lstrip())) // 2 - 1)
    del describes[depth:]
    t = _TREE.match(line)
    if t:
        name = strip_duration(t.group(3))
        ident = _ident(file, [*describes, name])
        outcomes[ident] = worst(outcomes.get(ident), _MARK[t.group(2)])
    else:
        describes.extend([""] * (depth - len(describes)))
        describes.append(line.strip())


def _words(name: Name) -> tuple[str, ...]:
    """A test's title path: after its file, or jest's own `describe › test` without one."""
    return title_words(name, "›") if name.fileless else name.parts


def _ident(file: str, names: list[str]) -> str:
    return SEPARATOR.join([file, *(n.strip() for n in names)])


def _failure(lines: list[str], start: int, test_file: str) -> tuple[str, str]:
    """The first line of what jest printed under a `●` header (with the Expected/Received
    pair, or the snapshot's name, when they follow), and the frame in the test's own file."""
    said = ""
    extra: list[str] = []
    where = ""
    for line in lines[start : start + 120]:
        if _HEADER.match(line) or _FILE.match(line) or _SUMMARY.match(line):
            break
        text = line.strip()
        if not said and text:
            said = text
            continue
        if said and text.startswith(("Expected:", "Received:", "Snapshot name:")):
            extra.append(text)
        frame = _FRAME.match(line)
        if frame:
            place = frame.group(1)
            if place.startswith(test_file + ":"):
                where = place
                break
            if not where and "node_modules" not in place:
                where = place
    if extra:
        said = f"{said} ({'; '.join(extra[:2])})"
    return said, where


JEST = Jest()
