from __future__ import annotations

from pathlib import Path

from ci_repos import commit_all, git, python_pr, write

from coder.ci.gitrefs import changed_paths, file_at, merge_base, resolve_commit


def test_changed_paths_counts_lines_and_detects_renames(tmp_path: Path) -> None:
    repo, base, head = python_pr(tmp_path)
    git(repo, "checkout", "-q", "feature")
    write(repo, {"app.py": None, "application.py": (repo / "app.py").read_text()})
    moved = commit_all(repo, "rename")
    by_path = {c.path: c for c in changed_paths(repo, base, moved)}
    assert by_path["extra.py"].status == "added" and by_path["extra.py"].added_lines == 2
    assert by_path["calc.py"].status == "modified"
    assert by_path["calc.py"].removed_lines > 0 and by_path["calc.py"].added_lines > 0
    assert by_path["application.py"].status == "renamed"
    assert by_path["application.py"].old_path == "app.py"
    assert "app.py" not in by_path


def test_refs_and_files_at_commits(tmp_path: Path) -> None:
    repo, base, head = python_pr(tmp_path)
    assert resolve_commit(repo, "feature") == head
    assert resolve_commit(repo, "no-such-branch") is None
    assert resolve_commit(repo, "--all") is None
    assert merge_base(repo, "main", "feature") == base
    assert file_at(repo, base, "extra.py") is None
    assert "triple" in (file_at(repo, head, "extra.py") or "")


def test_repository_hooks_and_fsmonitor_never_run(tmp_path: Path) -> None:
    from coder.ci.fix import _repo_at
    from coder.ci.trees import commit_tree

    repo, base, head = python_pr(tmp_path)
    ran = tmp_path / "ran"
    hook = tmp_path / "evil.sh"
    hook.write_text(f"#!/bin/sh\necho $0 >> {ran}\n")
    hook.chmod(0o755)
    hooks = repo / ".git" / "hooks"
    for name in ("post-checkout", "reference-transaction", "pre-push"):
        (hooks / name).write_text(hook.read_text())
        (hooks / name).chmod(0o755)
    git(repo, "config", "core.fsmonitor", str(hook))
    assert changed_paths(repo, base, head) and file_at(repo, head, "calc.py")
    with commit_tree(repo, head) as tree:
        assert (tree / "calc.py").is_file()
    with _repo_at(repo, base) as clone:
        assert resolve_commit(clone, "HEAD") == base
    assert not ran.exists()
