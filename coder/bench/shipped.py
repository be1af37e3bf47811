"""A shipped suite's repositories as git clones: `repos/<owner__name>/` built into DIR/<owner__name>.

A suite ships each repository as a trimmed tree (`base/`) and the upstream changes between its
instances' bases (`patches/NN-<slug>.patch`), not as git history. Building commits them in order
with a fixed identity and fixed dates, so every machine gets the same commit ids and the
instances file can name its `base_commit`s. `coder bench --swebench FILE` builds them once into
a cache keyed by the sources' hash; `tests/swebench_repos.py` builds the test data the same way.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from sandbox.gitcli import git

IDENTITY = {
    "GIT_AUTHOR_NAME": "coder fixtures",
    "GIT_AUTHOR_EMAIL": "fixtures@coder.invalid",
    "GIT_COMMITTER_NAME": "coder fixtures",
    "GIT_COMMITTER_EMAIL": "fixtures@coder.invalid",
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
}
"""Who commits, and no configuration of this machine's that could change a commit id."""


class BuildError(Exception):
    """A shipped repository cannot be built (a patch that does not apply): one line."""


def repo_sources(repos: Path) -> list[Path]:
    """The repository sources under a suite's `repos/`, in name order."""
    return sorted(p for p in repos.iterdir() if p.is_dir() and (p / "base").is_dir())


def build_repos(repos: Path, dest: Path) -> Path:
    """Make dest/<owner__name> for every repository under `repos`; returns dest."""
    dest.mkdir(parents=True, exist_ok=True)
    for source in repo_sources(repos):
        build_repo(source, dest / source.name)
    return dest


def build_repo(source: Path, clone: Path) -> Path:
    """One clone: the base committed as "<name> <VERSION>", then each patch in order as its
    slug (the stem after `NN-`, its first "-" a space), commit NN dated 2026-01-01T00:NN."""
    shutil.copytree(source / "base", clone)
    git(["init", "-q", "-b", "main"], clone, env=IDENTITY)
    version = (source / "VERSION").read_text(encoding="utf-8").strip()
    _commit(clone, f"{source.name.split('__', 1)[-1]} {version}", 0)
    for index, patch in enumerate(sorted((source / "patches").glob("*.patch")), 1):
        try:
            git(["apply", "--whitespace=nowarn", str(patch.resolve())], clone, env=IDENTITY)
        except Exception as exc:
            raise BuildError(f"{source.name}: {patch.name} does not apply: {exc}") from None
        _commit(clone, patch.stem.split("-", 1)[-1].replace("-", " ", 1), index)
    return clone


def _commit(clone: Path, message: str, index: int) -> None:
    date = f"2026-01-01T00:{index:02d}:00+00:00"
    env = {**IDENTITY, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    git(["add", "-A"], clone, env=env)
    git(["commit", "-q", "--no-verify", "--allow-empty", "-m", message], clone, env=env)


def sources_hash(repos: Path) -> str:
    """A hash of every file under `repos` (path, executable bit, bytes): what the clones are
    made of, so a changed source never reuses an old build."""
    digest = hashlib.sha256()
    for path in sorted(p for p in repos.rglob("*") if p.is_file() or p.is_symlink()):
        rel = path.relative_to(repos).as_posix()
        if path.is_symlink():
            data = b"link:" + os.readlink(path).encode()
        else:
            data = path.read_bytes()
        executable = b"x" if os.access(path, os.X_OK) and not path.is_symlink() else b"-"
        digest.update(rel.encode() + b"\0" + executable + hashlib.sha256(data).digest())
    return digest.hexdigest()[:16]


def cache_root() -> Path:
    """`$XDG_CACHE_HOME/coder/swebench` (else `~/.cache/coder/swebench`)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "coder" / "swebench"


def suite_cache(repos: Path) -> Path:
    """The cache directory of one suite's sources: holds `repos/` (the clones) and `deps/`."""
    return cache_root() / sources_hash(repos)


def cached_clones(repos: Path, say: Callable[[str], None]) -> Path:
    """The clones built from `repos` (a suite's `repos/`), from the cache or built into it
    once: in a temporary directory beside it, then renamed, so a half-made build is never
    seen and two benches building at once both end with one whole copy."""
    cache = suite_cache(repos)
    built = cache / "repos"
    if built.is_dir():
        return built
    cache.mkdir(parents=True, exist_ok=True)
    sources = repo_sources(repos)
    say(
        f"building {len(sources)} repositor{'y' if len(sources) == 1 else 'ies'} from {repos} into {built}"
    )
    temporary = Path(tempfile.mkdtemp(prefix=".repos-", dir=cache))
    try:
        build_repos(repos, temporary)
        try:
            temporary.rename(built)
        except OSError:
            if not built.is_dir():
                raise
    finally:
        shutil.rmtree(temporary, ignore_errors=True)
    return built
