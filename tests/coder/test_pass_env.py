"""`--env NAME` and `pass_env`: what a confined command sees of the host's environment,
checked with a real run whose model asks a real bwrap-confined command to print it."""

from __future__ import annotations

import base64
import json
import shutil
import subprocess

import pytest
from calcrepo import FIX_ADD, FIX_STEP, make_calc_repo, plan
from clirun import coder_argv, coder_env
from gitrepo import write_script

from sandbox.environment import NamedEnv, sandbox_environment
from sandbox.passenv import PassEnvError, passed_environment
from sandbox.secrets import SecretScan

PRINT = (
    "env | grep -E '^(PLAIN_VAR|MY_TOKEN|CFG_VAR|CFG_TOKEN|UNNAMED_VAR)=' | sort; "
    'test "$MY_TOKEN" = tok-123456789 && echo MY_TOKEN=matches; true'
)
"""The trace redacts a secret's value, so the command says whether it saw the real one."""
HOST = {
    "PLAIN_VAR": "plain-value",
    "MY_TOKEN": "tok-123456789",
    "CFG_VAR": "cfg-value",
    "CFG_TOKEN": "cfg-secret-987654321",
    "UNNAMED_VAR": "unnamed",
}


def _seen_by_a_command(
    tmp_path, config: str, *flags: str, host: dict[str, str] | None = None, show: str = PRINT
) -> tuple[set[str], str]:
    repo = make_calc_repo(tmp_path)
    (repo / ".coder.toml").write_text(config)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "config"], cwd=repo, check=True)
    script = write_script(
        tmp_path / "s.json",
        [
            plan(FIX_STEP),
            {"tool": "run", "input": {"command": show}},
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ],
    )
    env = {**coder_env(), **HOST, **(host or {})}
    proc = subprocess.run(
        coder_argv(
            "run", "--task", "fix add", "--repo", str(repo), "--model", f"script:{script}",
            "--sandbox", "bwrap", "--json", *flags,
        ),
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    run_dir = repo / ".coder" / "runs" / json.loads(proc.stdout)["run_id"]
    events = [json.loads(line) for line in (run_dir / "trace.jsonl").read_text().splitlines()]
    text = next(e["text"] for e in events if e["type"] == "observation" and e["tool"] == "run")
    names = {*HOST, *(host or {})}
    seen = {line for line in text.splitlines() if "=" in line and line.split("=")[0] in names}
    return seen, proc.stderr


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_named_variables_reach_a_confined_command_and_config_cannot_pass_secrets(tmp_path):
    seen, said = _seen_by_a_command(
        tmp_path,
        'pass_env = ["CFG_VAR", "CFG_TOKEN"]\n',
        "--env", "PLAIN_VAR", "--env", "MY_TOKEN",
    )  # fmt: skip
    assert seen == {
        "PLAIN_VAR=plain-value",
        "MY_TOKEN=[redacted]",
        "MY_TOKEN=matches",
        "CFG_VAR=cfg-value",
    }
    assert "variables named like credentials (CFG_TOKEN); withheld" in said


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_without_names_commands_see_none_of_them(tmp_path):
    seen, _ = _seen_by_a_command(tmp_path, "")
    assert seen == set()


def test_a_secret_named_on_the_command_line_passes_only_its_own_value():
    host = {**HOST, "ANTHROPIC_API_KEY": "sk-ant-secret-value"}
    passed = passed_environment(host, config_names=[], cli_names=["MY_TOKEN"])
    forged = NamedEnv(
        {**passed.values, "COPY": "sk-ant-secret-value", "ANTHROPIC_API_KEY": "x"},
        explicit=passed.values.explicit,
    )
    env = sandbox_environment(host, forged, home="/h", tmpdir="/t")
    assert env["MY_TOKEN"] == "tok-123456789"
    assert "COPY" not in env and "ANTHROPIC_API_KEY" not in env
    overridden = NamedEnv({"MY_TOKEN": "other"}, explicit=frozenset({"MY_TOKEN"}))
    assert "MY_TOKEN" not in sandbox_environment(host, overridden, home="/h", tmpdir="/t")


@pytest.mark.parametrize("name", ["*_VAR", "A=B", "", "1X"])
def test_names_are_exact(name):
    with pytest.raises(PassEnvError):
        passed_environment(HOST, config_names=[], cli_names=[name])


def test_a_name_the_host_does_not_set_is_said():
    passed = passed_environment(HOST, config_names=["NOPE"], cli_names=["ALSO_NOPE"])
    assert dict(passed.values) == {}
    assert any("NOPE" in note and "not set" in note for note in passed.notes)
    assert any("--env ALSO_NOPE" in note for note in passed.notes)


KEY = "sk-ant-api03-Zx8vQ2mN4pL7rT1wY6uB3kD9"
"""A stand-in for the harness's model key (nothing is sent anywhere)."""
SCAN = {"scanner": lambda secrets: SecretScan(secrets).holds}
"""The scanner the runner gives: every form of a secret the harness recognises."""

REPOSITORY_CREDENTIALS = {
    "npm_config__authtoken": "npm_0123456789abcdefghijklmnopqrstuvwxyz",
    "NPM_CONFIG__AUTH": "dXNlcjpwYXNzd29yZA==",
    "DOCKER_AUTH_CONFIG": '{"auths": {"r.example": {"auth": "dXNlcjpwYXNz"}}}',
    "SENTRY_DSN": "https://0123456789abcdef0123456789abcdef@o1.ingest.sentry.io/2",
    "PGPASS": "hunter2-the-db",
    "DATABASE_URL": "postgres://app:hunter2-the-db@db.example/app",
    "HTTPS_PROXY": "http://me:proxy-pass@proxy.example:3128",
    "TEST_SERVICE_URL": "https://svc.example/?q=" + KEY[::-1],
}


def test_a_repository_cannot_pass_a_credential_by_name_or_by_value():
    harmless = {"NODE_OPTIONS": "--max-old-space-size=2048", "CACHE_URL": "redis://cache:6379/0"}
    host = {**REPOSITORY_CREDENTIALS, **harmless, "ANTHROPIC_API_KEY": KEY}
    passed = passed_environment(
        host, config_names=[*REPOSITORY_CREDENTIALS, *harmless], cli_names=[], **SCAN
    )
    assert dict(passed.values) == harmless
    said = "\n".join(passed.notes)
    assert len(passed.notes) == 3  # one line a kind: names, a password in a URL, a secret of yours
    for name in REPOSITORY_CREDENTIALS:
        assert name in said
    assert (
        "(npm_config__authtoken, NPM_CONFIG__AUTH, DOCKER_AUTH_CONFIG, SENTRY_DSN, PGPASS)" in said
    )
    assert "values hold a password in a URL (DATABASE_URL, HTTPS_PROXY)" in said
    assert "values hold a secret of yours (TEST_SERVICE_URL)" in said
    assert all(value not in said for value in host.values())
    cli = passed_environment(host, config_names=[], cli_names=["DATABASE_URL", "PGPASS"], **SCAN)
    assert dict(cli.values) == {n: host[n] for n in ("DATABASE_URL", "PGPASS")}  # the user's call


@pytest.mark.parametrize(
    "value",
    [KEY, f"Bearer {KEY}", KEY[::-1], base64.b64encode(KEY.encode()).decode(), f"x-{KEY.upper()}"],
    ids=["plain", "bearer", "reversed", "base64", "upper"],
)
def test_the_model_key_never_passes_under_any_name_or_form(value):
    host = {"ANTHROPIC_API_KEY": KEY, "KEY_COPY": value, "MY_TOKEN": "tok-123456789"}
    passed = passed_environment(
        host, config_names=[], cli_names=["KEY_COPY", "ANTHROPIC_API_KEY", "MY_TOKEN"], **SCAN
    )
    assert dict(passed.values) == {"MY_TOKEN": "tok-123456789"}
    assert passed.values.explicit == {"MY_TOKEN"}
    said = "\n".join(passed.notes)
    assert "--env KEY_COPY: its value holds the harness's model key; withheld" in said
    assert "--env ANTHROPIC_API_KEY: its value holds the harness's model key" in said
    assert KEY not in said and value not in said


def test_a_value_repeating_another_secret_passes_only_with_that_secret_named():
    host = {
        "GH_TOKEN": "ghp_abcdefghijklmnopqrstu",
        "REMOTE": "https://x:ghp_abcdefghijklmnopqrstu@h",
    }
    alone = passed_environment(host, config_names=[], cli_names=["REMOTE"], **SCAN)
    assert dict(alone.values) == {}
    assert "holds a secret of another variable of yours" in alone.notes[0]
    both = passed_environment(host, config_names=[], cli_names=["REMOTE", "GH_TOKEN"], **SCAN)
    assert dict(both.values) == host


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="needs bubblewrap")
def test_a_confined_command_never_sees_the_key_passed_under_another_name(tmp_path):
    show = 'test -n "$KEY_COPY" && echo KEY_COPY=seen || echo KEY_COPY=unseen'
    copy = base64.b64encode(f"Bearer {KEY}".encode()).decode()
    seen, said = _seen_by_a_command(
        tmp_path, "", "--env", "KEY_COPY",
        host={"ANTHROPIC_API_KEY": KEY, "KEY_COPY": copy}, show=show,
    )  # fmt: skip
    assert seen == {"KEY_COPY=unseen"}
    assert "--env KEY_COPY: its value holds the harness's model key; withheld" in said
