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


def test_a_command_that_hit_a_bound_is_told_in_words(tmp_path):
    from sandbox.limits import Limits

    repo = tmp_path / "r"
    repo.mkdir()
    box = ToolBox(
        repo,
        make_sandbox("none", repo, limits=Limits(file_bytes=1 << 20)),
        PathPolicy(repo, None, []),
        10.0,
    )
    seen = box.execute("run", {"command": "head -c 5000000 /dev/zero > big"})
    assert seen.status == "error"
    assert (
        "the command hit a sandbox bound: a file it wrote reached the file size bound (1 MiB)"
        in seen.text
    )


@pytest.fixture
def nested(tmp_path):
    repo = make_repo(
        tmp_path / "nested",
        {
            "src/app.py": "def main():\n    if ready:\n        return 1\n    return 1\n",
            "setup.cfg": "[metadata]\n",
            "tox.ini": "[tox]\n",
            "pyproject.toml": "[project]\n",
            "src/long.py": "X = '" + "y" * 300 + "'\n",
        },
    )
    return ToolBox(repo, make_sandbox("none", repo), PathPolicy(repo, ["src/**"], []), 5.0)


def test_a_search_hit_copied_as_old_text_edits_exactly_that_line(nested):
    found = nested.execute("search", {"pattern": "return 1", "glob": "src/app.py"})
    hits = found.text.splitlines()
    assert hits == ["src/app.py:3:         return 1", "src/app.py:4:     return 1"]
    old = hits[0].split(": ", 1)[1]
    edit = nested.execute(
        "edit_file", {"path": "src/app.py", "old_text": old, "new_text": "        return 2"}
    )
    assert edit.status == "ok", edit.text
    assert (nested.root / "src/app.py").read_text().splitlines()[2:] == [
        "        return 2",
        "    return 1",
    ]


def test_consecutive_hits_joined_make_a_multi_line_old_text(nested):
    found = nested.execute("search", {"pattern": "def main|if ready"})
    old = "\n".join(line.split(": ", 1)[1] for line in found.text.splitlines())
    edit = nested.execute(
        "edit_file", {"path": "src/app.py", "old_text": old, "new_text": "def main():\n    if go:"}
    )
    assert edit.status == "ok", edit.text


def test_a_long_hit_is_cut_and_says_so(nested):
    hit = nested.execute("search", {"pattern": "yyy"}).text
    assert hit.startswith("src/long.py:1: X = 'yyy") and hit.endswith("[… 106 more characters]")


@pytest.mark.parametrize("tool", ["list_files", "search"])
def test_brace_globs_name_each_alternative(nested, tool):
    args = {"glob": "*.{ini,cfg}"} | ({"pattern": r"^\["} if tool == "search" else {})
    text = nested.execute(tool, args).text
    assert "setup.cfg" in text and "tox.ini" in text and "pyproject.toml" not in text


def test_a_glob_with_too_many_alternatives_says_what_to_do(nested):
    obs = nested.execute("list_files", {"glob": "{a,b}" * 7})
    assert obs.status == "error" and "expands to more than 64 patterns" in obs.text


def test_an_edit_that_deletes_shows_where_the_text_was(nested):
    obs = nested.execute(
        "edit_file", {"path": "src/app.py", "old_text": "    if ready:\n", "new_text": ""}
    )
    assert obs.text.splitlines() == [
        "edited src/app.py (line 2 changed); it now reads:",
        "    1| def main():",
        "    2|         return 1",
        "    3|     return 1",
    ]


def test_write_file_answers_with_the_file_it_wrote_cut_when_long(nested):
    small = nested.execute("write_file", {"path": "src/new.py", "content": "A = 1\nB = 2\n"})
    assert (
        small.text
        == "created src/new.py (2 lines, 12 chars); it now reads:\n    1| A = 1\n    2| B = 2"
    )
    content = "".join(f"V{i} = {i}\n" for i in range(1, 101))
    big = nested.execute("write_file", {"path": "src/new.py", "content": content}).text
    assert big.startswith("overwrote src/new.py (100 lines")
    assert "   20| V20 = 20\n  … 60 lines (read_file to see them)\n   81| V81 = 81" in big
    assert big.endswith("  100| V100 = 100")


def test_run_counts_a_failure_hidden_by_a_pipe_and_echoes_the_command_as_written(box):
    hidden = box.execute("run", {"command": "echo boom; false | tail -1"})
    assert hidden.status == "error" and "exit code 1" in hidden.text
    assert hidden.text.startswith("$ echo boom; false | tail -1\n") and "trap" not in hidden.text
    cut = box.execute("run", {"command": "seq 100000 | head -2 && echo next"})
    assert cut.status == "ok" and cut.text.endswith("1\n2\nnext")


