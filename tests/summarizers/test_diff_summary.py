from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from summarizers.diffs import summarize_diff
from summarizers.tokens import estimate_tokens


def _git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-c", "user.email=t@t", "-c", "user.name=t", *args],
        cwd=root,
        check=True,
        capture_output=True,
        text=True,
    ).stdout


@pytest.fixture
def patch(tmp_path: Path) -> str:
    """A real `git diff` with an edit, a new file, a deletion, a rename, binary and mode changes."""
    _git(tmp_path, "init", "-q")
    (tmp_path / "edit.py").write_text("".join(f"line {i}\n" for i in range(60)))
    (tmp_path / "gone.txt").write_text("bye\n")
    (tmp_path / "old_name.py").write_text("x = 1\n" * 20)
    (tmp_path / "img.bin").write_bytes(b"\x00\x01\x02")
    (tmp_path / "run.sh").write_text("echo hi\n")
    _git(tmp_path, "add", "-A")
    _git(tmp_path, "commit", "-qm", "base")
    text = (tmp_path / "edit.py").read_text().replace("line 5\n", "line five\n")
    (tmp_path / "edit.py").write_text(text.replace("line 50\n", "line fifty\nextra\n"))
    (tmp_path / "gone.txt").unlink()
    (tmp_path / "new.py").write_text("def f():\n    return 1\n")
    _git(tmp_path, "mv", "old_name.py", "new_name.py")
    (tmp_path / "img.bin").write_bytes(b"\x00\x09\x02")
    (tmp_path / "run.sh").chmod(0o755)
    _git(tmp_path, "add", "-A")
    return _git(tmp_path, "diff", "--cached")


def test_stat_of_every_kind_of_change(patch: str) -> None:
    summary = summarize_diff(patch)
    stats = {f.path: f for f in summary.files}
    assert stats["edit.py"].status == "modified"
    assert (stats["edit.py"].added, stats["edit.py"].removed) == (3, 2)
    assert stats["new.py"].status == "added" and stats["new.py"].added == 2
    assert stats["gone.txt"].status == "deleted" and stats["gone.txt"].removed == 1
    assert (
        stats["new_name.py"].status == "renamed" and stats["new_name.py"].old_path == "old_name.py"
    )
    assert stats["img.bin"].binary
    assert (stats["run.sh"].old_mode, stats["run.sh"].new_mode) == ("100644", "100755")
    assert "R old_name.py -> new_name.py" in summary.text
    assert "M img.bin (binary)" in summary.text
    assert "mode 100644 -> 100755" in summary.text
    assert "+line fifty" in summary.text  # everything fits the default budget: hunks included
    assert summary.hunks_shown == summary.hunks_total == 4


@pytest.mark.parametrize("budget", [1, 10, 40, 60, 90, 120, 200, 400, 1500])
def test_budget_is_never_exceeded_and_left_out_hunks_are_counted(patch: str, budget: int) -> None:
    summary = summarize_diff(patch, budget=budget)
    assert estimate_tokens(summary.text) <= budget
    if budget >= 120 and summary.hunks_shown < summary.hunks_total:
        missing = summary.hunks_total - summary.hunks_shown
        assert f"[{missing} of {summary.hunks_total} hunks left out: " in summary.text
        said = summary.text.split("hunks left out: ")[1].split("]")[0]
        for named in said.split(", "):
            path, count = named.rsplit(" (", 1)
            assert int(count.rstrip(")")) > 0 and path in {f.path for f in summary.files}
        assert sum(int(n.rsplit(" (", 1)[1].rstrip(")")) for n in said.split(", ")) == missing
        assert "files changed" in summary.text


def test_empty_and_garbage_patches_do_not_raise() -> None:
    assert summarize_diff("").text == "(empty diff)"
    garbage = summarize_diff("@@ -1,3 +1,4 @@\n-a\n", budget=50)
    assert estimate_tokens(garbage.text) <= 50


def test_a_cut_diff_names_every_file_it_left_out() -> None:
    """A retry restoring part of a rolled-back attempt must be able to name each file."""
    patch = "".join(
        f"diff --git a/f{i}.py b/f{i}.py\n--- a/f{i}.py\n+++ b/f{i}.py\n"
        f"@@ -1,3 +1,3 @@\n a\n-{'x' * 300}\n+{'y' * 300}\n c\n"
        for i in range(9)
    )
    text = summarize_diff(patch, budget=200).text
    left_out = text.rsplit("hunks left out: ", 1)[1]
    assert all(f"f{i}.py" in left_out for i in range(9))
    assert "more files" not in text
