from __future__ import annotations

import pytest

from sandbox.environment import is_secret_name, sandbox_environment

HOST = {
    "PATH": "/usr/bin:/bin",
    "LANG": "C.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TERM": "xterm",
    "HOME": "/root",
    "ANTHROPIC_API_KEY": "sk-ant-very-secret-value",
    "OPENAI_API_KEY": "sk-openai-secret",
    "GITHUB_TOKEN": "ghp_secret_token_value",
    "GITHUB_REPOSITORY": "o/r",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
    "DB_PASSWORD": "hunter2hunter2",
    "DATABASE_URL": "postgres://u:pw@h/db",
    "VIRTUAL_ENV": "/venv",
}


def test_only_the_allowlist_and_fixed_values_pass() -> None:
    env = sandbox_environment(HOST, None, home="/tmp/home", tmpdir="/tmp")
    assert env == {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "LC_ALL": "C.UTF-8",
        "TERM": "xterm",
        "HOME": "/tmp/home",
        "TMPDIR": "/tmp",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONUNBUFFERED": "1",
        "GIT_OPTIONAL_LOCKS": "0",
        "PYTHONPYCACHEPREFIX": "/tmp/pycache",
    }


def test_extra_variables_pass_unless_they_carry_a_secret() -> None:
    extra = {
        "PYTEST_ADDOPTS": "-q",
        "MY_SERVICE_TOKEN": "abc",
        "SNEAKY": "prefix-sk-ant-very-secret-value",
        "HOME": "/elsewhere",
    }
    env = sandbox_environment(HOST, extra, home="/tmp/home", tmpdir="/tmp")
    assert env["PYTEST_ADDOPTS"] == "-q"
    assert "MY_SERVICE_TOKEN" not in env
    assert "SNEAKY" not in env
    assert env["HOME"] == "/tmp/home"


@pytest.mark.parametrize(
    "name",
    [
        "ANTHROPIC_API_KEY",
        "openai_api_key",
        "GITHUB_TOKEN",
        "GITHUB_EVENT_PATH",
        "NPM_AUTH_TOKEN",
        "CLIENT_SECRET",
        "MYSQL_PASSWORD",
        "GOOGLE_APPLICATION_CREDENTIALS",
        "SSH_KEY",
        "GITLAB_PAT",
    ],
)
def test_secret_names(name: str) -> None:
    assert is_secret_name(name)


@pytest.mark.parametrize("name", ["PATH", "LANG", "KEYBOARD", "TOKENIZERS_PARALLELISM", "HOME"])
def test_ordinary_names(name: str) -> None:
    assert not is_secret_name(name)
