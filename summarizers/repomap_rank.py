"""Which files a task is about, found without parsing the repository.

Parsing every file of a 20,000-file repository costs seconds, so ranking starts from what is
cheap: the words of each path, which of the task's words each source file's text contains (one
read and a few substring tests per file), and which files import which. The task's own words
come first, weighed by kind (repomap_words): a name written as code, a module or file the task
names, an error message the repository spells verbatim count far above a word of prose, and how
rare a word is across the repository says how much a match is worth. How many files import a
file (repomap_graph) orders what the words leave level. Only the leading candidates are then
parsed, to reward files that define a name the task uses over files that merely mention it.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from summarizers.ast_common import language_for
from summarizers.repofiles import read_beneath
from summarizers.repomap_graph import imports_of, in_degrees
from summarizers.repomap_words import (
    TaskWords,
    is_package_file,
    module_components,
    names_file,
    split_words,
)

MAX_SCAN_BYTES = 1_000_000
CODE_WEIGHT = 3.0
"""A task word written as code counts this many times a word of prose."""
PATH_WEIGHT = 3.0
"""A task word in a file's path counts this many times one in its text."""
DEFINES_WEIGHT = 3.0
"""A task word the file defines as a name counts this many times one in its text."""
NAMED_SCORE = 60.0
"""The task spells out the file's path, or its name (long enough to mean that file)."""
MODULE_SCORE = 60.0
"""The task names the file as a module or path of two parts or more (`boltons.fileutils`,
`dayjs/plugin/updateLocale`, `from tomlkit.items import …`)."""
TOP_MODULE_SCORE = 6.0
"""The task names the file as a one-part module (`import tabulate`, `require("js-yaml")`)."""
OWNER_SCORE = 8.0
"""A dotted name's owner is the file's name (`client.send` and `httpx/_client.py`)."""
PHRASE_SCORE = 30.0
"""An error message or quoted text the file spells verbatim, found in no other file (less as
more files spell it)."""
DECAY = 0.7
"""Each further term a file mentions counts this much of the one before (see `decayed`)."""
CENTRALITY_WEIGHT = 0.5
"""Per doubling of the files that import this one: below any word the task writes as code."""


@dataclass
class Mentions:
    """Which task terms each file's path and text contain, and how rare each term is."""

    total: int
    words: TaskWords
    in_path: dict[str, frozenset[str]] = field(default_factory=dict)
    in_text: dict[str, frozenset[str]] = field(default_factory=dict)
    phrases: dict[str, frozenset[str]] = field(default_factory=dict)
    rarity: dict[str, float] = field(default_factory=dict)
    """log(1 + files / files containing the term), for each term or phrase found anywhere."""
    importers: dict[str, int] = field(default_factory=dict)
    """How many other files import each file (absent: none)."""
    modules: dict[str, tuple[str, ...]] = field(default_factory=dict)
    """Each file's `module_components`."""
    _worth: dict[tuple[frozenset[str], frozenset[str]], float] = field(default_factory=dict)

    def weight(self, term: str) -> float:
        return self.rarity.get(term, 0.0) * (CODE_WEIGHT if term in self.words.code else 1.0)

    def worth(self, in_path: frozenset[str], in_text: frozenset[str]) -> float:
        """Thousands of files share a few combinations of common terms, so each combination
        is summed once."""
        key = (in_path, in_text)
        if key not in self._worth:
            self._worth[key] = PATH_WEIGHT * sum(map(self.weight, in_path)) + decayed(
                map(self.weight, in_text)
            )
        return self._worth[key]

    @property
    def rarest(self) -> float:
        """The rarity of a term found in one file only."""
        return math.log(1 + max(1, self.total))

    def centrality(self, path: str) -> float:
        return CENTRALITY_WEIGHT * math.log2(1 + self.importers.get(path, 0))


def decayed(weights: Iterable[float]) -> float:
    """The largest weight whole, each next one DECAY times the one before: a file that
    mentions twenty of a long task's common words (a locale table, a changelog) must not
    outweigh one that defines the one rare name the task is about."""
    return sum(w * DECAY**i for i, w in enumerate(sorted(weights, reverse=True)))


