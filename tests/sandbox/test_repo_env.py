"""The repository's environment in the run's worktree: what is found in the checkout, what is
brought in and how, and every bad input refused in one line with nothing changed."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from coder.bench.layout import make_venv
from sandbox.changes import scan_worktree
from sandbox.repo_env import RepoEnvironmentError, prepare_environment
from sandbox.workspace import Workspace, new_run_id
from tests.sandbox.confined import confined
from tests.sandbox.gitrepos import make_repo, run_git, snapshot, write_files

IGNORE = ".gitignore"


def _repo(base: Path, ignore: str, tracked: dict[str, str] | None = None) -> Path:
    return make_repo(base / "repo", {IGNORE: ignore, "README.md": "hi\n", **(tracked or {})})


def _prepare(repo: Path, **kwargs):  # type: ignore[no-untyped-def]
    workspace = Workspace.create(repo, new_run_id())
    kwargs.setdefault("include", [])
    kwargs.setdefault("sandbox_mode", "bwrap")
    try:
        return workspace, prepare_environment(workspace, **kwargs)
    except BaseException:
        workspace.close()
        raise


def test_dependency_directories_are_found_at_any_depth(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "node_modules/\n.venv/\nvenv/\n", {"packages/a/index.js": ""})
    write_files(
        repo,
        {
            "node_modules/x/index.js": "",
            "packages/a/node_modules/y/index.js": "",
            "venv/pyvenv.cfg": "",
            ".venv/pyvenv.cfg": "",
        },
    )
    workspace, env = _prepare(repo)
    with workspace:
        assert sorted(e.rel for e in env.exposed) == [
            ".venv",
            "node_modules",
            "packages/a/node_modules",
            "venv",
        ]
        for exposure in env.exposed:
            assert exposure.source == repo / exposure.rel
            assert os.listdir(workspace.path / exposure.rel) == []  # mount points only
        assert scan_worktree(workspace.path).changes == []


def test_included_files_are_copied_and_patterns_follow_gitignore(tmp_path: Path) -> None:
    repo = _repo(
        tmp_path,
        "*.gen.py\nbuild/\nconfig.local.toml\n_version.py\n",
        {"src/pkg/__init__.py": "", "keep.gen.py.txt": ""},
    )
    write_files(
        repo,
        {
            "src/pkg/_version.py": "V = 1\n",
            "a.gen.py": "A\n",
            "deep/b.gen.py": "B\n",
            "skip.gen.py": "S\n",
            "build/gen/types.py": "T\n",
            "build/gen/other.txt": "O\n",
            "config.local.toml": "x = 1\n",
            ".worktreeinclude": "# generated code\nsrc/pkg/_version.py\n*.gen.py\n!skip.gen.py\n",
        },
    )
    workspace, env = _prepare(repo, include=["build/gen/*.py", "/config.local.toml"])
    with workspace:
        assert sorted(env.copied) == [
            "a.gen.py",
            "build/gen/types.py",
            "config.local.toml",
            "deep/b.gen.py",
            "src/pkg/_version.py",
        ]
        assert (workspace.path / "src/pkg/_version.py").read_text() == "V = 1\n"
        assert not (workspace.path / "skip.gen.py").exists()
        assert not (workspace.path / "build/gen/other.txt").exists()
        assert scan_worktree(workspace.path).changes == []  # all ignored there too


def test_an_included_directory_is_exposed_not_copied(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "assets/\n")
    write_files(repo, {"assets/big.bin": "x" * 100, "assets/sub/y.txt": "y"})
    workspace, env = _prepare(repo, include=["assets/"])
    with workspace:
        assert [(e.rel, e.is_dir) for e in env.exposed] == [("assets", True)]
        assert env.copied == []


def test_secret_looking_files_come_only_when_named_exactly(tmp_path: Path) -> None:
    repo = _repo(tmp_path, ".env*\n*.pem\nconf/\n")
    write_files(
        repo,
        {
            ".env": "TOKEN=named\n",
            ".env.local": "TOKEN=globbed\n",
            "server.pem": "PEM\n",
            "conf/app.toml": "ok\n",
            "conf/credentials.json": "{}\n",
        },
    )
    workspace, env = _prepare(repo, include=[".env", ".env.*", "*.pem", "conf/"])
    with workspace:
        assert env.copied == [".env"] and env.secrets == [".env"]
        assert not (workspace.path / ".env.local").exists()
        assert env.masked == ["conf/credentials.json"]
        notes = "\n".join(env.notes)
        assert "brought in secret-looking file(s) you named: .env" in notes
        assert "left out .env.local" in notes and "left out server.pem" in notes
        assert "hid 1 secret-looking file(s) inside conf/" in notes


@pytest.mark.parametrize(
    ("line", "why"),
    [
        ("../outside.txt", "leads outside the repository"),
        ("/etc/passwd", "absolute path outside the repository"),
        ("~/.ssh/id_rsa", "home directory"),
        ("README.md", "names README.md, which git tracks"),
        ("src/", "names src/a.py, which git tracks"),
    ],
)
@pytest.mark.parametrize("where", [".worktreeinclude", "include"])
def test_bad_patterns_are_one_line_errors_that_change_nothing(
    tmp_path: Path, line: str, why: str, where: str
) -> None:
    repo = _repo(tmp_path, "*.log\n", {"src/a.py": ""})
    write_files(repo, {"x.log": "ignored\n"})
    include = [line]
    if where == ".worktreeinclude":
        (repo / ".worktreeinclude").write_text(f"x.log\n{line}\n")
        include = []
    before = snapshot(repo)
    workspace = Workspace.create(repo, new_run_id())
    with workspace:
        listing = sorted(os.listdir(workspace.path))
        with pytest.raises(RepoEnvironmentError) as error:
            prepare_environment(workspace, include=include, sandbox_mode="bwrap")
        assert sorted(os.listdir(workspace.path)) == listing  # nothing was placed
    message = str(error.value)
    assert why in message and where in message and "\n" not in message
    assert snapshot(repo) == before


def test_a_symlinked_node_modules_leading_outside_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere" / "node_modules"
    outside.mkdir(parents=True)
    repo = _repo(tmp_path, "node_modules\n")
    (repo / "node_modules").symlink_to(outside)
    workspace = Workspace.create(repo, new_run_id())
    with (
        workspace,
        pytest.raises(RepoEnvironmentError, match="symlink to .*outside the repository"),
    ):
        prepare_environment(workspace, include=[], sandbox_mode="bwrap")


def test_a_symlinked_node_modules_inside_the_repository_is_followed(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "node_modules\nshared/\n")
    write_files(repo, {"shared/node_modules/x/index.js": ""})
    (repo / "node_modules").symlink_to(repo / "shared" / "node_modules")
    workspace, env = _prepare(repo)
    with workspace:
        exposed = {e.rel: e.source for e in env.exposed}
        assert exposed["node_modules"] == repo / "shared" / "node_modules"


def test_a_rule_only_in_an_uncommitted_gitignore_is_not_brought(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "*.log\n")
    (repo / IGNORE).write_text("*.log\n_gen.py\n")  # not committed: the worktree lacks it
    write_files(repo, {"_gen.py": "G\n", ".worktreeinclude": "_gen.py\n"})
    workspace, env = _prepare(repo)
    with workspace:
        assert env.copied == []
        assert not (workspace.path / "_gen.py").exists()
        assert any("_gen.py is not ignored in the run's worktree" in n for n in env.notes)


def test_submodules_are_checked_out_offline_at_the_recorded_commit(tmp_path: Path) -> None:
    lib = make_repo(tmp_path / "lib", {"lib.py": "X = 1\n"})
    repo = make_repo(tmp_path / "repo", {"README.md": "hi\n"})
    run_git(
        repo, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib"
    )
    run_git(repo, "commit", "-q", "-m", "add lib")
    recorded = run_git(repo, "rev-parse", "HEAD:vendor/lib").strip()
    lib_git = Path(run_git(repo / "vendor/lib", "rev-parse", "--absolute-git-dir").strip())
    (lib / "lib.py").write_text("X = 2\n")  # the submodule's origin moves on; never fetched
    run_git(lib, "commit", "-q", "-am", "later")
    before = snapshot(repo)
    refs_before = run_git(repo / "vendor/lib", "for-each-ref")
    workspace, env = _prepare(repo)
    with workspace:
        module = workspace.path / "vendor/lib"
        assert [(s.rel, s.commit) for s in env.submodules] == [("vendor/lib", recorded)]
        assert (module / "lib.py").read_text() == "X = 1\n"
        assert run_git(module, "rev-parse", "HEAD").strip() == recorded
        alternates = (module / ".git/objects/info/alternates").read_text().strip()
        assert alternates == str(lib_git / "objects")  # borrowed, not copied
        assert scan_worktree(workspace.path).changes == []
        assert run_git(workspace.path, "status", "--porcelain") == ""
    assert snapshot(repo) == before
    assert run_git(repo / "vendor/lib", "for-each-ref") == refs_before


def test_an_uninitialized_submodule_stays_empty_with_a_note(tmp_path: Path) -> None:
    lib = make_repo(tmp_path / "lib", {"lib.py": "X = 1\n"})
    source = make_repo(tmp_path / "source", {"README.md": "hi\n"})
    run_git(
        source, "-c", "protocol.file.allow=always", "submodule", "add", "-q", str(lib), "vendor/lib"
    )
    run_git(source, "commit", "-q", "-m", "add lib")
    repo = tmp_path / "clone"
    run_git(tmp_path, "clone", "-q", str(source), str(repo))  # submodule not initialized
    workspace, env = _prepare(repo)
    with workspace:
        assert env.submodules == []
        assert os.listdir(workspace.path / "vendor/lib") == []
        assert any("vendor/lib is not initialized" in n for n in env.notes)


def _editable_repo(tmp_path: Path) -> Path:
    repo = _repo(tmp_path, ".venv/\n", {"src/pkg/__init__.py": "VALUE = 1\n"})
    make_venv(repo / ".venv", [repo / "src"])
    return repo


def test_editable_installs_into_the_checkout_are_found(tmp_path: Path) -> None:
    repo = _editable_repo(tmp_path)
    dist = repo / ".venv/lib/python3.11/site-packages/other-1.0.dist-info"
    dist.mkdir(parents=True)
    (dist / "direct_url.json").write_text(
        json.dumps({"url": f"file://{repo}", "dir_info": {"editable": True}})
    )
    workspace, env = _prepare(repo, test_cmd=".venv/bin/python -m pytest")
    with workspace:
        assert env.venv == repo / ".venv"
        assert sorted(str(e.target) for e in env.editables) == [str(repo), str(repo / "src")]


def test_none_mode_refuses_an_editable_install_unless_allowed(tmp_path: Path) -> None:
    repo = _editable_repo(tmp_path)
    workspace = Workspace.create(repo, new_run_id())
    with workspace, pytest.raises(RepoEnvironmentError) as error:
        prepare_environment(workspace, include=[], sandbox_mode="none")
    assert "--allow-unverified" in str(error.value) and "\n" not in str(error.value)
    warnings: list[str] = []
    with Workspace.create(repo, new_run_id()) as workspace:
        env = prepare_environment(workspace, include=[], sandbox_mode="none", allow_unverified=True)
        from sandbox.confine import make_sandbox

        box = make_sandbox("none", workspace.path, warnings.append, environment=env)
        box.run("true", cwd=workspace.path, timeout_s=10)
        box.run("true", cwd=workspace.path, timeout_s=10)
    per_command = [w for w in warnings if w.startswith("unverified:")]
    assert len(per_command) == 2 and "_editable_project.pth" in per_command[0]


def test_none_mode_links_directories_and_copies_files(tmp_path: Path) -> None:
    repo = _repo(tmp_path, "node_modules/\n.venv\n_version.py\n")
    write_files(
        repo,
        {
            "node_modules/is-number/index.js": "module.exports = n => typeof n === 'number';\n",
            "_version.py": "V = 1\n",
            ".worktreeinclude": "_version.py\n",
        },
    )
    make_venv(repo / ".venv", [])
    (repo / ".venv" / ".gitignore").write_text("*\n")
    with confined(repo, mode="none") as c:
        node_modules = c.worktree / "node_modules"
        assert node_modules.is_dir() and not node_modules.is_symlink()
        assert os.readlink(node_modules / "is-number") == str(repo / "node_modules/is-number")
        assert not (c.worktree / "_version.py").is_symlink()
        result = c.run(
            "node -e \"console.log(require('is-number')(1))\"; .venv/bin/python -c 'import sys; print(sys.prefix)'"
        )
        assert scan_worktree(c.worktree).changes == []
        assert run_git(c.worktree, "status", "--porcelain", "--untracked-files=all") == ""
    assert result.output.split() == ["true", str(c.worktree / ".venv")]
