"""What the map knows of one file: its symbols, parsed once per git blob.

Per-file facts are cached by git blob id, in memory and optionally on disk: a second map of
an unchanged repository reparses nothing, and a file edited since it was staged is reparsed
because its id changed.
"""

from __future__ import annotations

import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from summarizers.ast_common import language_for
from summarizers.ast_scope import extract_symbols
from summarizers.repofiles import TrackedFile, read_beneath
from summarizers.repomap_words import split_words

CACHE_VERSION = 3
MAX_FILE_BYTES = 1_000_000


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


def facts_for(root: Path, file: TrackedFile, cache: RepoMapCache) -> FileFacts:
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
