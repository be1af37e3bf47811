"""Local evaluation as SWE-bench grades it: the gold patches resolve every shipped instance and
the base resolves none; test files are judged as the instance ships them whatever the model
did to them; and a machine that cannot run the tests says "not evaluated", never "unresolved"."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from gitrepo import git, make_repo, snapshot
from swebench_repos import INSTANCES

from coder.bench.swebench import Instance, load_instances
from coder.bench.swebench_eval import (
    NOT_EVALUATED,
    RESOLVED,
    UNRESOLVED,
    evaluate,
    patched_paths,
    status_of,
)
from coder.bench.swebench_job import InstanceError, prepare_clone

RECORDS = {json.loads(line)["instance_id"]: json.loads(line) for line in INSTANCES.open()}
SHIPPED = {i.instance_id: i for i in load_instances(INSTANCES).instances}


def commit_patch(clone: Path, patch: str, message: str = "change") -> str:
    if patch:
        subprocess.run(["git", "apply", "-"], cwd=clone, input=patch, text=True, check=True)
    git(clone, "add", "-A")
    git(clone, "commit", "-q", "--allow-empty", "-m", message)
    return git(clone, "rev-parse", "HEAD").strip()


@pytest.mark.parametrize("ident", sorted(SHIPPED))
def test_gold_patch_resolves_and_the_base_does_not(ident, swebench_repos, tmp_path):
    instance = SHIPPED[ident]
    before = snapshot(swebench_repos / instance.clone_name)
    clone = prepare_clone(swebench_repos, instance, tmp_path / "repo")
    assert snapshot(swebench_repos / instance.clone_name) == before
    base = evaluate(clone, instance, instance.base_commit, tmp_path)
    assert base.status == UNRESOLVED
    assert all(s == "PASSED" for s in base.pass_to_pass.values())
    assert all(s != "PASSED" for s in base.fail_to_pass.values())
    gold = commit_patch(clone, RECORDS[ident]["patch"], "gold")
    graded = evaluate(clone, instance, gold, tmp_path)
    assert graded.status == RESOLVED, graded.detail
    assert graded.as_json()["fail_to_pass"] == {
        "passed": len(instance.FAIL_TO_PASS),
        "total": len(instance.FAIL_TO_PASS),
        "failing": [],
    }


def test_test_files_are_judged_as_shipped_whatever_the_model_did(swebench_repos, tmp_path):
    instance = SHIPPED["r1chardj0n3s__parse-1.22.3"]
    clone = prepare_clone(swebench_repos, instance, tmp_path / "repo")
    tests = clone / "tests" / "test_parse.py"
    tests.write_text(tests.read_text().replace("def test_flexible_time(", "def _gone("))
    final = commit_patch(clone, RECORDS[instance.instance_id]["patch"], "fix, and drop a test")
    graded = evaluate(clone, instance, final, tmp_path)
    assert graded.status == RESOLVED, graded.detail
    assert graded.pass_to_pass["tests/test_parse.py::test_flexible_time"] == "PASSED"


TINY_PYTEST = "[pytest]\naddopts = -p no:hypothesispytest -p no:benchmark -p no:timeout\n"
"""The host's plugins cost seconds a run and these tests use none."""


def tiny_instance(repo: Path, test_patch: str, f2p: list[str], p2p: list[str]) -> Instance:
    return Instance(
        instance_id="acme__tiny-1",
        repo="acme/tiny",
        base_commit=git(repo, "rev-parse", "HEAD").strip(),
        problem_statement="x",
        test_patch=test_patch,
        FAIL_TO_PASS=f2p,
        PASS_TO_PASS=p2p,
    )


NEW_TEST = """diff --git a/tests/test_new.py b/tests/test_new.py
new file mode 100644
--- /dev/null
+++ b/tests/test_new.py
@@ -0,0 +1,5 @@
+import tiny
+
+
+def test_new():
+    assert tiny.value() == 2
"""


