"""What an include may bring in: only the repository's own files, only what the command's user
may read, secret-looking names only when named exactly, and never compiled Python.
Real git, real files, real bubblewrap."""

from __future__ import annotations

import os
import subprocess
import textwrap
from pathlib import Path

import pytest

from sandbox.repo_env import RepoEnvironmentError, prepare_environment
from sandbox.workspace import Workspace, new_run_id
from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import make_repo, write_files

as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the harness is not root here")


def _repo(base: Path, ignore: str, tracked: dict[str, str] | None = None) -> Path:
    repo = make_repo(base / "repo", {".gitignore": ignore, "README.md": "hi\n", **(tracked or {})})
    for path in [base, repo]:
        path.chmod(0o755)
    return repo


def test_a_symlinked_directory_inside_an_ignored_one_may_not_lead_outside(
    visible_base: Path,
) -> None:
    outside = visible_base / "outside"
    outside.mkdir()
    (outside / "id_x").write_text("KEY\n")
    repo = _repo(visible_base, "vendor/\n")
    (repo / "vendor").mkdir()
    (repo / "vendor" / "link").symlink_to(outside)
    (repo / ".worktreeinclude").write_text("vendor/link/id_x\n")
    with (
        Workspace.create(repo, new_run_id()) as workspace,
        pytest.raises(RepoEnvironmentError, match="vendor/link is a symlink to .*outside"),
    ):
        prepare_environment(workspace, include=[], sandbox_mode="bwrap")
    with (
        Workspace.create(repo, new_run_id()) as workspace,
        pytest.raises(RepoEnvironmentError, match="outside the repository"),
    ):
        prepare_environment(workspace, include=["vendor/link/*"], sandbox_mode="bwrap")


@needs_bwrap
@as_root
def test_nothing_the_host_denies_the_command_user_is_copied_or_exposed(
    visible_base: Path,
) -> None:
    """A 0700 directory of root's in the repository holding a 0600 key: as `nobody` the
    command could not read it on the host, so no copy or bind hands it over."""
    repo = _repo(visible_base, "keys/\nopen/\n")
    write_files(repo, {"keys/deploy": "PRIVATE KEY\n", "keys/sub/x": "X\n", "open/a.txt": "ok\n"})
    (repo / "keys" / "deploy").chmod(0o600)
    (repo / "keys").chmod(0o700)
    with confined(repo, include=["keys/deploy", "keys/sub/", "open/a.txt"]) as box:
        if box.sandbox.privileges.kind != "nobody":
            pytest.skip("commands do not run as nobody here")
        assert box.environment.copied == ["open/a.txt"]
        assert box.environment.exposed == []
        notes = "\n".join(box.environment.notes)
        assert "left out keys/deploy: commands run as uid 65534, which may not read keys" in notes
        assert "left out keys/sub" in notes
        result = box.run("cat keys/deploy keys/sub/x 2>&1; cat open/a.txt")
        assert "PRIVATE KEY" not in result.output and "X\n" not in result.output
        assert result.output.endswith("ok\n")


def test_globs_leave_secret_looking_names_out_and_say_so(tmp_path: Path) -> None:
    names = [
        "id_rsa",
        "id_ed25519.pub",
        "secrets.yml",
        "service-account.json",
        "token.txt",
        ".npmrc",
        ".env.test",
        "credentials.json",
        "server.PEM",
    ]
    repo = _repo(tmp_path, "config/\n")
    write_files(repo, {f"config/{n}": "s\n" for n in names} | {"config/app.toml": "ok\n"})
    with Workspace.create(repo, new_run_id()) as workspace:
        env = prepare_environment(
            workspace, include=["config/*", "config/token.txt"], sandbox_mode="bwrap"
        )
    assert sorted(env.copied) == ["config/app.toml", "config/token.txt"]
    assert env.secrets == ["config/token.txt"]
    notes = "\n".join(env.notes)
    for name in names:
        if name != "token.txt":
            assert f"left out config/{name}: it looks like a secret" in notes
    assert "brought in secret-looking file(s) you named: config/token.txt" in notes


_CALC = "def add(a, b):\n    return a - b\n"
_FIXED = "def add(a, b):\n    return a + b\n"
_CHECK = "python3 -c 'import pkg.calc as c; assert c.add(1, 2) == 3, c.add(1, 2); print(\"PASS\")'"


def _unchecked_pyc(source_text: str, target_dir: Path, scratch: Path) -> Path:
    """A real unchecked-hash pyc of `source_text` for pkg/calc.py, by the sandbox's python3."""
    scratch.mkdir(parents=True, exist_ok=True)
    source = scratch / "calc.py"
    source.write_text(source_text)
    target_dir.mkdir(parents=True, exist_ok=True)
    script = textwrap.dedent(
        """\
        import importlib.util, py_compile, sys
        cfile = importlib.util.cache_from_source(sys.argv[2])
        py_compile.compile(sys.argv[1], cfile=cfile,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)
        print(cfile)
        """
    )
    done = subprocess.run(
        ["python3", "-c", script, str(source), str(target_dir.parent / "calc.py")],
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(done.stdout.strip())


@needs_bwrap
def test_a_stale_pyc_of_the_checkout_never_makes_the_tests_pass(visible_base: Path) -> None:
    repo = _repo(
        visible_base, "__pycache__/\n*.pyc\n", {"pkg/__init__.py": "", "pkg/calc.py": _CALC}
    )
    pyc = _unchecked_pyc(_FIXED, repo / "pkg" / "__pycache__", visible_base / "scratch")
    assert pyc.is_relative_to(repo / "pkg" / "__pycache__")
    (repo / ".worktreeinclude").write_text("pkg/__pycache__/\n**/*.pyc\n")
    on_host = subprocess.run(_CHECK, shell=True, cwd=repo, capture_output=True, text=True)
    assert "PASS" in on_host.stdout  # the pyc really does stand in for the source
    with confined(repo) as box:
        assert not (box.worktree / "pkg" / "__pycache__").exists()
        assert "left out pkg/__pycache__" in "\n".join(box.environment.notes)
        result = box.run(_CHECK)
        assert result.exit_code != 0 and "PASS" not in result.output


@needs_bwrap
def test_a_pyc_planted_in_the_worktree_is_never_read(visible_base: Path) -> None:
    """A command (the model's) that writes an unchecked-hash pyc beside the source cannot
    make a later test run import it: Python's cache lives in each command's private /tmp."""
    repo = _repo(visible_base, "__pycache__/\n", {"pkg/__init__.py": "", "pkg/calc.py": _CALC})
    with confined(repo) as box:
        _unchecked_pyc(_FIXED, box.worktree / "pkg" / "__pycache__", visible_base / "scratch")
        result = box.run(_CHECK)
        assert result.exit_code != 0 and "PASS" not in result.output