def find_mentions(root: Path, paths: Iterable[str], words: TaskWords) -> Mentions:
    """Reads each source file once (bounded), never parses; unreadable files mention nothing."""
    paths = list(paths)
    mentions = Mentions(total=len(paths), words=words)
    terms = words.terms
    needles = [(t, t.encode()) for t in sorted(terms)]
    phrases = [(p, p.encode()) for p in words.phrases]
    frequency: dict[str, int] = {}
    imports: dict[str, list[tuple[str, ...]]] = {}
    for path in paths:
        found = _path_terms(path, terms)
        if found:
            mentions.in_path[path] = frozenset(found)
        text = _read_source(root, path) if language_for(path) else None
        seen: set[str] = set()
        said: set[str] = set()
        if text:
            seen = {t for t, needle in needles if needle in text}
            said = {p for p, needle in phrases if needle in text}
            imports[path] = imports_of(path, text)
        if seen:
            mentions.in_text[path] = frozenset(seen)
        if said:
            mentions.phrases[path] = frozenset(said)
        for term in found | seen | said:
            frequency[term] = frequency.get(term, 0) + 1
    n = max(1, len(paths))
    mentions.rarity = {t: math.log(1 + n / c) for t, c in frequency.items()}
    mentions.modules = {path: module_components(path) for path in paths}
    mentions.importers = in_degrees(mentions.modules, imports)
    return mentions


def _path_terms(path: str, terms: frozenset[str]) -> set[str]:
    """Terms that are words of the path (or, with an underscore, spelled in it whole)."""
    lowered = path.lower()
    inside = {t for t in terms if t in lowered}
    if not inside:
        return inside  # the common case, decided without splitting the path into words
    words = set(split_words(path))
    return {t for t in inside if t in words or "_" in t}


def _read_source(root: Path, path: str) -> bytes | None:
    """The file's bytes lower-cased, or None when unreadable, binary or too large to matter."""
    data = read_beneath(root, path, MAX_SCAN_BYTES)
    if data is None or len(data) > MAX_SCAN_BYTES or b"\x00" in data:
        return None
    return data.lower()


def early_score(path: str, mentions: Mentions) -> float:
    """Relevance from the path, the text and the imports alone, before anything is parsed."""
    in_path = mentions.in_path.get(path, frozenset())
    in_text = mentions.in_text.get(path, frozenset())
    said = mentions.phrases.get(path, frozenset())
    return (
        _named_score(path, mentions.modules.get(path) or module_components(path), mentions.words)
        + mentions.worth(in_path, in_text)
        + PHRASE_SCORE * sum(mentions.rarity.get(p, 0.0) for p in said) / mentions.rarest
        + mentions.centrality(path)
    )


def _named_score(path: str, components: tuple[str, ...], words: TaskWords) -> float:
    if names_file(words, path):
        return NAMED_SCORE
    module = tuple(part.lstrip("_") for part in components)
    if not module or module[-1] not in words.module_ends:
        return 0.0  # the common case, decided with one look-up
    if len(module) >= 2 and module[-2:] in words.module_pairs:
        return MODULE_SCORE
    package = is_package_file(path)
    if not package and module[-1] in words.owners:
        return OWNER_SCORE
    if module[-1] in words.top_modules and (len(module) == 1 or package):
        return TOP_MODULE_SCORE
    return 0.0


def definition_score(names: Iterable[str], name_words: Iterable[str], mentions: Mentions) -> float:
    """What a parsed file adds: a task term that is a name the file defines counts most."""
    terms = mentions.words.terms
    return DEFINES_WEIGHT * decayed(map(mentions.weight, terms.intersection(names))) + decayed(
        map(mentions.weight, terms.intersection(name_words))
    )


def matches_task(name: str, words: TaskWords, task: str) -> bool:
    """Whether a symbol ("chunked_even", "TokenStore.save") is one the task names as code."""
    return name.rsplit(".", 1)[-1].lower() in words.code or ("." in name and name in task)
