"""Shared helpers for parsers: context windows and file:line references into the repository."""

from __future__ import annotations

import re
from collections.abc import Iterable

RADIUS = 3

_PY_FRAME = re.compile(r'File "([^"]+)", line (\d+)')
_EXTENSIONS = (
    "py|pyi|pyx|js|mjs|cjs|jsx|ts|tsx|mts|cts|go|rs|java|kt|scala|c|h|cc|cpp|hpp|rb|php|cs|"
    "swift|sh|toml|ya?ml|json|cfg|ini|txt|md|rst|html|css|vue|svelte|sql"
)
_PATH_REF = re.compile(
    r"(?<![\w/.\\-])((?:file://)?(?:[A-Za-z]:)?[\w.~/\\-]*\.(?:" + _EXTENSIONS + r"))"
    r"(?::(\d+)(?::(\d+))?|\((\d+),(\d+)\))"
)
_LIBRARY_MARKERS = (
    "site-packages/",
    "dist-packages/",
    "/lib/python",
    "node_modules/",
    "node:",
    "<frozen",
    "/usr/lib/",
    "/usr/local/lib/",
    "/usr/share/",
    ".pyenv/",
    "/nix/store/",
)


def windows(
    indices: Iterable[int], lo: int, hi: int, radius: int = RADIUS
) -> list[tuple[int, int]]:
    """Ranges [i-radius, i+radius] clipped to [lo, hi), merged where they overlap or touch."""
    merged: list[tuple[int, int]] = []
    for i in sorted(set(indices)):
        start, end = max(lo, i - radius), min(hi, i + radius + 1)
        if start >= end:
            continue
        if merged and start <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], end))
        else:
            merged.append((start, end))
    return merged


def prioritize(blocks: list[tuple[int, int]], key_line: int | None) -> list[tuple[int, int]]:
    """The block holding the error line first, then the first block, then the rest in order."""
    if not blocks:
        return blocks
    first = next((b for b in blocks if key_line is not None and b[0] <= key_line < b[1]), None)
    ordered = [first] if first else []
    ordered += [b for b in blocks if b is not first]
    if first and len(ordered) > 2 and ordered[1] is not blocks[0]:
        ordered.remove(blocks[0])
        ordered.insert(1, blocks[0])
    return ordered


def is_library_path(path: str) -> bool:
    return any(marker in path for marker in _LIBRARY_MARKERS)


def repo_relative(path: str, root: str | None) -> str | None:
    """`path` as the repository sees it, or None when it points outside (stdlib, packages)."""
    if path.startswith("file://"):
        path = path[len("file://") :]
    if root:
        root = root.rstrip("/")
        if path.startswith(root + "/"):
            return path[len(root) + 1 :]
    if is_library_path(path):
        return None
    if root and path.startswith("/"):
        return None
    return path


def references(line: str, root: str | None) -> list[str]:
    """file:line references in one log line that point into the repository."""
    found: list[str] = []
    for m in _PY_FRAME.finditer(line):
        rel = repo_relative(m.group(1), root)
        if rel:
            found.append(f"{rel}:{m.group(2)}")
    if found:
        return found
    for m in _PATH_REF.finditer(line):
        path = m.group(1)
        lineno = m.group(2) or m.group(4)
        rel = repo_relative(path, root)
        if rel:
            found.append(f"{rel}:{lineno}")
    return found


def add_unique(target: list[str], items: Iterable[str], cap: int = 6) -> None:
    for item in items:
        if item not in target and len(target) < cap:
            target.append(item)


_EXC_NAME = re.compile(
    r"^([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt|Warning|Failure|Fault|Timeout|"
    r"Iteration|Invalid|NotFound|Denied|Violation)|[A-Z][\w.]*Error\b[\w.]*|AssertionError)"
    r"(?: \[\w+\])?(?::\s?(.*))?$"
)


def split_exception(text: str) -> tuple[str, str]:
    """("ValueError", "bad") from "ValueError: bad"; ("", text) when it names no exception."""
    m = _EXC_NAME.match(text.strip())
    if not m:
        return "", text.strip()
    return m.group(1), (m.group(2) or "").strip()


_TEST_FILE = re.compile(
    r"(?:^|/)(?:test_[^/]*|[^/]*_tests?\.\w+|[^/]*\.(?:test|spec)\.[cm]?[jt]sx?|conftest\.py)$"
)
_TEST_DIR = re.compile(r"(?:^|/)(?:tests?|__tests__|testing)/")


def is_test_path(path: str) -> bool:
    return bool(_TEST_FILE.search(path) or _TEST_DIR.search(path))


def _in_tests_own_file(path: str, failure_id: str) -> bool:
    """Whether `path` is the file the failing test is defined in, for an id that names
    its file (`tests/test_x.py::T::test`) or a dotted id (`tests.test_x.T.test`)."""
    own = failure_id.split("::")[0]
    if own.endswith(".py") or "/" in own:
        return path == own or path.endswith("/" + own)
    parts = path.removesuffix(".py").split("/")
    return any(failure_id.startswith(".".join(parts[k:]) + ".") for k in range(len(parts)))


def assertion_site(frames: list[str], failure_id: str) -> tuple[str, str]:
    """(site, origin) from a traceback's repository frames, outermost first.

    The site is the innermost frame in the test's own file, else in any test file, else the
    innermost frame: the line a person fixing the test looks at first. A library line every
    failure passes through (a middle frame) is never the site. The origin is the innermost
    frame, named only when it differs from the site.
    """
    if not frames:
        return "", ""

    def path(frame: str) -> str:
        return frame.rsplit(":", 1)[0]

    own = [f for f in frames if _in_tests_own_file(path(f), failure_id)]
    tests = own or [f for f in frames if is_test_path(path(f))]
    site = (tests or frames)[-1]
    return site, "" if frames[-1] == site else frames[-1]
