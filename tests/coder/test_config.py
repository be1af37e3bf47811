import json
import re
import sys

import pytest

from coder.config import ConfigError, detect_test_cmd, load_repo_config


def test_pyproject_section_is_read(tmp_path):
    (tmp_path / "pyproject.toml").write_text(
        '[tool.coder]\ntest_cmd = "pytest -x"\nmax_turns = 9\n'
    )
    config = load_repo_config(tmp_path)
    assert config.test_cmd == "pytest -x" and config.max_turns == 9


def test_token_limits_are_config_keys(tmp_path):
    (tmp_path / ".coder.toml").write_text("max_reply_tokens = 512\ncontext_tokens = 6000\n")
    config = load_repo_config(tmp_path)
    assert (config.max_reply_tokens, config.context_tokens) == (512, 6000)
    (tmp_path / ".coder.toml").write_text("context_tokens = 0\n")
    with pytest.raises(ConfigError, match="context_tokens"):
        load_repo_config(tmp_path)


def test_the_mask_threshold_is_a_config_key(tmp_path):
    (tmp_path / ".coder.toml").write_text("mask_threshold = 12000\n")
    assert load_repo_config(tmp_path).mask_threshold == 12000
    (tmp_path / ".coder.toml").write_text("mask_threshold = 0\n")
    with pytest.raises(ConfigError, match="mask_threshold"):
        load_repo_config(tmp_path)


def test_dotfile_wins_and_unknown_keys_are_named(tmp_path):
    (tmp_path / ".coder.toml").write_text("max_turn = 3\nsandboxx = 'none'\n")
    with pytest.raises(ConfigError, match="max_turn, sandboxx"):
        load_repo_config(tmp_path)


def test_bad_values_and_bad_toml_are_one_line_errors(tmp_path):
    (tmp_path / ".coder.toml").write_text("sandbox = 'docker'\n")
    with pytest.raises(ConfigError, match="sandbox"):
        load_repo_config(tmp_path)
    (tmp_path / ".coder.toml").write_text("sandbox = \n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_repo_config(tmp_path)


def test_detect_test_cmd(tmp_path):
    assert detect_test_cmd(tmp_path) is None
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "a.test.js").write_text("")
    assert detect_test_cmd(tmp_path) == "node --test"
    (tmp_path / "package.json").write_text('{"scripts": {"test": "node --test test/"}}')
    assert detect_test_cmd(tmp_path) == "npm test"
    py = tmp_path / "py"
    (py / "tests").mkdir(parents=True)
    (py / "tests" / "test_x.py").write_text("")
    assert detect_test_cmd(py) == "python -m pytest -q"


def test_runners_claim_a_project_by_test_files_before_project_files(tmp_path):
    """The runners' defaults are asked in table order, every runner's test files before any
    runner's project files: JS tests in a tree that also has a pyproject.toml run as JS."""
    (tmp_path / "pyproject.toml").write_text("[project]\nname = 'x'\n")
    assert detect_test_cmd(tmp_path) == "python -m pytest -q"
    (tmp_path / "test").mkdir()
    (tmp_path / "test" / "a.test.mjs").write_text("")
    assert detect_test_cmd(tmp_path) == "node --test"
    (tmp_path / "conftest.py").write_text("")
    assert detect_test_cmd(tmp_path) == "python -m pytest -q"
    (tmp_path / ".hidden").mkdir()
    (tmp_path / "conftest.py").rename(tmp_path / ".hidden" / "conftest.py")
    assert detect_test_cmd(tmp_path) == "node --test"


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ("max_turns = true", "max_turns: expected an integer, got true"),
        ("max_revisions = false", "max_revisions: expected an integer, got false"),
        ('max_turns = "5"', "max_turns: expected an integer, got string '5'"),
        ("max_turns = 2.5", "max_turns: expected an integer"),
        ("cmd_timeout = true", "cmd_timeout: expected a number, got true"),
        ('cmd_timeout = "20"', "cmd_timeout: expected a number"),
        ("protected = true", "protected: expected an array"),
    ],
)
def test_values_of_the_wrong_type_are_not_coerced(tmp_path, line, said):
    (tmp_path / ".coder.toml").write_text(line + "\n")
    with pytest.raises(ConfigError, match=re.escape(said)):
        load_repo_config(tmp_path)


def test_whole_seconds_are_a_fine_timeout(tmp_path):
    (tmp_path / ".coder.toml").write_text("cmd_timeout = 20\nmax_turns = 7\n")
    config = load_repo_config(tmp_path)
    assert (config.cmd_timeout, config.max_turns) == (20.0, 7)


