"""The shipped SWE-bench test data as real git clones: one `owner__name` clone per repository.

Each repository under tests/data/swebench/repos/ is a trimmed release of a real project from the
package index (`base/`) and the real changes between its next releases (`patches/NN-*.patch`).
Building commits them in order with a fixed identity and fixed dates, so every machine gets the
same commit ids and the instances file can name its `base_commit`s.

Usage: python3 tests/swebench_repos.py DIR   (then: coder bench --swebench
tests/data/swebench/instances.jsonl --repos DIR --model script:tests/data/swebench/scripts)
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

from gitrepo import git  # noqa: E402

DATA = Path(__file__).resolve().parent / "data" / "swebench"
INSTANCES = DATA / "instances.jsonl"
SCRIPTS = DATA / "scripts"
_IDENTITY = {
    "GIT_AUTHOR_NAME": "coder fixtures",
    "GIT_AUTHOR_EMAIL": "fixtures@coder.invalid",
    "GIT_COMMITTER_NAME": "coder fixtures",
    "GIT_COMMITTER_EMAIL": "fixtures@coder.invalid",
}


def build_repos(dest: Path) -> Path:
    """Make dest/<owner__name> for every shipped repository; returns dest."""
    dest.mkdir(parents=True, exist_ok=True)
    for source in sorted(p for p in (DATA / "repos").iterdir() if p.is_dir()):
        build_repo(source, dest / source.name)
    return dest


def build_repo(source: Path, clone: Path) -> Path:
    shutil.copytree(source / "base", clone)
    git(clone, "init", "-q", "-b", "main")
    _commit(clone, f"{source.name.split('__')[1]} {_base_version(source)}", 0)
    for index, patch in enumerate(sorted((source / "patches").glob("*.patch")), 1):
        git(clone, "apply", "--whitespace=nowarn", str(patch))
        _commit(clone, patch.stem.split("-", 1)[1].replace("-", " ", 1), index)
    return clone


def _base_version(source: Path) -> str:
    return (source / "VERSION").read_text(encoding="utf-8").strip()


def _commit(clone: Path, message: str, index: int) -> None:
    date = f"2026-01-01T00:{index:02d}:00+00:00"
    git(clone, "add", "-A")
    git(
        clone,
        "commit",
        "-q",
        "--no-verify",
        "-m",
        message,
        env={**_IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date},
    )


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python3 tests/swebench_repos.py DIR")
    print(build_repos(Path(sys.argv[1])))
