"""The mount list as data: where a host path shows through, and parents made traversable."""

from __future__ import annotations

from pathlib import Path

from sandbox.mounts import MountPlan


def _plan() -> MountPlan:
    plan = MountPlan()
    plan.ro(Path("/"))
    plan.tmpfs(Path("/tmp"), perms=0o1777)
    plan.tmpfs(Path("/root"))
    plan.ro(Path("/root/.pyenv"))
    plan.rw(Path("/srv/repo/.git/coder-worktrees/r1"), Path("/srv/repo"))
    plan.ro(Path("/srv/repo/node_modules"))
    plan.ro(Path("/srv/repo/.git"), Path("/run/coder/git"))
    return plan


def test_a_host_path_shows_where_no_later_mount_covers_it() -> None:
    plan = _plan()
    assert plan.visible_at(Path("/var/run.sock")) == [Path("/var/run.sock")]
    assert plan.visible_at(Path("/tmp/host.sock")) == []  # under the private /tmp
    assert plan.visible_at(Path("/root/.ssh/agent")) == []  # the hidden home
    assert plan.visible_at(Path("/root/.pyenv/x.sock")) == [Path("/root/.pyenv/x.sock")]
    assert plan.visible_at(Path("/srv/repo/notes.sock")) == []  # behind the worktree
    assert plan.visible_at(Path("/srv/repo/node_modules/a.sock")) == [
        Path("/srv/repo/node_modules/a.sock")
    ]
    assert plan.visible_at(Path("/srv/repo/.git/s.sock")) == [Path("/run/coder/git/s.sock")]


def test_the_worktree_shows_at_the_checkout_path_only_once_runs_are_hidden() -> None:
    plan = _plan()
    inside = Path("/srv/repo/.git/coder-worktrees/r1/own.sock")
    assert plan.visible_at(inside) == [
        Path("/srv/repo/own.sock"),
        Path("/run/coder/git/coder-worktrees/r1/own.sock"),
    ]
    plan.tmpfs(Path("/run/coder/git/coder-worktrees"))
    assert plan.visible_at(inside) == [Path("/srv/repo/own.sock")]


def test_parents_under_our_tmpfs_are_made_traversable_once() -> None:
    plan = MountPlan()
    plan.ro(Path("/"))
    plan.tmpfs(Path("/tmp"), perms=0o1777)
    plan.rw(Path("/host/wt"), Path("/tmp/pytest/t0/repo"))
    plan.ro(Path("/host/nm"), Path("/tmp/pytest/t0/other"))
    made = [(m.op, str(m.dest), m.perms) for m in plan.mounts if m.op == "dir"]
    assert made == [("dir", "/tmp/pytest", 0o755), ("dir", "/tmp/pytest/t0", 0o755)]
    args = plan.argv()
    assert args[args.index("/tmp/pytest") - 2 : args.index("/tmp/pytest") + 1] == [
        "0755",
        "--dir",
        "/tmp/pytest",
    ]


def test_masks_hide_files_and_directories() -> None:
    plan = MountPlan()
    plan.ro(Path("/"))
    plan.mask(Path("/etc/shadow"), is_dir=False)
    plan.mask(Path("/etc/ssl/private"), is_dir=True)
    assert plan.visible_at(Path("/etc/shadow")) == []
    assert plan.visible_at(Path("/etc/ssl/private/key.pem")) == []
    assert "--remount-ro" in plan.argv()


def test_a_tmp_overlay_is_given_as_bwrap_0_9_spells_it() -> None:
    """bubblewrap 0.9+: the source first, then the writable throwaway layer at the target;
    what is bound over the target later still shadows it."""
    plan = MountPlan()
    plan.ro(Path("/"))
    plan.tmp_overlay(Path("/home/u/p/node_modules"), Path("/home/u/p/node_modules"))
    assert plan.argv()[-4:] == [
        "--overlay-src",
        "/home/u/p/node_modules",
        "--tmp-overlay",
        "/home/u/p/node_modules",
    ]
    assert plan.visible_at(Path("/home/u/p/node_modules/x.sock")) == []
