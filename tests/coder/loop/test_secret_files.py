"""A key a command copies into a file, in any form the harness recognises, is never committed
or written into the run's records; the step fails naming the file, never the value."""

from __future__ import annotations

import base64
import gzip
import zlib
from pathlib import Path
from urllib.parse import quote

import pytest
from calcrepo import FIX_ADD, plan, step
from gitrepo import git

from coder.loop.runner import RunOptions, run_task
from coder.loop.state.trace import read_trace
from sandbox.secrets import SecretScan

SECRET = "sk-ant-api03-Zq7xK2pLm9Wv4Rt8Yb6Nc1Hd5Jf3Gs0"
FORMS = {
    "plain.txt": "cat S",
    "reversed.txt": "rev S",
    "base32.txt": "base32 S",
    "hex.txt": "xxd -p S",
    "spaced.txt": "sed 's/./& /g' S",
    "dashed.txt": "sed 's/./&-/g' S",
    "split.txt": "fold -w 7 S",
    "packed.gz": "gzip -c S",
    "packed.z": "python3 -c \"import sys,zlib; sys.stdout.buffer.write(zlib.compress(open(sys.argv[1],'rb').read()))\" S",
}


@pytest.mark.parametrize(
    "text",
    [
        SECRET,
        SECRET[::-1],
        base64.b64encode(b"xy" + SECRET.encode()).decode(),
        base64.b32encode(b"abc" + SECRET.encode()).decode(),
        SECRET.encode().hex().upper(),
        quote(SECRET, safe=""),
        " ".join(SECRET),
        "\n".join(SECRET[i : i + 5] for i in range(0, len(SECRET), 5)),
    ],
)
def test_the_scan_recognises_each_form(text):
    assert SecretScan([SECRET]).holds(f"before {text} after")


def test_compressed_file_content_is_inflated(tmp_path: Path):
    scan = SecretScan([SECRET])
    (tmp_path / "a.gz").write_bytes(gzip.compress(SECRET.encode()))
    (tmp_path / "a.z").write_bytes(zlib.compress(SECRET[::-1].encode()))
    (tmp_path / "other").write_bytes(gzip.compress(b"nothing to see " * 100))
    assert scan.files_holding(tmp_path, ["a.gz", "a.z", "other"]) == ["a.gz", "a.z"]


def test_ordinary_text_is_not_a_secret():
    scan = SecretScan([SECRET])
    text = Path(__file__).read_text().replace(SECRET, "").replace("SECRET[::-1]", "")
    assert not scan.holds(text.replace("Zq7xK2pLm9Wv4Rt8Yb6Nc1Hd5Jf3Gs0", ""))


def copy_commands(stash: Path) -> str:
    return " && ".join(
        f"{cmd.replace('S', str(stash)) if cmd != 'cat S' else f'cat {stash}'} > {name}"
        for name, cmd in FORMS.items()
    )


def test_a_step_that_copies_the_key_into_files_fails_and_nothing_holds_it(
    calc_repo, script, monkeypatch, tmp_path
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    stash = tmp_path / "stash"
    stash.write_text(SECRET)
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="t",
            model=script(
                plan(step("s", ["calc.py", "*.txt", "*.gz", "*.z"], [])),
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "run", "input": {"command": copy_commands(stash)}},
                {"tool": "finish_step", "input": {"summary": f"done {SECRET[::-1]}"}},
            ),
            sandbox="none",
            revise=False,
        )
    )
    events = read_trace(outcome.run_dir / "trace.jsonl")
    scope = next(
        e for e in events if e["type"] == "verification" and e["kind"] == "files_within_scope"
    )
    assert scope["status"] == "failed"
    for name in FORMS:
        assert name in scope["evidence"]
    assert outcome.result.status != "verified"
    scan = SecretScan([SECRET])
    for path in outcome.run_dir.iterdir():
        assert not scan.file_holds(path.parent, path.name), path.name
    tree = git(calc_repo, "ls-tree", "-r", "--name-only", outcome.result.branch).split()
    assert not set(FORMS) & set(tree)


def test_a_react_run_leaves_the_key_out_of_its_commit_and_says_so(
    calc_repo, script, monkeypatch, tmp_path
):
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    stash = tmp_path / "stash"
    stash.write_text(SECRET)
    outcome = run_task(
        RunOptions(
            repo=calc_repo,
            task="t",
            mode="react",
            model=script(
                {"tool": "edit_file", "input": FIX_ADD},
                {"tool": "run", "input": {"command": f"rev {stash} > key.txt"}},
                {"tool": "final_answer", "input": {"summary": "fixed"}},
            ),
            sandbox="none",
        )
    )
    tree = git(calc_repo, "ls-tree", "-r", "--name-only", outcome.result.branch).split()
    assert "key.txt" not in tree and "calc.py" in tree
    notes = [
        e["text"]
        for e in read_trace(outcome.run_dir / "trace.jsonl")
        if e["type"] == "observation" and e.get("tool") is None
    ]
    assert any("left out of the commit: key.txt held a secret" in n for n in notes)
    scan = SecretScan([SECRET])
    for path in outcome.run_dir.iterdir():
        assert not scan.file_holds(path.parent, path.name), path.name
