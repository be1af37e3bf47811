from __future__ import annotations

from pathlib import Path

from ci_repos import FAST_PYTEST, git, js_pr, python_pr, write

from coder.ci.suite import choose_test_command, compare_runs, run_suite, tree_sandbox
from coder.ci.trees import commit_tree
from sandbox.confine import make_sandbox


def test_tests_run_in_a_worktree_of_the_commit_and_new_failures_are_told_apart(
    tmp_path: Path,
) -> None:
    repo, base, head = python_pr(tmp_path)
    with commit_tree(repo, head) as tree:
        assert tree != repo and (tree / "extra.py").is_file()
        choice = choose_test_command(None, tree)
        assert choice.command is not None and choice.command.source == "detected"
        assert choice.command.command == "python -m pytest -q"
        command = FAST_PYTEST
        at_head = run_suite(make_sandbox("auto", tree), tree, command, ref="feature", commit=head)
    with commit_tree(repo, base) as tree:
        at_base = run_suite(make_sandbox("auto", tree), tree, command, ref="main", commit=base)
    assert not at_head.run.passed and not at_base.run.passed
    assert "test_extra.py::test_triple" in at_head.failing
    assert "test_calc.py::test_known_bug" in at_head.failing & at_base.failing
    new, fixed = compare_runs(at_head, at_base)
    assert new == ["test_extra.py::test_triple"] and fixed == []
    assert "test_triple" in at_head.run.log
    assert not (repo / "extra.py").exists()
    assert git(repo, "status", "--porcelain") == ""
    assert "coder/" not in git(repo, "branch", "--list")
    assert git(repo, "worktree", "list").count("\n") == 0


def test_command_from_flag_then_config_then_detection(tmp_path: Path) -> None:
    repo, _base, _head = js_pr(tmp_path)
    assert choose_test_command(None, repo).command.command == "node --test"  # type: ignore[union-attr]
    write(repo, {".coder.toml": 'test_cmd = "npm test"\n'})
    chosen = choose_test_command(None, repo).command
    assert chosen is not None and (chosen.command, chosen.source) == ("npm test", "config")
    flagged = choose_test_command("node --test test/", repo).command
    assert flagged is not None and flagged.source == "flag"
    write(repo, {".coder.toml": 'test_cmnd = "x"\n'})
    broken = choose_test_command(None, repo)
    assert broken.warnings and "test_cmnd" in broken.warnings[0]
    assert broken.command is not None and broken.command.source == "detected"


def test_a_pull_requests_config_may_shorten_the_suites_time_never_lengthen_it(
    tmp_path: Path,
) -> None:
    repo, _base, _head = js_pr(tmp_path)
    write(repo, {".coder.toml": "cmd_timeout = 100000\n"})
    longer = choose_test_command(None, repo)
    assert longer.timeout_s == 600
    assert "sets cmd_timeout = 100000, above the 600 this run has; ignored" in longer.warnings[0]
    write(repo, {".coder.toml": "cmd_timeout = 30\n"})
    assert choose_test_command(None, repo).timeout_s == 30


def test_the_tree_of_a_commit_sees_the_checkouts_ignored_dependencies(tmp_path: Path) -> None:
    """`coder ci` gets the environment a run gets: the checkout's ignored node_modules
    (with a bare sandbox of the tree the same suite fails: "Cannot find module")."""
    repo = tmp_path / "deps"
    git(tmp_path, "init", "-q", "-b", "main", str(repo))
    write(
        repo,
        {
            ".gitignore": "node_modules/\n",
            "index.js": "module.exports = (n) => require('is-number')(n) ? n * 2 : null;\n",
            "test/double.test.js": (
                "const test = require('node:test');\nconst assert = require('node:assert');\n"
                "test('doubles', () => assert.strictEqual(require('..')(2), 4));\n"
            ),
        },
    )
    git(repo, "add", "-A")
    git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "base")
    head = git(repo, "rev-parse", "HEAD").strip()
    write(
        repo,
        {"node_modules/is-number/index.js": "module.exports = (n) => typeof n === 'number';\n"},
    )
    with commit_tree(repo, head) as tree:
        assert not (tree / "node_modules").exists()
        bare = run_suite(
            make_sandbox("auto", tree), tree, "node --test test/", ref="main", commit=head
        )
        sandbox = tree_sandbox(tree, "auto", "node --test test/", None, include=[])
        outcome = run_suite(sandbox, tree, "node --test test/", ref="main", commit=head)
    assert not bare.run.passed and "is-number" in bare.run.log
    assert outcome.run.passed, outcome.run.log
