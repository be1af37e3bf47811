"""The shipped SWE-bench test data as real git clones: one `owner__name` clone per repository.

Each repository under tests/data/swebench/repos/ is a trimmed release of a real project from the
package index (`base/`) and the real changes between its next releases (`patches/NN-*.patch`).
Building (coder/bench/shipped.py, the same code `coder bench` builds a shipped suite with)
commits them in order with a fixed identity and fixed dates, so every machine gets the same
commit ids and the instances file can name its `base_commit`s.

Usage: python3 tests/swebench_repos.py DIR   (then: coder bench --swebench
tests/data/swebench/instances.jsonl --repos DIR --model script:tests/data/swebench/scripts)
"""

from __future__ import annotations

import sys
from pathlib import Path

from coder.bench import shipped

DATA = Path(__file__).resolve().parent / "data" / "swebench"
INSTANCES = DATA / "instances.jsonl"
SCRIPTS = DATA / "scripts"


def build_repos(dest: Path) -> Path:
    """Make dest/<owner__name> for every shipped test repository; returns dest."""
    return shipped.build_repos(DATA / "repos", dest)


def build_repo(source: Path, clone: Path) -> Path:
    return shipped.build_repo(source, clone)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 tests/swebench_repos.py DIR")
    print(build_repos(Path(sys.argv[1])))