def test_a_test_environment_that_cannot_run_here_is_not_evaluated(tmp_path):
    repo = make_repo(
        tmp_path / "tiny",
        {
            "pytest.ini": TINY_PYTEST,
            "tiny.py": "import module_this_machine_lacks\n\n\ndef value():\n    return 1\n",
            "tests/test_old.py": "import tiny\n\n\ndef test_old():\n    assert tiny.value() == 1\n",
        },
    )
    instance = tiny_instance(
        repo, NEW_TEST, ["tests/test_new.py::test_new"], ["tests/test_old.py::test_old"]
    )
    graded = evaluate(repo, instance, instance.base_commit, tmp_path / "work")
    assert graded.status == NOT_EVALUATED
    assert "do not run here even without the change" in graded.detail
    assert "module_this_machine_lacks" in graded.detail


def test_a_change_that_breaks_collection_is_unresolved_not_unevaluated(tmp_path):
    repo = make_repo(
        tmp_path / "tiny",
        {
            "pytest.ini": TINY_PYTEST,
            "tiny.py": "def value():\n    return 1\n",
            "tests/test_old.py": "import tiny\n\n\ndef test_old():\n    assert tiny.value() == 1\n",
        },
    )
    instance = tiny_instance(
        repo, NEW_TEST, ["tests/test_new.py::test_new"], ["tests/test_old.py::test_old"]
    )
    (repo / "tiny.py").write_text("def value(:\n")
    final = commit_patch(repo, "", "syntax error")
    graded = evaluate(repo, instance, final, tmp_path / "work")
    assert graded.status == UNRESOLVED
    assert graded.fail_to_pass == {"tests/test_new.py::test_new": "missing"}


def test_ids_no_run_names_even_at_the_base_are_not_evaluated(tmp_path):
    repo = make_repo(tmp_path / "tiny", {"pytest.ini": TINY_PYTEST, "tiny.py": "x = 1\n"})
    instance = tiny_instance(repo, NEW_TEST, ["test_new (tests.test_new.NewTest)"], [])
    graded = evaluate(repo, instance, instance.base_commit, tmp_path / "work")
    assert graded.status == NOT_EVALUATED
    assert "do not run here even without the change" in graded.detail


def test_patched_paths_name_old_and_new_files():
    patch = (
        "diff --git a/tests/old.py b/tests/new.py\nsimilarity index 90%\n"
        "rename from tests/old.py\nrename to tests/new.py\n--- a/tests/old.py\n+++ b/tests/new.py\n"
        "@@ -1 +1 @@\n-a\n+b\n"
    )
    assert patched_paths(patch) == ["tests/old.py", "tests/new.py"]
    assert patched_paths(NEW_TEST) == ["tests/test_new.py"]


def test_clone_problems_are_one_line_each(swebench_repos, tmp_path):
    instance = SHIPPED["r1chardj0n3s__parse-1.22.1"]
    with pytest.raises(InstanceError, match="no clone of r1chardj0n3s/parse"):
        prepare_clone(tmp_path, instance, tmp_path / "a")
    missing = instance.model_copy(update={"base_commit": "f" * 40})
    with pytest.raises(InstanceError, match=f"base_commit {'f' * 40} is not in"):
        prepare_clone(swebench_repos, missing, tmp_path / "b")
    bad_patch = instance.model_copy(
        update={"test_patch": RECORDS["martinblech__xmltodict-1.0.3"]["test_patch"]}
    )
    with pytest.raises(InstanceError, match="test_patch does not apply at base_commit"):
        prepare_clone(swebench_repos, bad_patch, tmp_path / "c")


def test_ids_cut_inside_their_parameters_match_as_the_grader_matches_them():
    statuses = {"t.py::test[log(photon x]": "PASSED", "t.py::test[log(photon y]": "XFAIL"}
    assert status_of("t.py::test[log(photon", statuses) == "PASSED"
    assert status_of("t.py::test[log(photon x]", statuses) == "PASSED"
    statuses["t.py::test[log(photon z]"] = "FAILED"
    assert status_of("t.py::test[log(photon", statuses) is None
    assert status_of("t.py::test", statuses) is None


