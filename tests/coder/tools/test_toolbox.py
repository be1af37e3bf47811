"""The tool box over a real worktree-like git repository: every failure is a typed observation."""

from __future__ import annotations

import pytest
from gitrepo import make_repo

from coder.tools.toolbox import ToolBox
from sandbox.confine import make_sandbox
from sandbox.policy import PathPolicy


@pytest.fixture
def box(tmp_path):
    repo = make_repo(
        tmp_path / "repo",
        {
            "src/app.py": "def main():\n    return 1\n",
            "README.md": "hello\n",
            "data.bin": "",
        },
    )
    (repo / "data.bin").write_bytes(b"\0\1\2")
    return ToolBox(
        repo, make_sandbox("none", repo), PathPolicy(repo, ["src/**"], [".github/**"]), 5.0
    )


def test_read_file_numbers_lines_and_ranges(box):
    obs = box.execute("read_file", {"path": "src/app.py", "start_line": 2})
    assert obs.status == "ok" and obs.text.strip().startswith("2|") and "return 1" in obs.text


def test_missing_file_names_similar_paths(box):
    obs = box.execute("read_file", {"path": "app.py"})
    assert obs.status == "error" and "src/app.py" in obs.text


def test_binary_file_is_an_error_not_garbage(box):
    obs = box.execute("read_file", {"path": "data.bin"})
    assert obs.status == "error" and "binary" in obs.text


def test_edit_within_scope_and_denied_outside(box):
    ok = box.execute(
        "edit_file", {"path": "src/app.py", "old_text": "return 1", "new_text": "return 2"}
    )
    assert ok.status == "ok" and ok.fingerprint
    assert "return 2" in (box.root / "src/app.py").read_text()
    denied = box.execute("edit_file", {"path": "README.md", "old_text": "hello", "new_text": "bye"})
    assert denied.status == "denied" and "src/**" in denied.text
    assert (box.root / "README.md").read_text() == "hello\n"


@pytest.mark.parametrize("path", ["../outside.py", "/etc/passwd", ".git/config", "src/../../x.py"])
def test_paths_outside_the_repo_are_denied(box, path):
    obs = box.execute("write_file", {"path": path, "content": "x"})
    assert obs.status == "denied"


def test_bad_arguments_show_the_exact_form(box):
    obs = box.execute("edit_file", {"path": "src/app.py", "old": "x"})
    assert (
        obs.status == "error" and 'edit_file {"path": …, "old_text": …, "new_text": …}' in obs.text
    )


def test_unknown_tool_is_an_observation(box):
    assert box.execute("format_disk", {}).status == "error"


def test_write_and_delete(box):
    assert box.execute("write_file", {"path": "src/new.py", "content": "X = 1\n"}).status == "ok"
    assert box.execute("delete_file", {"path": "src/new.py"}).status == "ok"
    assert not (box.root / "src/new.py").exists()
    assert box.execute("delete_file", {"path": "src/new.py"}).status == "error"


def test_list_and_search(box):
    listed = box.execute("list_files", {"glob": "src/**"})
    assert listed.text.splitlines() == ["src/app.py"]
    found = box.execute("search", {"pattern": r"def \w+"})
    assert found.text.splitlines() == [
        "src/app.py:1: def main():",
        "(1 file(s) skipped: binary or not decodable as text)",
    ]
    assert box.execute("search", {"pattern": "("}).status == "error"


def test_run_reports_exit_code_and_timeout(box):
    ok = box.execute("run", {"command": "echo hi"})
    assert ok.status == "ok" and "exit code 0" in ok.text and "hi" in ok.text
    bad = box.execute("run", {"command": "exit 3"})
    assert bad.status == "error" and "exit code 3" in bad.text
    box.cmd_timeout_s = 0.5
    slow = box.execute("run", {"command": "sleep 5"})
    assert slow.status == "error" and "timed out" in slow.text


def test_flooding_command_is_compacted(box):
    obs = box.execute(
        "run",
        {"command": "for i in $(seq 1 20000); do echo line $i; done; echo 'Error: boom'; exit 1"},
    )
    assert obs.status == "error" and "Error: boom" in obs.text
    assert len(obs.text) < 20000
