"""Dependency directories are writable by commands and every write is thrown away: real
bubblewrap (whatever this host has; 0.8 has no --overlay), real overlays, real files."""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

import pytest

from sandbox.limits import Limits
from sandbox.overlay import bwrap_version
from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import make_repo, snapshot, write_files
from tests.sandbox.nobody import readable_site, run_as_nobody, system_python_matches

pytestmark = needs_bwrap
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the harness is not root here")

BUILD_INFO = "node_modules/.pnpm/vitest@1.0.0/node_modules/vitest/dist/tsconfig.tmp.tsbuildinfo"
PYC = ".venv/lib/python3.11/site-packages/pkg/__pycache__/m.cpython-311.pyc"


def _repo(visible_base: Path) -> Path:
    repo = make_repo(
        visible_base / "repo",
        {".gitignore": "node_modules/\n.venv/\n", "README.md": "hi\n"},
    )
    write_files(
        repo,
        {
            BUILD_INFO: '{"version":"old"}\n',
            ".venv/lib/python3.11/site-packages/pkg/m.py": "X = 1\n",
            "node_modules/left/index.js": "module.exports = 1;\n",
        },
    )
    for path in [visible_base, *visible_base.rglob("*")]:
        if path.is_dir():
            path.chmod(0o755)
    return repo


@as_root
def test_commands_write_inside_dependency_directories_and_nothing_reaches_the_checkout(
    visible_base: Path,
) -> None:
    repo = _repo(visible_base)
    before = snapshot(repo)
    with confined(repo) as box:
        assert box.sandbox.overlays.kind == "kernel", box.sandbox.notes
        assert bwrap_version("bwrap") >= (0, 8)
        result = box.run(
            f'id -u; echo \'{{"version":"new"}}\' > {BUILD_INFO} && cat {BUILD_INFO} && '
            f"mkdir -p $(dirname {PYC}) && printf 'pyc' > {PYC} && "
            "mkdir -p node_modules/.vite/deps node_modules/.cache/jest && "
            "touch node_modules/.vite/deps/_metadata.json && rm node_modules/left/index.js && "
            "echo done"
        )
        assert result.exit_code == 0, result.output
        assert result.output.splitlines()[-2:] == ['{"version":"new"}', "done"]
        if box.sandbox.privileges.kind == "nobody":
            assert result.output.splitlines()[0] == "65534"
        again = box.run(f"cat {BUILD_INFO}; ls {PYC} node_modules/left/index.js 2>&1 | wc -l")
        assert again.output.splitlines()[0] == '{"version":"old"}', again.output
        assert not (box.worktree / "node_modules" / ".vite").exists()
    assert snapshot(repo) == before


_NON_ROOT_RUN = textwrap.dedent(
    """\
    import sys
    from pathlib import Path
    from sandbox.confine import make_sandbox
    from sandbox.repo_env import prepare_environment
    from sandbox.workspace import Workspace, new_run_id
    repo = Path(sys.argv[1])
    with Workspace.create(repo, new_run_id()) as workspace:
        env = prepare_environment(workspace, include=[], sandbox_mode="bwrap")
        box = make_sandbox("bwrap", workspace.path, environment=env, warn=lambda n: print("note:", n))
        print(box.overlays.kind)
        command = f"echo x > {sys.argv[2]}; touch node_modules/.cache/ok && echo cached"
        print(box.run(command, cwd=workspace.path, timeout_s=30).output, end="")
    """
)


@as_root
def test_a_non_root_harness_with_an_old_bubblewrap_keeps_them_read_only_and_says_so(
    visible_base: Path,
) -> None:
    """bubblewrap before 0.9 has no --overlay, and a non-root harness mounts none itself:
    today's read-only view with a tmpfs over the caches, and one note."""
    if not system_python_matches():
        pytest.skip("needs /usr/bin/python3 of this version and setpriv")
    if bwrap_version("bwrap") >= (0, 9):
        pytest.skip("this bubblewrap has --overlay")
    repo = _repo(visible_base)
    (repo / "node_modules" / ".cache").mkdir()
    site = readable_site(visible_base)
    for path in [repo, *repo.rglob("*")]:
        os.lchown(path, 65534, 65534)
    before = snapshot(repo)
    done = run_as_nobody(_NON_ROOT_RUN, [str(repo), BUILD_INFO], site, home=visible_base)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    notes = [line for line in lines if line.startswith("note:")]
    assert len(notes) == 1 and "read-only for commands" in notes[0], lines
    assert "has no --overlay (0.9 has)" in notes[0]
    assert "read-only" in lines and "cached" in lines
    assert "Read-only file system" in done.stdout
    assert snapshot(repo) == before


@as_root
def test_writes_into_the_dependency_copy_stop_at_the_growth_bound(visible_base: Path) -> None:
    """The throwaway copy lands on the host's disk ($TMPDIR): a writer that never stops by
    itself is killed by the bound, and told so, however busy the machine."""
    repo = _repo(visible_base)
    writer = (
        "i=0; while true; do i=$((i+1)); head -c 8000000 /dev/zero > node_modules/big-$i; "
        "sync node_modules/big-$i; done"
    )
    with confined(repo, limits=Limits(growth_bytes=24 << 20)) as box:
        assert box.sandbox.overlays.kind == "kernel", box.sandbox.notes
        result = box.run(writer, timeout_s=120)
        assert result.bound == "dependency_growth" and not result.timed_out, result
        assert result.killed
        assert "wrote more than 24 MiB into the throwaway copy of the dependency" in (
            result.bound_message
        )
        assert not list((box.worktree / "node_modules").glob("big-*"))
