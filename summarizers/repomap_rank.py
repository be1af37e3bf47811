"""Which files a task is about, found without parsing the repository.

Parsing every file of a 20,000-file repository costs seconds, so ranking starts from what is
cheap: the words of each path and which of the task's words each source file's text contains
(one read and a few substring tests per file). How rare a word is across the repository says
how much a match is worth. Only the leading candidates are then parsed, to reward files that
define a name the task uses over files that merely mention it.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from summarizers.ast_common import language_for
from summarizers.repofiles import read_beneath

MAX_SCAN_BYTES = 1_000_000
_CAMEL = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOP = set(
    "the and for with that this from into when then than should must make makes add adds use "
    "uses using fix fixes change changes update updates new old all any can not but are was "
    "were its it's has have had does did get set let var def self cls none true false return "
    "function class const import export test tests file files code please also only each".split()
)


def split_words(identifier: str) -> list[str]:
    """ "verifyCredential" -> ["verify", "credential"]; "token_store" -> ["token", "store"]."""
    out = []
    for part in re.split(r"[_\W]+", identifier):
        out += [w.lower() for w in _CAMEL.findall(part)]
    return out


def task_terms(task: str) -> set[str]:
    """The task's identifiers, whole and split into words, lower-cased, stop words left out."""
    terms = set()
    for ident in re.findall(r"[A-Za-z_][\w]*", task):
        for w in [ident.lower(), *split_words(ident)]:
            if len(w) >= 3 and w not in _STOP:
                terms.add(w)
    return terms


@dataclass
class Mentions:
    """Which task terms each file's path and text contain, and how rare each term is."""

    total: int
    in_path: dict[str, frozenset[str]] = field(default_factory=dict)
    in_text: dict[str, frozenset[str]] = field(default_factory=dict)
    rarity: dict[str, float] = field(default_factory=dict)
    """log(1 + files / files containing the term), for each term found anywhere."""
    _worth: dict[tuple[frozenset[str], frozenset[str]], float] = field(default_factory=dict)

    def worth(self, in_path: frozenset[str], in_text: frozenset[str]) -> float:
        """A term in the path counts three times one in the text. Thousands of files share a
        few combinations of common terms, so each combination is summed once."""
        key = (in_path, in_text)
        if key not in self._worth:
            rarity = self.rarity
            self._worth[key] = 3 * sum(rarity.get(t, 0.0) for t in in_path) + sum(
                rarity.get(t, 0.0) for t in in_text
            )
        return self._worth[key]


def find_mentions(root: Path, paths: Iterable[str], terms: set[str]) -> Mentions:
    """Reads each source file once (bounded), never parses; unreadable files mention nothing."""
    paths = list(paths)
    mentions = Mentions(total=len(paths))
    if not terms:
        return mentions
    needles = [(t, t.encode()) for t in sorted(terms)]
    frequency: dict[str, int] = {}
    for path in paths:
        found = _path_terms(path, terms)
        if found:
            mentions.in_path[path] = frozenset(found)
        text = _read_source(root, path) if language_for(path) else None
        seen = {t for t, needle in needles if needle in text} if text else set()
        if seen:
            mentions.in_text[path] = frozenset(seen)
        for term in found | seen:
            frequency[term] = frequency.get(term, 0) + 1
    n = max(1, len(paths))
    mentions.rarity = {t: math.log(1 + n / c) for t, c in frequency.items()}
    return mentions


def _path_terms(path: str, terms: set[str]) -> set[str]:
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


def early_score(path: str, task: str, mentions: Mentions) -> float:
    """Relevance from the path and the text alone, before anything is parsed."""
    name = path[path.rfind("/") + 1 :]
    named = 20.0 if path in task or (len(name) > 4 and name in task) else 0.0
    in_path = mentions.in_path.get(path, frozenset())
    in_text = mentions.in_text.get(path, frozenset())
    return named + mentions.worth(in_path, in_text)


def definition_score(
    names: Iterable[str], name_words: Iterable[str], mentions: Mentions, terms: set[str]
) -> float:
    """What a parsed file adds: a task term that is a name the file defines counts most."""
    rarity = mentions.rarity
    return 3 * sum(rarity.get(t, 0.0) for t in terms.intersection(names)) + sum(
        rarity.get(t, 0.0) for t in terms.intersection(name_words)
    )


def matches_task(name: str, terms: set[str], task: str) -> bool:
    """Whether a symbol ("chunked_even", "TokenStore.save") is one the task names."""
    return name.rsplit(".", 1)[-1].lower() in terms or ("." in name and name in task)
