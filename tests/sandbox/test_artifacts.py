"""What test runners write into the tree is no change of the model's: left out of a commit and
of the patch (also when only the command's own arguments named it), and a tracked one that a
run rewrote is put back as it was."""

from __future__ import annotations

from sandbox.artifacts import Artifacts, keep_tracked
from sandbox.checkpoint import Checkpoints
from tests.sandbox.gitrepos import make_repo, run_git, write_files

RUNNER = Artifacts((".tap/", "coverage/", "*.tsbuildinfo", "/junit.xml", "/reports/out"))


def test_patterns_name_a_directory_anywhere_a_name_anywhere_or_a_path_from_the_root():
    assert RUNNER.matches(".tap/processinfo/a.json")
    assert RUNNER.matches("pkg/coverage/lcov.info") and RUNNER.matches("coverage/")
    assert RUNNER.matches("web/app.tsbuildinfo")
    assert RUNNER.matches("junit.xml") and not RUNNER.matches("test/junit.xml")
    assert RUNNER.matches("reports/out") and RUNNER.matches("reports/out/index.html")
    assert not RUNNER.matches("reports/outline.md") and not RUNNER.matches("coverage.py")


def test_a_commit_and_the_patch_leave_the_untracked_artifacts_out(tmp_path):
    repo = make_repo(tmp_path / "r", {"src/calc.js": "old\n"})
    checkpoints = Checkpoints(repo, artifacts=RUNNER)
    base = run_git(repo, "rev-parse", "HEAD").strip()
    write_files(
        repo,
        {
            "src/calc.js": "new\n",
            "junit.xml": "<testsuites/>\n",
            ".tap/test-results/calc.tap": "ok 1\n",
            "coverage/lcov.info": "TN:\n",
            "reports/out/index.html": "<html/>\n",
            "notes.md": "the model's own file\n",
        },
    )
    changed = sorted(c.path for c in checkpoints.changes_since(base))
    assert changed == ["notes.md", "src/calc.js"]
    patch = checkpoints.patch_since(base)
    assert "b/src/calc.js" in patch and "b/notes.md" in patch
    assert "junit.xml" not in patch and ".tap" not in patch and "coverage" not in patch
    checkpoints.commit("step")
    committed = run_git(repo, "show", "--name-only", "--format=", "HEAD").split()
    assert sorted(committed) == ["notes.md", "src/calc.js"]
    assert (repo / "junit.xml").exists() and (repo / ".tap").is_dir()


def test_a_tracked_artifact_a_run_rewrote_or_removed_is_put_back(tmp_path):
    repo = make_repo(
        tmp_path / "r",
        {
            "junit.xml": "<kept/>\n",
            "coverage/README.md": "kept\n",
            "src/a.js": "a\n",
            "test/junit.xml": "<a fixture/>\n",
        },
    )
    (repo / "junit.xml").write_text("<the model's change/>\n")
    kept = keep_tracked(repo, RUNNER)
    assert sorted(kept.files) == ["coverage/README.md", "junit.xml"]
    (repo / "junit.xml").write_text("<a run's report/>\n")
    (repo / "coverage" / "README.md").unlink()
    (repo / "coverage" / "lcov.info").write_text("TN:\n")
    (repo / "src" / "a.js").write_text("changed\n")
    assert sorted(kept.restore()) == ["coverage/README.md", "junit.xml"]
    assert (repo / "junit.xml").read_text() == "<the model's change/>\n"
    assert (repo / "coverage" / "README.md").read_text() == "kept\n"
    assert (repo / "coverage" / "lcov.info").exists(), "an untracked artifact is not removed"
    assert (repo / "src" / "a.js").read_text() == "changed\n", "only artifacts are kept"
    assert kept.restore() == []
