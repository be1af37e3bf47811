"""The map's recall on the shipped real suite (fixtures/swebench): for every instance, the files
upstream's fix changes are among the map's entries, at the default budget (issue 31, item 1:
recall at least 0.9, no map larger than before; benchmarks/bench_view.py prints the figures)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from coder.bench.shipped import build_repos
from coder.bench.swebench import load_instances
from coder.bench.swebench_job import prepare_clone
from summarizers.repomap import DEFAULT_BUDGET, build_repo_map
from summarizers.repomap_fit import listed_paths
from summarizers.tokens import estimate_tokens

SUITE = Path(__file__).resolve().parents[2] / "fixtures" / "swebench"
BEFORE_BUDGET = 1500
"""What every map could take before issue 31."""


def _fix_files(patch: str) -> list[str]:
    return re.findall(r"^diff --git a/(\S+)", patch, re.M)


@pytest.fixture(scope="module")
def maps(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[list[str], str]]:
    """Each instance's fix files and the map of its base for its problem statement."""
    root = tmp_path_factory.mktemp("suite")
    clones = build_repos(SUITE / "repos", root / "repos")
    gold = {}
    for line in (SUITE / "instances.jsonl").read_text(encoding="utf-8").splitlines():
        if line.strip():
            gold[json.loads(line)["instance_id"]] = _fix_files(json.loads(line)["patch"])
    out = {}
    for instance in load_instances(SUITE / "instances.jsonl").instances:
        clone = prepare_clone(clones, instance, root / instance.instance_id)
        out[instance.instance_id] = (
            gold[instance.instance_id],
            build_repo_map(clone, instance.problem_statement),
        )
    return out


@pytest.mark.timeout(600)
def test_the_files_upstreams_fix_changes_are_in_the_map(maps):
    found = {ident: [f in listed_paths(text) for f in fix] for ident, (fix, text) in maps.items()}
    hits = sum(sum(flags) for flags in found.values())
    total = sum(len(flags) for flags in found.values())
    listed = (SUITE / "instances.jsonl").read_text(encoding="utf-8").split("\n")
    assert len(maps) == sum(1 for line in listed if line.strip()) >= 16
    assert hits / total >= 0.9, found
    first = [ident for ident, (fix, text) in maps.items() if listed_paths(text)[0] in fix]
    assert len(first) >= 12, sorted(set(maps) - set(first))


@pytest.mark.timeout(600)
def test_every_map_takes_at_most_two_thirds_of_what_it_could_before(maps):
    sizes = {ident: estimate_tokens(text) for ident, (_, text) in maps.items()}
    assert max(sizes.values()) <= min(DEFAULT_BUDGET, BEFORE_BUDGET * 2 // 3), sizes