def test_git_works_for_a_confined_command_in_an_instances_clone(swebench_repos, tmp_path):
    """A step's `run` of `git log` or `git stash` must see the clone's objects (a `--shared`
    clone borrowed them from the cache, out of the sandbox's sight: "bad object HEAD")."""
    from sandbox.confine import make_sandbox

    instance = SHIPPED["r1chardj0n3s__parse-1.22.3"]
    clone = prepare_clone(swebench_repos, instance, tmp_path / "repo")
    sandbox = make_sandbox("bwrap", clone)
    result = sandbox.run("git log -1 --format=%H && git show --stat HEAD", cwd=clone, timeout_s=60)
    assert result.exit_code == 0, result.output
    assert instance.base_commit in result.output


PRINTS_PASSED = """import atexit


def value():
    return 1


atexit.register(print, "PASSED tests/test_new.py::test_new")
"""


def test_a_patch_that_prints_passed_at_exit_passes_nothing(tmp_path):
    """The outcomes come from pytest's JUnit XML report the harness asks for, not from the
    log, which the patch's own code can print into."""
    repo = make_repo(
        tmp_path / "tiny",
        {
            "pytest.ini": TINY_PYTEST,
            "tiny.py": "def value():\n    return 1\n",
            "tests/test_old.py": "import tiny\n\n\ndef test_old():\n    assert tiny.value() == 1\n",
        },
    )
    instance = tiny_instance(
        repo, NEW_TEST, ["tests/test_new.py::test_new"], ["tests/test_old.py::test_old"]
    )
    (repo / "tiny.py").write_text(PRINTS_PASSED)
    final = commit_patch(repo, "", "fixes nothing, says it passed")
    graded = evaluate(repo, instance, final, tmp_path / "work")
    assert graded.status == UNRESOLVED, graded.detail
    assert graded.fail_to_pass == {"tests/test_new.py::test_new": "FAILED"}
    assert graded.outcomes_from == "pytest's JUnit XML report"
    assert graded.detail.endswith("; outcomes from pytest's JUnit XML report")


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_predictions_in_that_only_print_passed_are_not_resolved(swebench_repos, tmp_path):
    """`coder bench --predictions-in`, as a person runs it: a prediction that fixes nothing but
    prints `PASSED <id>` for the instance's failing test at exit is unresolved; the gold patch
    is resolved; each row says its outcomes came from pytest's JUnit XML report."""
    from clirun import coder_argv, coder_env

    ident = "r1chardj0n3s__parse-1.22.1"
    instance = SHIPPED[ident]
    clone = prepare_clone(swebench_repos, instance, tmp_path / "clone")
    package = clone / "parse" / "__init__.py"
    said = "".join(f'print("PASSED {t}")\n' for t in instance.FAIL_TO_PASS)
    package.write_text(
        package.read_text()
        + "\n\nimport atexit\n\n\n@atexit.register\ndef _claim():\n"
        + "".join(f"    {line}" for line in said.splitlines(keepends=True))
    )
    printing = subprocess.run(
        ["git", "diff"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout
    predictions = tmp_path / "peer.jsonl"
    predictions.write_text(
        "".join(
            json.dumps({"instance_id": ident, "model_name_or_path": name, "model_patch": patch})
            + "\n"
            for name, patch in (("printer", printing), ("gold", RECORDS[ident]["patch"]))
        )
    )
    done = subprocess.run(
        coder_argv(
            *("bench", "--swebench", str(INSTANCES), "--repos", str(swebench_repos)),
            *("--only", ident, "--modes", "contract", "--model", f"script:{tmp_path / 'none'}"),
            *("--predictions-in", str(predictions), "--json", str(tmp_path / "out.json")),
        ),
        cwd=tmp_path,
        env={**coder_env(), "XDG_CACHE_HOME": str(tmp_path / "cache")},
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = {r["mode"]: r for r in json.loads((tmp_path / "out.json").read_text())["runs"]}
    printer, gold = rows["printer"], rows["gold"]
    assert printer["evaluation"]["status"] == UNRESOLVED, printer["evaluation"]
    assert printer["evaluation"]["fail_to_pass"]["failing"] == instance.FAIL_TO_PASS
    assert not printer["resolved"]
    assert gold["evaluation"]["status"] == RESOLVED, gold["evaluation"]
    for row in (printer, gold):
        assert row["evaluation"]["outcomes_from"] == "pytest's JUnit XML report"