def test_every_output_says_what_it_established_in_one_line(box):
    (box.root / "src" / "big.py").write_text("".join(f"x{i} = {i}\n" for i in range(500)))
    read = box.execute("read_file", {"path": "src/big.py", "start_line": 11, "end_line": 40})
    assert read.gist == (
        "[output masked to save context: src/big.py lines 11-40 of 500; read it again if needed]"
    )
    assert "lines 1-400 of 500" in box.execute("read_file", {"path": "src/big.py"}).gist
    found = box.execute("search", {"pattern": r"x\d+ = 4", "glob": "src/*"})
    assert found.gist.endswith("search 'x\\\\d+ = 4' in src/*: 111 matches in 1 file]")
    listed = box.execute("list_files", {"glob": "src/**"})
    assert listed.gist.endswith("list_files src/**: 2 files]")
    log = "printf 'tests/t.py::a PASSED\\n=== 1 failed, 1 passed in 0.02s ===\\n'; exit 1"
    ran = box.execute("run", {"command": log})
    assert ran.gist == (
        "[output masked to save context: $ printf 'tests/t.py::a PASSED\\n=== 1 failed, 1 passed "
        "in 0.02s ===\\n'; exit 1 → exit code 1: 1 failed, 1 passed in 0.02s]"
    )
    edit = box.execute(
        "edit_file", {"path": "src/app.py", "old_text": "return 1", "new_text": "return 2"}
    )
    assert edit.status == "ok" and edit.gist == "", "an edit's answer is never masked"
    assert box.execute("read_file", {"path": "nope.py"}).gist == ""


def test_read_file_cuts_a_long_line_and_a_long_answer_and_says_how_to_read_on(box):
    """A minified 4 MB one-line file (the probe's was 40 MB) and a file of many long lines:
    the answer stays within the bounds, each cut says what was cut and how to read the rest."""
    from coder.tools.toolbox import READ_LINE_CHARS, READ_TOTAL_CHARS

    (box.root / "src" / "min.js").write_text("x" * 4_000_000 + "\n")
    obs = box.execute("read_file", {"path": "src/min.js"})
    assert obs.status == "ok" and len(obs.text) < READ_LINE_CHARS + 300
    assert f"{4_000_000 - READ_LINE_CHARS} more characters on this line" in obs.text
    assert f"sed -n '1p' src/min.js | cut -c{READ_LINE_CHARS + 1}-" in obs.text

    (box.root / "src" / "wide.txt").write_text(("y" * 1500 + "\n") * 300)
    obs = box.execute("read_file", {"path": "src/wide.txt", "start_line": 1, "end_line": 300})
    assert len(obs.text) <= READ_TOTAL_CHARS + 200
    shown = READ_TOTAL_CHARS // 1501
    assert obs.text.rstrip().endswith(
        f"… {300 - shown} more lines (cut at the answer's size bound); "
        f"read_file with start_line={shown + 1}"
    ), obs.text[-200:]


def test_read_file_does_not_load_a_huge_file(box, monkeypatch):
    import coder.tools.toolbox as toolbox

    monkeypatch.setattr(toolbox, "READ_MAX_BYTES", 1 << 20)
    with open(box.root / "src" / "huge.log", "wb") as f:
        f.truncate(2 << 20)  # sparse: costs no disk
    obs = box.execute("read_file", {"path": "src/huge.log"})
    assert (
        obs.status == "error" and "more than read_file loads" in obs.text and "sed -n" in obs.text
    )


def test_a_file_name_with_a_newline_is_one_quoted_entry(box):
    odd = "src/a\nb.py"
    (box.root / odd).write_text("def odd():\n    pass\n")
    listed = box.execute("list_files", {"glob": "src/**"})
    assert listed.text.splitlines() == ['"src/a\\nb.py"', "src/app.py"]
    found = box.execute("search", {"pattern": "def odd"})
    assert found.text.splitlines()[0] == '"src/a\\nb.py":1: def odd():'
    assert box.execute("read_file", {"path": odd}).status == "ok"  # the quoted name, as JSON


def test_a_git_stash_in_the_sandbox_is_said_to_have_done_nothing(tmp_path):
    """.git is read-only to confined commands and `git stash` fails there without a word: the
    observation says so, and where to see the old code (three live players lost turns to it)."""
    repo = make_repo(tmp_path / "repo", {"src/app.py": "def main():\n    return 1\n"})
    (repo / "src/app.py").write_text("def main():\n    return 2\n")
    box = ToolBox(repo, make_sandbox("bwrap", repo), PathPolicy(repo, ["src/**"], []), 30.0)
    stash = box.execute("run", {"command": "git stash push -q src/app.py; git stash list"})
    assert "read-only" in stash.text and "git show HEAD:FILE" in stash.text
    assert (repo / "src/app.py").read_text().endswith("return 2\n")  # nothing was stashed
    log = box.execute("run", {"command": "git log --oneline -1 && git show HEAD:src/app.py"})
    assert log.status == "ok" and "return 1" in log.text
    assert "read-only" not in log.text
