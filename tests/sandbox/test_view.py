"""The same-path view: commands see the worktree at the user's checkout path, with the
checkout's dependencies, and git still works there. Real bubblewrap, real git."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

from coder.bench.layout import make_venv
from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import make_repo, run_git, snapshot, write_files

pytestmark = needs_bwrap


def _project(base: Path) -> Path:
    repo = make_repo(
        base / "repo",
        {
            ".gitignore": "node_modules/\n.venv/\n_version.py\n",
            "src/pkg/__init__.py": "from pkg._version import VERSION\nVALUE = 1\n",
            "packages/a/index.js": "module.exports = require('left-pad');\n",
            "README.md": "user file\n",
        },
    )
    write_files(
        repo,
        {
            "node_modules/is-number/index.js": "module.exports = n => typeof n === 'number';\n",
            "node_modules/is-number/package.json": '{"name": "is-number", "main": "index.js"}\n',
            "node_modules/.cache/keep": "",
            "packages/a/node_modules/left-pad/index.js": "module.exports = 'padded';\n",
            "src/pkg/_version.py": "VERSION = '1.2.3'\n",
            ".worktreeinclude": "src/pkg/_version.py\n",
            "notes.txt": "the user's own untracked notes\n",
        },
    )
    make_venv(repo / ".venv", [repo / "src"])
    return repo


def test_commands_see_the_worktree_at_the_checkout_path(visible_base: Path) -> None:
    repo = _project(visible_base)
    with confined(repo) as c:
        (c.worktree / "README.md").write_text("changed in the worktree\n")
        result = c.run(
            f"pwd; cat {repo}/README.md; ls {repo}; git status --porcelain; git log --oneline"
        )
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0] == str(repo)
    assert lines[1] == "changed in the worktree"
    assert "notes.txt" not in result.output  # the user's own tree is hidden behind it
    assert " M README.md" in lines
    assert lines[-1].endswith("initial")
    assert c.sandbox.view_root == repo and c.sandbox.root == c.worktree


def test_an_editable_install_imports_the_worktrees_code(visible_base: Path) -> None:
    """The .pth names the checkout's src/: inside, that path is the worktree's, so a broken
    change in the worktree is what the import sees."""
    repo = _project(visible_base)
    probe = ".venv/bin/python -c 'import pkg; print(pkg.VALUE, pkg.VERSION, pkg.__file__)'"
    with confined(repo, test_cmd=".venv/bin/python -m pytest") as c:
        assert [e.target for e in c.environment.editables] == [repo / "src"]
        init = c.worktree / "src" / "pkg" / "__init__.py"
        init.write_text(init.read_text().replace("VALUE = 1", "VALUE = 2"))
        changed = c.run(probe)
        init.write_text("def broken(:\n")
        broken = c.run(probe)
        prefix = c.run(".venv/bin/python -c 'import sys; print(sys.prefix)'")
    assert changed.output.split() == ["2", "1.2.3", str(repo / "src/pkg/__init__.py")]
    assert broken.exit_code != 0 and "SyntaxError" in broken.output
    assert prefix.output.strip() == str(repo / ".venv")


def test_dependencies_are_visible_and_never_written_back(visible_base: Path) -> None:
    """Writable where the host offers an overlay (sandbox/overlay.py), read-only else;
    either way the user's copy is never written."""
    repo = _project(visible_base)
    before = snapshot(repo)
    with confined(repo) as c:
        assert {e.rel for e in c.environment.exposed} == {
            "node_modules",
            "packages/a/node_modules",
            ".venv",
        }
        assert not os.listdir(c.worktree / "node_modules")  # a mount point, not a copy
        result = c.run(
            "node -e \"console.log(require('is-number')(5), require('./packages/a'))\"; "
            "echo x > node_modules/is-number/index.js; echo rc=$?; "
            "echo cached > node_modules/.cache/new && cat node_modules/.cache/new"
        )
        status = run_git(c.worktree, "status", "--porcelain")
        writable = c.sandbox.overlays.kind in ("kernel", "bwrap")
    assert result.output.splitlines()[0] == "true padded"
    if writable:
        assert "rc=0" in result.output, result.output
    else:
        assert "Read-only file system" in result.output and "rc=1" in result.output
    assert result.output.rstrip().endswith("cached")  # a throwaway tmpfs for caches
    assert snapshot(repo) == before
    assert not (repo / "node_modules" / ".cache" / "new").exists()
    assert status == ""


