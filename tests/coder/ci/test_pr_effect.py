"""The PR's fate, hunk by hunk, on real commits: the shapes a fix can leave a PR in."""

from __future__ import annotations

from pathlib import Path

import pytest
from ci_repos import commit_all, git, init_repo, write

from coder.ci.pr_effect import pr_effect

BASE = {"m.py": "a\nb\nc\nd\ne\nf\ng\n", "keep.txt": "k\n"}


def _history(
    tmp_path: Path, pr: dict[str, str | None], fix: dict[str, str | None]
) -> tuple[Path, str, str, str]:
    repo = tmp_path / "r"
    init_repo(repo)
    write(repo, BASE)
    base = commit_all(repo, "base")
    write(repo, pr)
    head = commit_all(repo, "pr")
    write(repo, fix)
    return repo, base, head, commit_all(repo, "fix")


@pytest.mark.parametrize(
    ("pr", "fix", "fates", "outside"),
    [
        ({"new.py": "x\ny\n"}, {"new.py": None}, ["reverted"], 0),
        ({"new.py": "x\ny\n"}, {"new.py": "x\nY\n"}, ["changed"], 0),
        ({"keep.txt": None}, {"keep.txt": "k\n"}, ["reverted"], 0),
        (
            {"m.py": "a\nb\nc\nX\nY\nd\ne\nf\ng\n"},
            {"m.py": "a\nb\nc\nX\nZ\nd\ne\nf\ng\n"},
            ["changed"],
            0,
        ),
        ({"m.py": "a\nb\nc\nX\nY\nd\ne\nf\ng\n"}, {"m.py": BASE["m.py"]}, ["reverted"], 0),
        ({"m.py": "a\nc\nd\ne\nf\ng\n"}, {"m.py": BASE["m.py"]}, ["reverted"], 0),
        ({"m.py": "a\nc\nd\ne\nf\ng\n"}, {"m.py": "a\nc\nd\ne\nf\nG\n"}, ["kept"], 1),
        (
            {"m.py": "A\nb\nc\nd\ne\nf\nG\n"},
            {"m.py": "A\nb\nc\nd\ne\nf\ng\n"},
            ["kept", "reverted"],
            0,
        ),
    ],
    ids=[
        "added-file-deleted",
        "added-file-edited",
        "deleted-file-restored",
        "insertion-edited",
        "insertion-removed",
        "deletion-restored",
        "deletion-kept-edit-elsewhere",
        "two-hunks-one-reverted",
    ],
)
def test_fates(
    tmp_path: Path,
    pr: dict[str, str | None],
    fix: dict[str, str | None],
    fates: list[str],
    outside: int,
) -> None:
    repo, base, head, fixed = _history(tmp_path, pr, fix)
    effect = pr_effect(repo, base, head, fixed)
    assert [h.fate for h in effect.hunks] == fates
    assert effect.outside_lines == outside
    assert effect.reverts_all == (fates and all(f == "reverted" for f in fates))


@pytest.mark.parametrize(
    ("pr", "fix", "reverted"),
    [
        ({"m.py": "a\nb\nc\nX\nY\nZ\nd\ne\nf\ng\n"}, {"m.py": "a\nb\nc\nX\nZ\nd\ne\nf\ng\n"}, 1),
        ({"m.py": "a\nB\nC\nD\ne\nf\ng\n"}, {"m.py": "a\nB\nc\nD\ne\nf\ng\n"}, 1),
        ({"m.py": "a\nB\nC\nD\ne\nf\ng\n"}, {"m.py": "a\nB\nQ\nD\ne\nf\ng\n"}, 0),
    ],
    ids=[
        "one-of-three-inserted-lines-removed",
        "one-of-three-replaced-lines-restored",
        "rewritten",
    ],
)
def test_a_partly_reverted_hunk_counts_its_reverted_lines(
    tmp_path: Path, pr: dict[str, str | None], fix: dict[str, str | None], reverted: int
) -> None:
    """The live trial's case: the fix undid part of a PR hunk, and the sentence said it
    reverted nothing."""
    repo, base, head, fixed = _history(tmp_path, pr, fix)
    effect = pr_effect(repo, base, head, fixed)
    assert [(h.fate, h.lines, h.reverted_lines) for h in effect.hunks] == [("changed", 3, reverted)]
    assert effect.sentence == (
        f"this fix reverts {reverted} of 3 changed lines of the PR; of its 1 hunk it changes 1"
    )


@pytest.mark.parametrize(
    ("fix", "fate"),
    [(b"\x00base", "reverted"), (b"\x00head", "kept"), (b"\x00other", "changed")],
)
def test_binary_files_are_judged_whole(tmp_path: Path, fix: bytes, fate: str) -> None:
    repo = tmp_path / "r"
    init_repo(repo)
    (repo / "logo.bin").write_bytes(b"\x00base")
    base = commit_all(repo, "base")
    (repo / "logo.bin").write_bytes(b"\x00head")
    head = commit_all(repo, "pr")
    (repo / "logo.bin").write_bytes(fix)
    fixed = commit_all(repo, "fix") if fix != b"\x00head" else head
    effect = pr_effect(repo, base, head, fixed)
    assert [(h.path, h.fate, h.lines) for h in effect.hunks] == [("logo.bin", fate, 1)]


def test_a_pr_of_no_text_lines_says_so(tmp_path: Path) -> None:
    repo = tmp_path / "r"
    init_repo(repo)
    write(repo, BASE)
    base = commit_all(repo, "base")
    git(repo, "commit", "-q", "--allow-empty", "-m", "empty pr")
    head = git(repo, "rev-parse", "HEAD")
    effect = pr_effect(repo, base, head, head)
    assert effect.hunks == [] and not effect.reverts_all
    assert "nothing of it to keep or revert" in effect.sentence