@pytest.mark.parametrize(
    ("pinned", "command"),
    [
        (
            "pnpm@9.1.0+sha512.67f5879916a9293e5cf059c23853d571beaf4f753c707f40cb22bed5fb1578c6",
            "pnpm test",
        ),
        ("yarn@4.1.0", "yarn test"),
        ("bun@1.1.8", "bun run test"),
        ("npm@10.2.4", "npm test"),
        (None, "npm test"),
    ],
)
def test_the_test_script_runs_through_the_pinned_package_manager(tmp_path, pinned, command):
    package = {"scripts": {"test": "vitest run"}}
    if pinned:
        package["packageManager"] = pinned
    (tmp_path / "package.json").write_text(json.dumps(package))
    assert detect_test_cmd(tmp_path) == command


def test_an_in_repository_venv_runs_pytest(tmp_path):
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_x.py").write_text("")
    (tmp_path / ".venv" / "bin").mkdir(parents=True)
    assert detect_test_cmd(tmp_path) == "python -m pytest -q"
    (tmp_path / ".venv" / "bin" / "python").symlink_to(sys.executable)
    assert detect_test_cmd(tmp_path) == ".venv/bin/python -m pytest -q"
    worktree = tmp_path / "worktree"
    (worktree / "tests").mkdir(parents=True)
    (worktree / "tests" / "test_x.py").write_text("")
    assert detect_test_cmd(worktree) == "python -m pytest -q"
    assert detect_test_cmd(worktree, checkout=tmp_path) == ".venv/bin/python -m pytest -q"


@pytest.mark.parametrize("path", [".worktreeinclude", ".coder.toml", ".coder", ".coder/runs/x"])
def test_what_decides_later_runs_is_protected_by_default(tmp_path, path):
    """A step that wrote `.worktreeinclude` would choose what the next run brings in."""
    from coder.config import confinement
    from sandbox.policy import PathPolicy

    (tmp_path / ".coder.toml").write_text('protected = ["docs/**"]\n')
    _mode, protected, _warnings = confinement(
        load_repo_config(tmp_path), sandbox_flag=None, always_protected=[]
    )
    decision = PathPolicy(tmp_path, None, protected=protected).check(path, write=True)
    assert not decision.allowed


def test_a_linked_configuration_file_is_refused_and_never_read(tmp_path):
    private = tmp_path / "private"
    private.mkdir(mode=0o700)
    (private / "c.toml").write_text('test_cmd = "cat /etc/shadow"\n')
    repo = tmp_path / "repo"
    repo.mkdir()
    (repo / ".coder.toml").symlink_to(private / "c.toml")
    with pytest.raises(ConfigError, match=r"\.coder\.toml is a symlink"):
        load_repo_config(repo)


def test_a_file_naming_a_model_is_valid_and_says_it_is_ignored(tmp_path):
    from coder.config import ignored_model

    (tmp_path / ".coder.toml").write_text('model = "script:.model.json"\nmax_turns = 5\n')
    config = load_repo_config(tmp_path)
    assert config.max_turns == 5
    assert ignored_model(config) == (
        "the repository's configuration names a model; ignored: only --model on the command "
        "line chooses the model"
    )
    assert ignored_model(load_repo_config(tmp_path / "absent")) is None


@pytest.mark.parametrize(
    ("key", "value", "default", "kept"),
    [
        ("cmd_timeout", 100000.0, 120.0, None),
        ("cmd_timeout", 30.0, 120.0, 30.0),
        ("cmd_timeout", 120.0, 120.0, 120.0),
        ("max_turns", 61, 60, None),
        ("max_revisions", 0, 3, 0),
        ("context_tokens", 9000, 24000, 9000),
    ],
)
def test_a_repository_limit_counts_only_when_it_tightens(key, value, default, kept):
    from coder.config import RepoConfig, repository_limit

    value_of, warning = repository_limit(RepoConfig(**{key: value}), key, default)
    assert value_of == kept
    assert (warning is None) == (kept is not None)
    if warning:
        assert f"sets {key} = {value:g}, above the {default:g} this run has; ignored" in warning


def test_what_a_repository_may_set_is_written_down_for_every_key():
    """Each key has its line in REPOSITORY_MAY_SET and in the README's Configuration section."""
    from pathlib import Path

    from coder.config import LIMIT_FLAGS, REPOSITORY_MAY_SET, RepoConfig

    assert set(REPOSITORY_MAY_SET) == set(RepoConfig.model_fields)
    assert set(LIMIT_FLAGS) <= set(REPOSITORY_MAY_SET)
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    section = readme.split("## Configuration", 1)[1].split("\n## ", 1)[0]
    for key in REPOSITORY_MAY_SET:
        assert f"`{key}`" in section, key
    for flag in LIMIT_FLAGS.values():
        assert flag in readme, flag
