import re

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
    assert detect_test_cmd(tmp_path) == "npm test --silent"
    py = tmp_path / "py"
    (py / "tests").mkdir(parents=True)
    (py / "tests" / "test_x.py").write_text("")
    assert detect_test_cmd(py) == "python -m pytest -q"


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
