"""Conventions every command keeps: --version, -h, one-line usage errors, help that never cuts
an option's name, a task from a file or standard input."""

from __future__ import annotations

import json
import os
import re
import subprocess

import pytest
from calcrepo import FIX_TURNS, make_calc_repo
from clirun import coder, coder_argv, coder_env
from gitrepo import write_script

from coder.cli import app

COMMANDS = [["run"], ["plan"], ["resume"], ["bench"], ["show"], ["clean"], ["ci", "review"]]


def test_version_prints_the_package_version():
    from coder import __version__

    proc = coder("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"coder {__version__}"


@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_dash_h_is_help_everywhere(words):
    proc = coder(*words, "-h")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith(f"Usage: coder {' '.join(words)}")


def test_an_unknown_flag_is_one_line_and_exit_2():
    proc = coder("run", "--x")
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == ["error: unknown option --x; see coder run -h"]
    assert proc.stdout == ""
    missing = coder("run", "--task")
    assert missing.returncode == 2
    assert missing.stderr.strip() == "error: option '--task' requires an argument; see coder run -h"
    typo = coder("bench", "--jsn", "x")
    assert typo.returncode == 2 and len(typo.stderr.strip().splitlines()) == 1
    assert "did you mean --json?" in typo.stderr


def _option_names(words: list[str]) -> list[str]:
    from typer.main import get_command

    command = get_command(app)
    for word in words:
        command = command.commands[word]  # type: ignore[attr-defined]
    return [name for param in command.params for name in param.opts + param.secondary_opts]


@pytest.mark.parametrize("columns", ["80", None], ids=["COLUMNS=80", "pipe"])
@pytest.mark.parametrize("words", COMMANDS, ids=" ".join)
def test_help_never_cuts_an_option_name(words, columns):
    env = {k: v for k, v in coder_env().items() if k not in ("COLUMNS", "TERMINAL_WIDTH")}
    if columns:
        env["COLUMNS"] = columns
    proc = subprocess.run(
        coder_argv(*words, "--help"), capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 0
    assert "…" not in proc.stdout
    if columns:
        assert max(len(line) for line in proc.stdout.splitlines()) <= int(columns)
    for name in _option_names(words):
        assert re.search(rf"(^|[\s,/]){re.escape(name)}([\s,=]|$)", proc.stdout, re.M), name


def _git(repo, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, check=True
    ).stdout


def _fix_run(tmp_path, *task_args: str, stdin: str | None = None, **kw):
    repo = make_calc_repo(tmp_path)
    script = write_script(tmp_path / "s.json", list(FIX_TURNS))
    return coder(
        "run",
        *task_args,
        "--repo",
        str(repo),
        "--model",
        f"script:{script}",
        "--json",
        input=stdin,
        **kw,
    )


def test_task_from_standard_input(tmp_path):
    task = "Fix add().\n\nIt subtracts; the tests say so.\n"
    proc = _fix_run(tmp_path, "--task", "-", stdin=task)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["task"] == task.strip("\n")


def test_task_from_a_file(tmp_path):
    file = tmp_path / "task.md"
    file.write_text("# Fix add\nIt subtracts.\n")
    proc = _fix_run(tmp_path, "--task-file", str(file))
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["task"] == "# Fix add\nIt subtracts."


@pytest.mark.parametrize(
    ("args", "stdin", "said"),
    [
        ([], None, "the run needs a task"),
        (["--task", "x", "--task-file", "t.md"], None, "not both"),
        (["--task", "-"], "  \n", "the task from standard input is empty"),
        (["--task", "-"], "", "the task from standard input is empty"),
        (["--task-file", "missing.md"], None, "no such file"),
    ],
)
def test_task_sources_that_say_nothing_are_bad_input(tmp_path, args, stdin, said):
    proc = _fix_run(tmp_path, *args, stdin=stdin)
    assert proc.returncode == 2
    assert said in proc.stderr and len(proc.stderr.strip().splitlines()) == 1
    assert not (tmp_path / "repo" / ".coder").exists()


def test_task_from_a_closed_standard_input_is_one_line(tmp_path):
    """`coder run --task - <&-`: Python starts with no sys.stdin at all."""
    proc = _fix_run(tmp_path, "--task", "-", preexec_fn=lambda: os.close(0))
    assert proc.returncode == 2, proc.stderr
    assert "standard input is closed" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1, proc.stderr
    assert not (tmp_path / "repo" / ".coder").exists()
    assert "coder/" not in _git(tmp_path / "repo", "branch", "--list")
