"""The interpreter's bytecode view (sandbox/pycview.py): under bubblewrap the standard library
and site-packages load from their compiled bytecode while the worktree's code is compiled from
its source (a pyc in the worktree is never read: tests/sandbox/test_include_safety.py); the
view holds nothing but links to the mirrored directories' bytecode, no command can write it,
and a tree among those directories gets none. Real bubblewrap, real Python."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

from sandbox.pycview import STALE_S, built_view, interpreter_roots, overlaps, pyc_view, usable
from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import make_repo

SHOW = "python3 -v -c 'import json, calc' 2>&1 | grep '^# code object from'"


@needs_bwrap
def test_the_interpreters_modules_load_from_bytecode_and_the_worktrees_from_source(
    visible_base: Path,
) -> None:
    repo = make_repo(visible_base / "repo", {"calc.py": "X = 1\n", ".gitignore": "__pycache__/\n"})
    json_source = Path(__import__("json").__file__)
    with confined(repo) as box:
        result = box.run(SHOW)
        lines = result.output.splitlines()
        assert f"# code object from {repo / 'calc.py'}" in lines, result.output  # its source
        from_bytecode = f"# code object from '/tmp/pycache{json_source.parent}/__init__."
        assert any(line.startswith(from_bytecode) for line in lines), result.output
        written = box.run("touch /tmp/pycache/planted 2>&1; ls /tmp/pycache")
        assert "Read-only file system" in written.output
    view = pyc_view()
    assert view is not None and not (view / "planted").exists()


def test_the_view_links_each_pyc_where_the_prefix_looks_and_nothing_else(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    cached = root / "pkg" / "sub" / "__pycache__"
    cached.mkdir(parents=True)
    (root / "pkg" / "sub" / "mod.py").write_text("X = 1\n")
    (cached / "mod.cpython-311.pyc").write_bytes(b"bytecode")
    (cached / "notes.txt").write_text("not bytecode\n")
    (root / "pkg" / "plain.py").write_text("Y = 2\n")
    view = built_view(tmp_path / "views", (root,))
    assert usable(view)
    links = sorted(p.relative_to(view) for p in view.rglob("*") if p.is_symlink())
    assert links == [Path(str(root).lstrip("/")) / "pkg" / "sub" / "mod.cpython-311.pyc"]
    link = view / links[0]
    assert os.readlink(link) == str(cached / "mod.cpython-311.pyc")
    assert built_view(tmp_path / "views", (root,)) == view  # the same key: built once


def test_a_new_installation_gets_a_new_view_and_day_old_views_go(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    (root / "__pycache__").mkdir(parents=True)
    first = built_view(tmp_path / "views", (root,))
    day_old = time.time() - STALE_S - 60
    os.utime(first, (day_old, day_old))
    later = time.time() + 5
    os.utime(root, (later, later))  # what installing a package does to the directory
    second = built_view(tmp_path / "views", (root,))
    assert second != first and usable(second)
    assert not first.exists()


def test_a_tree_among_the_interpreters_directories_gets_no_view() -> None:
    roots = interpreter_roots()
    assert roots and any(Path(sys.prefix) in (r, *r.parents) for r in roots)
    assert overlaps(roots, roots[0] / "site-packages" / "someproject")
    assert overlaps(roots, roots[0].parent)
    assert not overlaps(roots, Path("/var/tmp/someproject"))
