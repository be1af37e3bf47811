"""A map of the repository for the planner: the files most relevant to the task, with their
symbols and signatures, cut to a token budget.

Ranking is cheap first (`repomap_rank`: the task's words in each path and file text), then
exact for the leading candidates, which are parsed to see which define a name the task uses.
Everything else is parsed only if the budget reaches it, so a cold map of a 20,000-file
repository parses tens of files, not all of them. Per-file facts are cached by git blob id: a
second map of an unchanged repository reparses nothing.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from summarizers.ast_common import language_for
from summarizers.ast_scope import extract_symbols
from summarizers.repofiles import TrackedFile, read_beneath, tracked_files
from summarizers.repomap_rank import (
    definition_score,
    early_score,
    find_mentions,
    matches_task,
    split_words,
    task_terms,
)
from summarizers.tokens import estimate_tokens, utf8_len

CACHE_VERSION = 3
MAX_FILE_BYTES = 1_000_000
MAX_LINES_PER_FILE = 30
MIN_CANDIDATES = 20
"""At least this many of the best early-scored files are parsed before the final ranking."""


@dataclass(frozen=True)
class FileFacts:
    symbols: list[tuple[str, str, str, int, bool]]
    """(name, kind, signature, line, public) in file order."""
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

    def _path(self, key: str) -> Path:
        assert self.directory is not None
        safe = key.replace(":", "-")
        return self.directory / f"v{CACHE_VERSION}" / safe[-2:] / f"{safe}.json"

    def _load(self, key: str) -> FileFacts | None:
        try:
            raw = json.loads(self._path(key).read_text())
            symbols = [tuple(s) for s in raw["symbols"]]
            return FileFacts(symbols, raw["error"], raw["names"], raw["name_words"])  # type: ignore[arg-type]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def _store(self, key: str, facts: FileFacts) -> None:
        path = self._path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            data = {
                "symbols": facts.symbols,
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
    terms = task_terms(task)
    mentions = find_mentions(root, (f.path for f in files), terms)
    early = dict.fromkeys((f.path for f in files), 0.0)
    for path in mentions.in_path.keys() | mentions.in_text.keys() | _named_in(task, early):
        early[path] = early_score(path, task, mentions)
    by_early = sorted(files, key=lambda f: (-early[f.path], f.path.count("/"), f.path))
    facts: Callable[[TrackedFile], FileFacts] = functools.cache(
        lambda file: _facts_for(root, file, cache)
    )
    count = max(MIN_CANDIDATES, budget // 20)
    candidates = [f for f in by_early[:count] if early[f.path] > 0]
    exact = {
        f.path: early[f.path]
        + definition_score(facts(f).names, facts(f).name_words, mentions, terms)
        for f in candidates
    }
    ranked = sorted(candidates, key=lambda f: (-exact[f.path], f.path))
    ranked += [f for f in by_early if f.path not in exact]
    return _fit(ranked, facts, lambda symbol: matches_task(symbol, terms, task), budget)


def _named_in(task: str, paths: Iterable[str]) -> set[str]:
    """Paths the task spells out (whole, or by a file name long enough to mean that file)."""
    named = set()
    for path in paths:
        name = path[path.rfind("/") + 1 :]
        if path in task or (len(name) > 4 and name in task):
            named.add(path)
    return named


def _facts_for(root: Path, file: TrackedFile, cache: RepoMapCache) -> FileFacts:
    language = language_for(file.path)
    if language is None:
        return FileFacts([])
    key = f"{language}:{file.blob_id}"
    cached = cache.get(key)
    if cached is not None:
        return cached
    data = read_beneath(root, file.path, MAX_FILE_BYTES)
    if data is None:
        return FileFacts([], "unreadable")
    if len(data) > MAX_FILE_BYTES or b"\x00" in data:
        facts = FileFacts([], "binary or too large")
    else:
        result = extract_symbols(data.decode("utf-8", "replace"), language)
        symbols = [(s.name, s.kind, s.signature, s.line, s.public) for s in result.symbols]
        last = sorted({s.name.rsplit(".", 1)[-1] for s in result.symbols})
        facts = FileFacts(
            symbols,
            str(result.error) if result.error else None,
            sorted({n.lower() for n in last}),
            sorted({w for n in last for w in split_words(n)}),
        )
    cache.put(key, facts)
    return facts


def _render_file(path: str, facts: FileFacts, named: Callable[[str], bool]) -> str:
    """The file's public symbols in file order; those the task names are always among them."""
    note = f" (does not parse at {facts.error.split(': ', 1)[0]})" if facts.error else ""
    if not facts.symbols:
        return path + note + "\n"
    lines = [f"{path}:{note}"]
    wanted = {s[0] for s in facts.symbols if named(s[0])}
    wanted |= {name.rsplit(".", 1)[0] for name in wanted if "." in name}  # and their classes
    shown = [s for s in facts.symbols if s[4] or s[0] in wanted] or facts.symbols[:5]
    constants = [s[0] for s in shown if s[1] == "variable" and "." not in s[0]]
    constants.sort(key=lambda name: name not in wanted)
    if constants:
        lines.append("  " + _clip(", ".join(constants), 100))
    members = [s for s in shown if s[1] != "variable"]
    room = MAX_LINES_PER_FILE - sum(1 for s in members if s[0] in wanted)
    listed = []
    for symbol in members:
        if symbol[0] in wanted or room > 0:
            listed.append(symbol)
            room -= symbol[0] not in wanted
    for name, _kind, signature, _line, _public in listed:
        lines.append("  " * (name.count(".") + 1) + signature)
    if len(members) > len(listed):
        lines.append(f"  ... {len(members) - len(listed)} more")
    return "\n".join(lines) + "\n"


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 4] + ", ..."


def _header(k: int, total: int) -> str:
    """The map is printed under a "Repository map:" heading, so it does not carry one itself."""
    return f"{k} of {total} tracked files, the most relevant to the task first:\n"


def _footer(k: int, total: int) -> str:
    return f"[{total - k} more files not shown]\n" if k < total else ""


def _fit(
    ranked: list[TrackedFile],
    facts: Callable[[TrackedFile], FileFacts],
    named: Callable[[str], bool],
    budget: int,
) -> str:
    """The most files that fit, found by binary search over the ranked list (as aider does).

    Blocks are rendered (and their files parsed) lazily: only as many as could possibly fit.
    """
    total = len(ranked)
    limit = 4 * max(0, budget)
    blocks: list[str] = []
    sizes = [0]
    for file in ranked:
        if sizes[-1] > limit:
            break
        blocks.append(_render_file(file.path, facts(file), named))
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
