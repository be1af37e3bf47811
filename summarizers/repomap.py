"""A map of the repository for the planner: the files most relevant to the task, with their
symbols and signatures, cut to a token budget.

Ranking is cheap first (`repomap_rank`: the task's words, weighed by kind, in each path and
file text, and which files import which), then exact for the leading candidates, which are
parsed to see which define a name the task uses. Everything else is parsed only if the budget
reaches it, so a cold map of a 20,000-file repository parses tens of files, not all of them.
The budget shortens entries before it drops them (`repomap_fit`), so the map is never empty
while its first file's path fits. Per-file facts are cached by git blob id
(`repomap_facts`): a second map of an unchanged repository reparses nothing.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from pathlib import Path

from summarizers.repofiles import TrackedFile, tracked_files
from summarizers.repomap_facts import FileFacts, RepoMapCache, facts_for
from summarizers.repomap_fit import fit
from summarizers.repomap_rank import definition_score, early_score, find_mentions, matches_task
from summarizers.repomap_words import task_words

__all__ = ["DEFAULT_BUDGET", "FileFacts", "RepoMapCache", "build_repo_map"]

DEFAULT_BUDGET = 1000
MIN_CANDIDATES = 20
"""At least this many of the best early-scored files are parsed before the final ranking."""


def build_repo_map(
    root: Path, task: str, *, budget: int = DEFAULT_BUDGET, cache: RepoMapCache | None = None
) -> str:
    """Tracked files ranked for `task`, each with its public symbols, within `budget` tokens."""
    root = Path(root)
    cache = cache if cache is not None else RepoMapCache()
    files = tracked_files(root)
    words = task_words(task)
    mentions = find_mentions(root, (f.path for f in files), words)
    early = {f.path: early_score(f.path, mentions) for f in files}
    by_early = sorted(files, key=lambda f: (-early[f.path], f.path.count("/"), f.path))
    facts: Callable[[TrackedFile], FileFacts] = functools.cache(
        lambda file: facts_for(root, file, cache)
    )
    count = max(MIN_CANDIDATES, budget // 20)
    candidates = [f for f in by_early[:count] if early[f.path] > 0]
    exact = {
        f.path: early[f.path] + definition_score(facts(f).names, facts(f).name_words, mentions)
        for f in candidates
    }
    ranked = sorted(candidates, key=lambda f: (-exact[f.path], f.path))
    ranked += [f for f in by_early if f.path not in exact]
    return fit(
        [(f.path, functools.partial(facts, f)) for f in ranked],
        lambda symbol: matches_task(symbol, words, task),
        budget,
    )
