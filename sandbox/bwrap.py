"""The bubblewrap command line for one confined command.

Layout inside: the host file system read-only, a fresh /dev and /proc, a private size-capped
/tmp with HOME in it, the user's own working tree hidden under an empty read-only tmpfs (its
untracked `.env` and the like are not the command's to read), the git directories bound back
read-only on top of that with each config replaced by a copy without credentials
(sandbox/gitconfig.py), and the worktree writable at its own path, its `.git` file read-only
(so a command cannot point the harness's later git calls at a directory it controls). No network, own PID/IPC/UTS
namespaces, no capabilities: as root, bwrap would otherwise keep them all, and with them the
power to remount / read-write. /proc/sys and /proc/sysrq-trigger are covered read-only
because root without capabilities can still write sysctls through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from sandbox.gitconfig import read_entries
from sandbox.limits import Limits

PRIVATE_HOME = "/tmp/home"
PRIVATE_TMP = "/tmp"

# Credential stores in the user's home, hidden from commands (the rest of / stays readable).
CREDENTIAL_PATHS: tuple[str, ...] = (
    ".ssh",
    ".aws",
    ".azure",
    ".gnupg",
    ".docker",
    ".kube",
    ".netrc",
    ".git-credentials",
    ".gitconfig",
    ".config/git",
    ".npmrc",
    ".pypirc",
    ".anthropic",
    ".config/gh",
    ".config/hub",
    ".config/gcloud",
    ".config/anthropic",
    ".config/openai",
)


def bwrap_argv(
    bwrap: str,
    *,
    root: Path,
    cwd: Path,
    limits: Limits,
    read_only: Sequence[Path] = (),
    masked: Sequence[Path] = (),
    hidden: Sequence[Path] = (),
    replaced: Sequence[tuple[Path, Path]] = (),
) -> list[str]:
    """Everything before the command itself (which follows as `bash -c COMMAND`).

    `hidden` directories become empty and read-only, except for what is bound below them
    (`read_only`, then `replaced` as (host file, path inside), then the worktree): the
    tmpfs goes first so the binds land on it, and is made read-only last, because bwrap
    creates their mount points in it."""
    args = [
        bwrap,
        "--die-with-parent",
        "--new-session",
        "--unshare-net",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--cap-drop",
        "ALL",
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--size",
        str(max(limits.tmp_bytes // 4, 1 << 20)),
        "--tmpfs",
        "/dev/shm",
        "--remount-ro",
        "/dev",
        "--proc",
        "/proc",
        "--ro-bind",
        "/proc/sys",
        "/proc/sys",
        "--ro-bind-try",
        "/proc/sysrq-trigger",
        "/proc/sysrq-trigger",
        "--size",
        str(limits.tmp_bytes),
        "--tmpfs",
        PRIVATE_TMP,
        "--dir",
        PRIVATE_HOME,
    ]
    for path in masked:
        if path.is_dir():
            args += ["--tmpfs", str(path), "--remount-ro", str(path)]
        else:
            args += ["--ro-bind", "/dev/null", str(path)]
    for path in hidden:
        args += ["--tmpfs", str(path)]
    for path in read_only:
        args += ["--ro-bind", str(path), str(path)]
    for source, target in replaced:
        args += ["--ro-bind", str(source), str(target)]
    args += ["--bind", str(root), str(root)]
    dot_git = root / ".git"
    if dot_git.exists() and not dot_git.is_symlink():
        args += ["--ro-bind", str(dot_git), str(dot_git)]
    for path in hidden:
        args += ["--remount-ro", str(path)]
    args += ["--chdir", str(cwd)]
    return args


def git_dirs(root: Path) -> list[Path]:
    """The directories git reads to work in `root` when `root` is a linked worktree."""
    dot_git = root / ".git"
    if not dot_git.is_file():
        return []
    try:
        first = dot_git.read_text().splitlines()[0]
    except (OSError, IndexError):
        return []
    if not first.startswith("gitdir:"):
        return []
    gitdir = (root / first.removeprefix("gitdir:").strip()).resolve()
    dirs = [gitdir]
    try:
        common = (gitdir / (gitdir / "commondir").read_text().strip()).resolve()
        dirs = [common] if gitdir.is_relative_to(common) else [common, gitdir]
    except OSError:
        pass
    return [d for d in dirs if d.is_dir()]


def config_files(git_dirs: Sequence[Path]) -> list[Path]:
    """The config files in `git_dirs` that may hold credentials (replaced by clean copies)."""
    names = ("config", "config.worktree")
    return [d / name for d in git_dirs for name in names if (d / name).is_file()]


def user_tree(root: Path, git_dirs: Sequence[Path]) -> Path | None:
    """The user's own working tree, when `root` is a linked worktree of a repository that
    has one: `<top>/.git` is the common directory (git_dirs lists it first), or the common
    config names it in `core.worktree`. None for bare repositories and for `/`."""
    if not git_dirs:
        return None
    common = git_dirs[0]
    top: Path | None = None
    if common.name == ".git":
        top = common.parent
    else:
        entries = read_entries(common / "config") or []
        worktrees = [e.value for e in entries if e.key == "core.worktree" and e.value]
        if worktrees:
            top = (common / worktrees[-1]).resolve()
    if top is None or top == Path("/") or top == root or not top.is_dir():
        return None
    return top


def credential_masks(home: Path, keep_visible: Sequence[Path]) -> list[Path]:
    """Existing credential stores under `home`, except any that contain a path we need."""
    masks: list[Path] = []
    for relative in CREDENTIAL_PATHS:
        path = home / relative
        if not path.exists():
            continue
        path = path.resolve()  # bwrap mounts over what a symlink points to
        if any(needed == path or needed.is_relative_to(path) for needed in keep_visible):
            continue
        masks.append(path)
    return masks
