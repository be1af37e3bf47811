"""`--env NAME` and `pass_env`: what a confined command sees of the host's environment,
checked with a real run whose model asks a real bwrap-confined command to print it."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from calcrepo import FIX_ADD, FIX_STEP, make_calc_repo, plan
from clirun import coder_argv, coder_env
from gitrepo import write_script

from sandbox.environment import NamedEnv, sandbox_environment
from sandbox.passenv import PassEnvError, passed_environment

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


def _seen_by_a_command(tmp_path, config: str, *flags: str) -> tuple[set[str], str]:
    repo = make_calc_repo(tmp_path)
    (repo / ".coder.toml").write_text(config)
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "config"], cwd=repo, check=True)
    script = write_script(
        tmp_path / "s.json",
        [
            plan(FIX_STEP),
            {"tool": "run", "input": {"command": PRINT}},
            {"tool": "edit_file", "input": FIX_ADD},
            {"tool": "finish_step", "input": {"summary": "fixed"}},
        ],
    )
    env = {**coder_env(), **HOST}
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
    seen = {line for line in text.splitlines() if "=" in line and line.split("=")[0] in HOST}
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
    assert "CFG_TOKEN, which looks like a secret; withheld" in said


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
