"""The local evaluation of a JavaScript instance: its ids are coder's runner ids, run through
the verdict's seam (the repository's test command scoped to test_patch's files, confined)."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from gitrepo import git, make_repo

from coder.bench.swebench import Instance
from coder.bench.swebench_eval import NOT_EVALUATED, RESOLVED, UNRESOLVED, evaluate

PACKAGE = json.dumps(
    {"name": "tiny", "version": "1.0.0", "private": True, "scripts": {"test": "node --test"}},
    indent=2,
)
LIB = "exports.double = (n) => n + n;\nexports.half = (n) => n * 2;\n"
OLD_TEST = """const test = require('node:test');
const assert = require('node:assert');
const { double } = require('../lib');

test('doubles a number', () => {
  assert.strictEqual(double(3), 6);
});
"""
TEST_PATCH = """diff --git a/test/half.test.js b/test/half.test.js
new file mode 100644
--- /dev/null
+++ b/test/half.test.js
@@ -0,0 +1,7 @@
+const test = require('node:test');
+const assert = require('node:assert');
+const { half } = require('../lib');
+
+test('halves a number', () => {
+  assert.strictEqual(half(6), 3);
+});
diff --git a/test/double.test.js b/test/double.test.js
--- a/test/double.test.js
+++ b/test/double.test.js
@@ -7,1 +7,5 @@ test('doubles a number', () => {
 });
+
+test('doubles zero', () => {
+  assert.strictEqual(double(0), 0);
+});
"""
GOLD = """diff --git a/lib.js b/lib.js
--- a/lib.js
+++ b/lib.js
@@ -2 +2 @@
-exports.half = (n) => n * 2;
+exports.half = (n) => n / 2;
"""


def js_repo(tmp_path: Path) -> tuple[Path, Instance]:
    repo = make_repo(
        tmp_path / "tiny",
        {"package.json": PACKAGE, "lib.js": LIB, "test/double.test.js": OLD_TEST},
    )
    instance = Instance(
        instance_id="acme__tiny-js-1",
        repo="acme/tiny",
        base_commit=git(repo, "rev-parse", "HEAD").strip(),
        problem_statement="half() doubles",
        test_patch=TEST_PATCH,
        FAIL_TO_PASS=["halves a number"],
        PASS_TO_PASS=["doubles a number", "doubles zero"],
    )
    return repo, instance


def commit(repo: Path, patch: str) -> str:
    subprocess.run(["git", "apply", "-"], cwd=repo, input=patch, text=True, check=True)
    git(repo, "commit", "-qam", "change")
    return git(repo, "rev-parse", "HEAD").strip()


def test_the_gold_patch_resolves_and_the_base_does_not(tmp_path):
    repo, instance = js_repo(tmp_path)
    base = evaluate(repo, instance, instance.base_commit, tmp_path / "work")
    assert base.status == UNRESOLVED, base.detail
    assert base.fail_to_pass == {"halves a number": "FAILED"}
    assert base.pass_to_pass == {"doubles a number": "PASSED", "doubles zero": "PASSED"}
    graded = evaluate(repo, instance, commit(repo, GOLD), tmp_path / "work")
    assert graded.status == RESOLVED, graded.detail


def test_a_test_the_change_broke_is_unresolved(tmp_path):
    repo, instance = js_repo(tmp_path)
    broken = GOLD.replace("n / 2;", "n / 2;\n+throw new Error('broken at load');")
    broken = broken.replace("@@ -2 +2 @@", "@@ -2 +2,2 @@")
    graded = evaluate(repo, instance, commit(repo, broken), tmp_path / "work")
    assert graded.status == UNRESOLVED, graded.detail


def test_ids_that_do_not_run_even_at_the_base_are_not_evaluated(tmp_path):
    repo, instance = js_repo(tmp_path)
    instance = instance.model_copy(update={"FAIL_TO_PASS": ["a test nobody wrote"]})
    graded = evaluate(repo, instance, commit(repo, GOLD), tmp_path / "work")
    assert graded.status == NOT_EVALUATED
    assert "do not run here even without the change" in graded.detail
