"""A map of the repository for the planner: the files most relevant to the task, with their
symbols and signatures, cut to a token budget.

Relevance is identifier overlap between the task and each file's path and symbol names, plus
how many other files use the names a file defines. Parsing is what costs, so per-file facts are
cached by git blob id: a second map of an unchanged repository reparses nothing.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from summarizers.ast_common import language_for
from summarizers.ast_scope import extract_symbols
from summarizers.repofiles import TrackedFile, tracked_files
from summarizers.tokens import estimate_tokens, utf8_len

_T = TypeVar("_T")
CACHE_VERSION = 2
MAX_FILE_BYTES = 1_000_000
MAX_LINES_PER_FILE = 30
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]{2,}")
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOP = set(
    "the and for with that this from into when then than should must make makes add adds use "
    "uses using fix fixes change changes update updates new old all any can not but are was "
    "were its it's has have had does did get set let var def self cls none true false return "
    "function class const import export test tests file files code please also only each".split()
)


@dataclass(frozen=True)
class FileFacts:
    symbols: list[tuple[str, str, str, int, bool]]
    """(name, kind, signature, line, public) in file order."""
    words: list[str]
    """Identifiers the file uses (for references between files)."""
    error: str | None = None
    names: list[str] = field(default_factory=list)
    """Lower-cased last components of the symbol names."""
    name_words: list[str] = field(default_factory=list)
    """Sub-words of the symbol names ("verifyCredential" -> verify, credential)."""


@dataclass
class RepoMapCache:
    """Per-blob parse results, in memory and optionally persisted under `directory`."""

    directory: Path | None = None
    hits: int = 0
    misses: int = 0
    _facts: dict[str, FileFacts] = field(default_factory=dict)
    _memo: dict[tuple[str, str], object] = field(default_factory=dict)

    def get(self, key: str) -> FileFacts | None:
        facts = self._facts.get(key)
        if facts is None and self.directory is not None:
            facts = self._load(key)
            if facts is not None:
                self._facts[key] = facts
        if facts is None:
            self.misses += 1
        else:
            self.hits += 1
        return facts

    def put(self, key: str, facts: FileFacts) -> None:
        self._facts[key] = facts
        if self.directory is not None:
            self._store(key, facts)

    def memo(self, what: str, snapshot: str, build: Callable[[], _T]) -> _T:
        """Whole-repository results for one exact set of file versions (in memory only)."""
        key = (what, snapshot)
        if key not in self._memo:
            self._memo[key] = build()
        return self._memo[key]  # type: ignore[return-value]

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        safe = key.replace(":", "-")
        return self.directory / f"v{CACHE_VERSION}" / safe[-2:] / f"{safe}.json"

    def _load(self, key: str) -> FileFacts | None:
        try:
            raw = json.loads(self._path(key).read_text())
            symbols = [tuple(s) for s in raw["symbols"]]
            return FileFacts(symbols, raw["words"], raw["error"], raw["names"], raw["name_words"])  # type: ignore[arg-type]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _store(self, key: str, facts: FileFacts) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = {
                "symbols": facts.symbols,
                "words": facts.words,
                "error": facts.error,
                "names": facts.names,
                "name_words": facts.name_words,
            }
            with tempfile.NamedTemporaryFile(
                "w", dir=path.parent, delete=False, suffix=".tmp"
            ) as fh:
                json.dump(data, fh)
            os.replace(fh.name, path)
        except OSError:
            pass  # a cache that cannot be written is only slower


def build_repo_map(
    root: Path, task: str, *, budget: int = 1500, cache: RepoMapCache | None = None
) -> str:
    """Tracked files ranked for `task`, each with its public symbols, within `budget` tokens."""
    root = Path(root)
    cache = cache if cache is not None else RepoMapCache()
    files = tracked_files(root)
    facts = {f.path: _facts_for(root, f, cache) for f in files}
    snapshot = hashlib.sha1("\n".join(f"{f.path} {f.blob_id}" for f in files).encode()).hexdigest()
    referenced = cache.memo("references", snapshot, lambda: _reference_counts(facts))
    rarity = cache.memo("idf", snapshot, lambda: _idf(facts))
    terms = task_terms(task)
    scores = {f.path: _score(f.path, facts[f.path], terms, task, referenced, rarity) for f in files}
    ranked = sorted(files, key=lambda f: (-scores[f.path], f.path))
    return _fit([(f.path, facts[f.path]) for f in ranked], len(files), budget)


def _facts_for(root: Path, file: TrackedFile, cache: RepoMapCache) -> FileFacts:
    language = language_for(file.path)
    if language is None:
        return FileFacts([], [])
    key = f"{language}:{file.blob_id}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    try:
        data = (root / file.path).read_bytes()
    except OSError:
        return FileFacts([], [], "unreadable")
    if len(data) > MAX_FILE_BYTES or b"\x00" in data:
        facts = FileFacts([], [], "binary or too large")
    else:
        source = data.decode("utf-8", "replace")
        result = extract_symbols(source, language)
        symbols = [(s.name, s.kind, s.signature, s.line, s.public) for s in result.symbols]
        last = sorted({s.name.rsplit(".", 1)[-1] for s in result.symbols})
        facts = FileFacts(
            symbols,
            sorted(set(_WORD.findall(source))),
            str(result.error) if result.error else None,
            sorted({n.lower() for n in last}),
            sorted({w for n in last for w in split_words(n)}),
        )
    cache.put(key, facts)
    return facts


def _reference_counts(facts: dict[str, FileFacts]) -> dict[str, int]:
    """For each file, how many other files use a name it defines at top level."""
    definers: dict[str, list[str]] = {}
    for path, f in facts.items():
        for name, _kind, _sig, _line, _public in f.symbols:
            if "." not in name and len(name) >= 4:
                definers.setdefault(name, []).append(path)
    definers = {n: paths for n, paths in definers.items() if len(paths) <= 3}
    users: dict[str, set[str]] = {}
    for path, f in facts.items():
        for word in f.words:
            for definer in definers.get(word, ()):
                if definer != path:
                    users.setdefault(definer, set()).add(path)
    return {path: len(u) for path, u in users.items()}


def split_words(identifier: str) -> list[str]:
    """ "verifyCredential" -> ["verify", "credential"]; "token_store" -> ["token", "store"]."""
    out = []
    for part in re.split(r"[_\W]+", identifier):
        out += [w.lower() for w in _CAMEL.findall(part)]
    return out


def task_terms(task: str) -> set[str]:
    terms = set()
    for ident in re.findall(r"[A-Za-z_][\w]*", task):
        for w in [ident.lower(), *split_words(ident)]:
            if len(w) >= 3 and w not in _STOP:
                terms.add(w)
    return terms


def _idf(facts: dict[str, FileFacts]) -> dict[str, float]:
    """log(N / document frequency) of every path and symbol word: rare words identify files."""
    df: dict[str, int] = {}
    for path, f in facts.items():
        for word in set(split_words(path)) | set(f.name_words) | set(f.names):
            df[word] = df.get(word, 0) + 1
    n = max(1, len(facts))
    return {w: math.log(1 + n / c) for w, c in df.items()}


def _score(
    path: str,
    facts: FileFacts,
    terms: set[str],
    task: str,
    referenced: dict[str, int],
    rarity: dict[str, float],
) -> float:
    score = 0.0
    name = path.rsplit("/", 1)[-1]
    if path in task or (len(name) > 4 and name in task):
        score += 20
    score += 3 * sum(rarity.get(t, 0.0) for t in terms.intersection(split_words(path)))
    score += 3 * sum(rarity.get(t, 0.0) for t in terms.intersection(facts.names))
    score += sum(rarity.get(t, 0.0) for t in terms.intersection(facts.name_words))
    score += 0.5 * math.log2(1 + referenced.get(path, 0))
    return score


def _render_file(path: str, facts: FileFacts) -> str:
    note = f" (does not parse at {facts.error.split(': ', 1)[0]})" if facts.error else ""
    if not facts.symbols:
        return path + note + "\n"
    head = f"{path}:{note}"
    lines = [head]
    shown = [s for s in facts.symbols if s[4]] or facts.symbols[:5]
    constants = [s[0] for s in shown if s[1] == "variable" and "." not in s[0]]
    if constants:
        lines.append("  " + _clip(", ".join(constants), 100))
    members = [s for s in shown if s[1] != "variable"]
    for name, _kind, signature, _line, _public in members[:MAX_LINES_PER_FILE]:
        lines.append("  " * (name.count(".") + 1) + signature)
    if len(members) > MAX_LINES_PER_FILE:
        lines.append(f"  ... {len(members) - MAX_LINES_PER_FILE} more")
    return "\n".join(lines) + "\n"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 4] + ", ..."


def _header(k: int, total: int) -> str:
    return f"Repository map: {k} of {total} tracked files, most relevant to the task first.\n"


def _footer(k: int, total: int) -> str:
    return f"[{total - k} more files not shown]\n" if k < total else ""


def _fit(ranked: list[tuple[str, FileFacts]], total: int, budget: int) -> str:
    """The most files that fit, found by binary search over the ranked list (as aider does).

    Blocks are rendered lazily: only as many as could possibly fit are ever built.
    """
    limit = 4 * max(0, budget)
    blocks: list[str] = []
    sizes = [0]
    for path, facts in ranked:
        if sizes[-1] > limit:
            break
        blocks.append(_render_file(path, facts))
        sizes.append(sizes[-1] + utf8_len(blocks[-1]))

    def fits(k: int) -> bool:
        size = utf8_len(_header(k, total)) + sizes[k] + utf8_len(_footer(k, total)) - 1
        return -(-size // 4) <= budget

    lo, hi = 0, len(blocks)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if fits(mid):
            lo = mid
        else:
            hi = mid - 1
    text = (_header(lo, total) + "".join(blocks[:lo]) + _footer(lo, total)).rstrip("\n")
    return text if estimate_tokens(text) <= budget else ""
