"""vitest (v3 and v4), its default and verbose reporters, with `--typecheck`.

A test's id is vitest's own `file > describe > test` (the ` FAIL ` lines and the verbose
reporter print it whole). The default reporter lists the tests of a failed file as a tree
without the describe names, so a passing test there is known by id only at the file's top
level; the counts come from the `Tests` summary line.

Failures of their own: a file that failed outside any test (`Failed Suites`: an import error,
a type error at the top of a `.test-d.ts`, a failing `beforeAll`) is an `error` outcome whose
id is the file (or `file > describe`); vitest's `Unhandled Errors` (an exception thrown after a
test ended, a type error in a source file under `--typecheck`, a tsc failure) go to
`Reading.errors`, one line each, as does an `Errors  N error` count nothing else explains.
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

_RULE = "⎯"
_BANNER = re.compile(r"^⎯+\s*(.*?)\s*⎯+(?:\[\d+/\d+\]⎯*)?$")
_RUN = re.compile(r"^\s*RUN\s+v\d+\.\d+")
_FILE = re.compile(r"^ ([✓❯×↓]) (?: ?TS  )?(\S+) \((\d+) tests?(?: \| [^)]*)?\)")
_TREE = re.compile(r"^(\s+)([✓×↓□·]) (.+)$")
_VERBOSE = re.compile(r"^ ([✓×↓□]) (?: ?TS  )?(\S+ > .+)$")
_FAIL = re.compile(r"^ FAIL  (?:TS  )?(.+?)(?: \[ [^\]]+ \])?$")
_LOCATION = re.compile(r"^\s*❯ (?:\S+ )?(\S+?:\d+:\d+)$")
_ERROR_LINE = re.compile(r"^(?:[A-Z]\w*)?(?:Error|Exception)(?: \[\w+\])?: ?.*|^error TS\d+:.*")
_SUMMARY = re.compile(r"^\s*(Test Files|Tests|Type Errors|Errors|Snapshots)  (.*)$")
_COUNT = re.compile(r"(\d+) (failed|passed|skipped|todo|error|errors)")
_TOTAL = re.compile(r"\((\d+)\)\s*$")
_MARK = {"✓": PASSED, "×": FAILED, "↓": SKIPPED, "□": SKIPPED}
_WITH_VALUE = {
    "-c", "--config", "-r", "--root", "--dir", "--project", "--reporter", "-t",
    "--testNamePattern", "--environment", "--pool", "--mode", "--outputFile", "--shard",
    "--maxWorkers", "--minWorkers", "--retry", "--testTimeout", "--exclude", "--workspace",
}  # fmt: skip
_SUBCOMMANDS = {"run", "watch", "dev", "related", "bench"}
_NO_TESTS = re.compile(r"^No test files found\b")


_OUTPUTS: tuple[Output, ...] = (
    Output("--outputFile", dotted=True),
    Output("--coverage.reportsDirectory"),
)
"""Its options that name a file or directory for it to write."""


class Vitest:
    name = "vitest"
    config_files = ("vitest.config.*", "vite.config.*", "vitest.workspace.*", "package.json")
    artifacts = ("coverage/", "*.tsbuildinfo", "./junit.xml", "./html")
    setup = RunSetup()
    caches: tuple[str, ...] = (".vite", ".vitest")
    default: Default | None = None

    def sniff(self, lines: list[str]) -> float:
        score = 0.0
        for line in lines:
            if _RUN.match(line):
                score += 0.5
            elif _SUMMARY.match(line) and (" Test Files " in f" {line}" or "Tests  " in line):
                score += 0.3
            elif _FAIL.match(line) or _FILE.match(line):
                score += 0.1
            elif line.startswith(_RULE):
                score += 0.05
        return min(score, 1.0)

    def read(self, lines: list[str]) -> Reading:
        outcomes: dict[str, str] = {}
        messages: dict[str, str] = {}
        locations: dict[str, str] = {}
        errors: list[str] = []
        counts: dict[str, int] = {}
        _read_tree(lines, outcomes)
        banner = ""
        i = 0
        while i < len(lines):
            line = lines[i]
            b = _BANNER.match(line)
            if b and b.group(1):
                banner = b.group(1)
                if banner not in ("Failed Tests", "Failed Suites", "Unhandled Errors"):
                    if not banner.startswith(("Failed Tests", "Failed Suites")):
                        errors.append(_block_error(banner, lines, i + 1))
                i += 1
                continue
            f = _FAIL.match(line)
            if f:
                ident = f.group(1).strip()
                suite = banner.startswith("Failed Suites") or line.rstrip().endswith("]")
                outcomes[ident] = ERROR if suite else FAILED
                said, where = _first_error(lines, i + 1, ident.split(" > ")[0])
                if said:
                    messages[ident] = said
                if where:
                    locations[ident] = where
            s = _SUMMARY.match(line)
            if s:
                _summary(s.group(1), s.group(2), counts)
            i += 1
        errors = [e for e in errors if e]
        if counts.get("errors", 0) > len(errors):
            errors.append(f"vitest: {counts['errors']} error(s) outside tests")
        return Reading(
            outcomes=outcomes,
            messages=messages,
            errors=errors,
            incomplete=_incomplete(counts),
            counts={k: v for k, v in counts.items() if k in ("passed", "failed", "skipped")},
            locations=locations,
        )

    def writes(self, args: list[str]) -> tuple[str, ...]:
        return written(args, _OUTPUTS)

    def invoked_at(self, argv: list[str]) -> int | None:
        at = find_binary(argv, {"vitest"})
        if at is None:
            return None
        at += 1
        if at < len(argv) and argv[at] in _SUBCOMMANDS:
            at += 1
        return at

    def stop_flags(self, args: list[str]) -> list[StopFlag]:
        return option_flags(args, {"--bail"}, optional_number=True)

    def select(
        self, args: list[str], names: Sequence[Name], project: Project
    ) -> Selected | Unselectable:
        """Only these files (a directory as its test files: vitest's filters are substrings of
        paths, which a directory name would match elsewhere too), a test by its file and full
        title (`-t`, only when every name is a test), a test named without its file by its
        full title alone in every file the command runs, with the coverage gate off (one file
        cannot meet a whole suite's) and, unless the command picks a reporter, the verbose
        one: the default reporter names no passing test, and a proof must see its tests pass
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
        only_tests = len(tests) == len(names)
        titles = [escaped_title(_words(n))[1:-1] for n in tests]
        drop = [i for i, a in enumerate(args) if a.split("=")[0].startswith("--coverage")]
        pattern = ["-t", f"^(?:{'|'.join(titles)})$"] if only_tests else []
        if only_tests:
            drop += [
                i for i, a in enumerate(args) if a.split("=")[0] in ("-t", "--testNamePattern")
            ]
            drop += [i + 1 for i, a in enumerate(args) if a in ("-t", "--testNamePattern")]
        if fileless:
            kept, shown = [a for i, a in enumerate(args) if i not in drop], []
        else:
            shown = [project.relative(f) for f in dict.fromkeys(files)]
            kept = replace_paths(args, [], _WITH_VALUE, drop, numeric={"--bail"})
        targets = [
            fileless_target(n, _words(n), file_first=True)
            if n.fileless
            else targets_by_path([n], project, " > ", files)[0]
            for n in names
        ]
        return Selected(
            [*self.listing([*kept, "--coverage.enabled=false"]), *pattern, *shown], tuple(targets)
        )

    def listing(self, args: list[str]) -> list[str]:
        chosen = any(a.split("=")[0] == "--reporter" for a in args)
        return args if chosen else [*args, "--reporter=verbose"]

    def is_test_file(self, path: str) -> bool:
        return is_js_test_file(path)

    def read_report(self, reports: Mapping[str, bytes]) -> dict[str, str] | None:
        return None

    def ran_nothing(self, reading: Reading, exit_code: int | None, lines: list[str]) -> str | None:
        if reading.outcomes or reading.counts.get("passed"):
            return None
        return next((x.strip() for x in lines if _NO_TESTS.match(x.strip())), None)


def _read_tree(lines: list[str], outcomes: dict[str, str]) -> None:
    """Per-test marks: the verbose reporter's whole ids, else the default reporter's tree
    under a failed file (top-level tests only: deeper lines lack their describe names)."""
    current = ""
    for line in lines:
        v = _VERBOSE.match(line)
        if v and v.group(1) in _MARK:
            ident = strip_duration(v.group(2))
            outcomes[ident] = worst(outcomes.get(ident), _MARK[v.group(1)])
            continue
        f = _FILE.match(line)
        if f:
            current = f.group(2)
            continue
        t = _TREE.match(line)
        if t and current and t.group(2) in _MARK:
            depth = (len(t.group(1)) - 3) // 2
            name = strip_duration(t.group(3))
            if depth == 0 or " > " in name:  # vitest 3 prints `describe > test` whole
                ident = f"{current} > {name}"
                outcomes[ident] = worst(outcomes.get(ident), _MARK[t.group(2)])
        elif line.strip() and not line.startswith(" "):
            current = ""


def _first_error(lines: list[str], start: int, test_file: str) -> tuple[str, str]:
    """The `ErrType: message` line after a FAIL header, and the location in the test's own
    file (else the first one printed)."""
    said, where = "", ""
    for line in lines[start : start + 80]:
        if _FAIL.match(line) or _BANNER.match(line):
            break
        if not said and _ERROR_LINE.match(line.strip()):
            said = line.strip()
        loc = _LOCATION.match(line)
        if loc:
            if loc.group(1).startswith(test_file + ":"):
                return said, loc.group(1)
            where = where or loc.group(1)
    return said, where


def _block_error(banner: str, lines: list[str], start: int) -> str:
    """One line for an unhandled error block: its kind, the error, where it was raised."""
    said, where = _first_error(lines, start, "\0")
    if not said:
        return ""
    return f"{banner}: {said}" + (f" ({where})" if where else "")


def _summary(label: str, text: str, counts: dict[str, int]) -> None:
    found = {word: int(n) for n, word in _COUNT.findall(text)}
    if label == "Tests":
        counts["passed"] = found.get("passed", 0)
        counts["failed"] = found.get("failed", 0)
        counts["skipped"] = found.get("skipped", 0) + found.get("todo", 0)
    elif label == "Test Files":
        total = _TOTAL.search(text)
        counts["files_ran"] = sum(found.values())
        counts["files"] = int(total.group(1)) if total else counts["files_ran"]
    elif label == "Errors":
        counts["errors"] = found.get("error", 0) + found.get("errors", 0)


def _incomplete(counts: dict[str, int]) -> str | None:
    if counts.get("files", 0) > counts.get("files_ran", 0):
        return (
            f"vitest ran {counts['files_ran']} of {counts['files']} test files "
            "(stopped early: --bail)"
        )
    return None


VITEST = Vitest()


def _words(name: Name) -> tuple[str, ...]:
    """A test's title path: after its file, or vitest's own `describe > test` without one."""
    return title_words(name, ">") if name.fileless else name.parts