def test_small_ignored_files_named_are_copied(visible_base: Path) -> None:
    repo = _project(visible_base)
    with confined(repo) as c:
        copied = (c.worktree / "src/pkg/_version.py").read_text()
        assert c.environment.copied == ["src/pkg/_version.py"]
        status = run_git(c.worktree, "status", "--porcelain", "--untracked-files=all")
        result = c.run(
            "python -c 'import sys; sys.path.insert(0, \"src\"); import pkg; print(pkg.VERSION)'"
        )
    assert copied == "VERSION = '1.2.3'\n"
    assert status == ""
    assert result.output.strip() == "1.2.3"


def test_git_works_inside_and_other_runs_stay_hidden(visible_base: Path) -> None:
    repo = _project(visible_base)
    secret = f"second-run-{uuid.uuid4().hex}"  # unique: copies of this file elsewhere differ
    with confined(repo) as first, confined(repo) as second:
        (second.worktree / "README.md").write_text(f"{secret}\n")
        (first.worktree / "README.md").write_text("first\n")
        result = first.run(
            "cat .git; git status --porcelain; git diff --stat; "
            'echo "others=$(ls -A /run/coder/git/coder-worktrees | wc -l)"; '
            f"grep -rs {secret} /run /var/tmp; echo x > /run/coder/git/HEAD; echo rc=$?"
        )
    lines = result.output.splitlines()
    assert lines[0].startswith("gitdir: /run/coder/git/worktrees/")
    assert " M README.md" in lines and "1 file changed" in result.output
    assert "others=0" in lines
    assert secret not in result.output
    assert lines[-1] == "rc=1"


def test_git_credentials_are_not_readable(visible_base: Path) -> None:
    repo = make_repo(visible_base / "repo", {"README.md": "user file\n"})
    run_git(repo, "config", "http.https://github.com/.extraheader", "AUTHORIZATION: basic S3CR1")
    run_git(repo, "remote", "add", "origin", "https://x-access-token:S3CR2@github.com/o/r.git")
    run_git(repo, "config", "url.https://x:S3CR3@example.com/.insteadOf", "https://example.com/")
    run_git(repo, "config", "credential.https://github.com.username", "S3CR4")
    with confined(repo) as c:
        (c.worktree / "README.md").write_text("changed\n")
        reads = c.run(
            f"cat .git /run/coder/git/config {repo}/.git/config; "
            "git config --list --show-origin; git remote -v; git status --porcelain"
        )
    for secret in ("S3CR1", "S3CR2", "S3CR3", "S3CR4"):
        assert secret not in reads.output
    assert "origin\thttps://github.com/o/r.git (fetch)" in reads.output  # the rest is kept
    assert " M README.md" in reads.output
    assert "S3CR1" in (repo / ".git" / "config").read_text()  # the user's config is untouched


def test_a_submodule_is_there_at_the_recorded_commit(visible_base: Path) -> None:
    lib = make_repo(visible_base / "lib", {"lib.py": "X = 1\n"})
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    run_git(
        repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib"
    )
    run_git(repo, "commit", "-q", "-m", "add lib")
    recorded = run_git(repo, "rev-parse", "HEAD:vendor/lib").strip()
    write_files(repo / "vendor/lib", {"lib.py": "X = 2\n"})  # the user's copy moved on
    run_git(repo / "vendor/lib", "commit", "-q", "-am", "later")
    with confined(repo) as c:
        inside = c.run(
            "cat vendor/lib/lib.py; git -C vendor/lib rev-parse HEAD; git status --porcelain"
        )
        assert [s.commit for s in c.environment.submodules] == [recorded]
    assert inside.output.splitlines() == ["X = 1", recorded], inside.output


def test_the_main_checkout_of_a_linked_worktree_stays_hidden(visible_base: Path) -> None:
    """The user works in a worktree of their own: the run's view binds the run's worktree
    there, and the main checkout (with its own untracked files) is hidden as well."""
    main = make_repo(visible_base / "main", {"README.md": "main\n"})
    (main / ".env").write_text("MAIN_SECRET=m41n-l3ak\n")
    linked = visible_base / "feature"
    run_git(main, "worktree", "add", "-q", "-b", "feature", str(linked))
    (linked / "scratch.txt").write_text("linked-l3ak\n")
    with confined(linked) as c:
        result = c.run(
            f"cat {main}/.env {linked}/scratch.txt; ls -A {main}; pwd; git status --porcelain"
        )
    assert "l3ak" not in result.output
    assert str(linked) in result.output.splitlines()
    assert "README.md" not in result.output  # nothing of the main checkout is listed
