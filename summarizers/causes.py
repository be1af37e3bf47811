"""Lines that say why nothing could run: a missing module, a collection error, a missing program.

Such a line is often one among hundreds of frames and yet the whole diagnosis (a test file that
cannot import its dependency fails every test in it), so the compactor keeps these lines under
every budget and in every format, and the run loop reads the missing module's name from them
to tell a broken environment from broken code.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

MAX_CAUSES = 4

_NAMED = [
    re.compile(p)
    for p in (
        r"Cannot find (?:module|package) ['\"][^'\"]+['\"]",
        r"\bNo module named ['\"]?[\w.]+['\"]?",
        r"\blibrary stub for module named ['\"]?[\w.]+['\"]?",
        r"\bImportError: cannot import name .*",
        r"(?:^|: )([\w./-]+: (?:command not found|not found))$",
        r"^(?:/bin/|/usr/bin/)?(?:ba|da|z)?sh: (?:line )?\d+: (.+: "
        r"(?:No such file or directory|Permission denied))$",
    )
]
"""Lines naming the thing that is missing, kept first; the key is the group, else the match."""
_COLLECTION = re.compile(
    r"\bERROR collecting \S+|Interrupted: \d+ errors? during collection"
    r"|\bImportError while importing test module|\bModuleNotFoundError\b|\bImportError\b"
    r"|\bcommand not found\b"
)
"""Lines that say a collection or import failed, without always naming what."""
_COLLECTING = re.compile(r"\bERROR collecting (\S+)")
_DECORATION = " \t_=!-#"


@dataclass(frozen=True)
class Cause:
    line: int
    text: str
    """The line without its decoration (a runner's `____ ... ____`, TAP's `# `)."""
    key: str
    """What another line must contain to say the same (a failure's line naming the module)."""


def find_causes(lines: list[str], limit: int = MAX_CAUSES) -> list[Cause]:
    """Up to `limit` distinct cause lines, in order: those naming what is missing, or when no
    line does, those saying that collection or an import failed."""
    named: list[Cause] = []
    general: list[Cause] = []
    seen: set[str] = set()
    for i, line in enumerate(lines):
        if len(named) >= limit:
            break
        if not _might_be_cause(line):
            continue
        text = _undecorated(line)
        key = _named_key(text)
        target = named
        if key is None:
            if not _COLLECTION.search(text) or text.startswith("throw "):
                continue
            key, target = _collection_key(text), general
        if key in seen:
            continue
        seen.add(key)
        target.append(Cause(i, text, key))
    return (named or general)[:limit]


def _named_key(text: str) -> str | None:
    for pattern in _NAMED:
        m = pattern.search(text)
        if m:
            return m.group(m.lastindex or 0)
    return None


def _collection_key(text: str) -> str:
    """An "ERROR collecting x.py" block head is what the summary line "ERROR x.py" says."""
    m = _COLLECTING.search(text)
    return f"ERROR {m.group(1)}" if m else text


def _might_be_cause(line: str) -> bool:
    """A cheap filter first: huge logs are mostly lines none of the patterns can match."""
    return (
        "odule" in line
        or "ackage" in line
        or "mport" in line
        or "collect" in line
        or "found" in line
        or "No such file" in line
        or "Permission denied" in line
    )


def _undecorated(line: str) -> str:
    text = line.strip()
    if text.startswith("E "):
        text = text[2:]
    return text.strip(_DECORATION)


@dataclass(frozen=True)
class MissingImport:
    language: str
    """python | node"""
    name: str
    """The module as the code names it: `pkg._version`, `is-number`, `./gen.js`."""
    line: str
    """The log line that says so."""


_PY_MISSING = re.compile(r"\bNo module named ['\"]?([\w.]+)['\"]?")
_PY_CANNOT_IMPORT = re.compile(
    r"\bImportError: cannot import name ['\"]?\w+['\"]? from ['\"]([\w.]+)"
)
_NODE_MISSING = re.compile(r"Cannot find (?:module|package) ['\"]([^'\"]+)['\"]")


def missing_imports(lines: list[str]) -> list[MissingImport]:
    """Every distinct module the log says could not be imported, in order of appearance."""
    found: dict[tuple[str, str], MissingImport] = {}
    for line in lines:
        if "odule" not in line and "mport" not in line and "ackage" not in line:
            continue
        text = _undecorated(line)
        for language, pattern in (
            ("python", _PY_MISSING),
            ("python", _PY_CANNOT_IMPORT),
            ("node", _NODE_MISSING),
        ):
            m = pattern.search(text)
            if m:
                key = (language, m.group(1))
                found.setdefault(key, MissingImport(language, m.group(1), text))
                break
    return list(found.values())
