"""A hook the base's log never reached: npm runs `posttest` only when `test` passed, so a base
with a red test hides a red lint. The final check runs the hook by itself on the base commit;
red there the same way, it does not count, and the evidence names it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from gitrepo import git, make_repo

from coder.verdict.base_probe import BaseProbe
from coder.verdict.baseline import Baseline
from coder.verdict.final_check import final_check
from coder.verdict.run import run_tests
from sandbox.confine import make_sandbox

LIB = "function absolute(x) {\n  return x;\n}\n\nmodule.exports = { absolute };\n"
TEST = """\
const test = require('node:test');
const assert = require('node:assert');
const { absolute } = require('../src/calc.js');

test('absolute of a negative', () => {
  assert.strictEqual(absolute(-2), 2);
});
"""
LINT = """\
const fs = require('node:fs');

if (!fs.readFileSync('src/calc.js', 'utf8').startsWith('//')) {
  console.log('lint: src/calc.js: the source has no licence header');
  process.exit(1);
}
"""
PACKAGE = {"name": "calc", "private": True, "scripts": {"test": "node --test", "posttest": ""}}
"""No `version`: npm 11 heads each script's lines with `> test`, `> posttest` alone."""


@pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed")
def test_a_hook_red_at_the_base_behind_a_red_test_is_probed_there_and_named(
    tmp_path: Path,
) -> None:
    package = {**PACKAGE, "scripts": {**PACKAGE["scripts"], "posttest": "node lint.cjs"}}
    repo = make_repo(
        tmp_path / "repo",
        {
            "src/calc.js": LIB,
            "test/calc.test.js": TEST,
            "lint.cjs": LINT,
            "package.json": json.dumps(package),
        },
    )
    box = make_sandbox("bwrap", repo)
    base_run = run_tests(box, repo, "npm test", 120)
    assert base_run.failing and "posttest" not in base_run.result.output
    base = Baseline("npm test", base_run)
    (repo / "src/calc.js").write_text(LIB.replace("return x;", "return Math.abs(x);"))
    git(repo, "commit", "-qam", "fix")
    probe = BaseProbe(repo, git(repo, "rev-parse", "HEAD~1").strip(), box, 120)
    checked = final_check(box, repo, base, 120, probe=probe)
    assert checked.passed, checked.detail
    assert "`posttest: node lint.cjs` was red at the base the same way" in checked.detail
