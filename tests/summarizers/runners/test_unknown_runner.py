"""A runner coder does not read runs whole and is judged by its exit status and its counts line
where it prints one; every evidence line says so (issue 30)."""

from __future__ import annotations

from pathlib import Path

import pytest

from coder.verdict.evidence import final_detail, step_head
from coder.verdict.judge import final_policy, judge, step_policy
from coder.verdict.proof import judge_proof
from coder.verdict.run import read_run
from sandbox.running import CommandResult
from summarizers.runners.commands import readers_of
from summarizers.runners.model import spelled_target
from summarizers.runners.reader import counts_line

AVA = """
> pkg@1.0.0 test
> ava

  ✔ adds
  ✘ [fail]: subtracts Difference is not 1

  ─

  subtracts

  1 test failed
  1 test passed
"""


def test_the_counts_line_of_a_runner_coder_does_not_read() -> None:
    assert counts_line(["  1 test failed", "  2 tests passed"]) == {"failed": 1, "passed": 2}
    assert counts_line(["test result: ok. 5 passed; 0 failed; 1 ignored"]) == {
        "passed": 5,
        "failed": 0,
        "skipped": 1,
    }
    assert counts_line(["all good"]) == {}


def test_an_unknown_runner_is_judged_by_its_exit_and_the_evidence_says_so() -> None:
    red = read_run("npm test", "npm test", CommandResult("npm test", 1, 1.0, AVA))
    green = read_run(
        "npm test", "npm test", CommandResult("npm test", 0, 1.0, AVA.replace("1 test failed", ""))
    )
    assert not red.facts().readers and red.facts().passed_count == 1
    failed = judge(red.facts(), green.facts(), step_policy())
    assert not failed.passed
    assert "no test runner coder reads printed these results: judged by the exit status" in (
        step_head(failed)
    )
    passed = judge(green.facts(), red.facts(), final_policy())
    assert passed.passed
    assert "judged by the exit status and its counts line (1 passed)" in final_detail(passed)


DATA = Path(__file__).parents[1] / "data" / "runners"
SCRIPTS = {"ava_camelcase_red.log": "xo && ava && tsd", "ava_npm_red.log": "ava"}


@pytest.mark.parametrize("log", sorted(SCRIPTS))
def test_a_known_runner_never_reads_an_unknown_one_by_its_look(log: str) -> None:
    """AVA's `✔`/`✘` lines look like mocha's: a section is read by a runner module only when
    its own command (npm's banner, else the test command through its script) runs it."""
    text = (DATA / log).read_text()
    red = read_run(
        "npm test",
        "npm test",
        CommandResult("npm test", 1, 1.0, text),
        scripts={"test": SCRIPTS[log]},
    )
    facts = red.facts()
    assert facts.readers == () and facts.outcomes == {}
    assert [s.counts for s in red.log.sections] == [{"failed": 1}]
    green = read_run(
        "npm test",
        "npm test",
        CommandResult("npm test", 0, 1.0, text.replace("1 test failed", "")),
        scripts={"test": SCRIPTS[log]},
    )
    proof = judge_proof(
        facts, judge(green.facts(), None, step_policy()), [spelled_target("test.js")]
    )
    assert proof.proven
    assert proof.lines[0].startswith("judged by exit status")


def test_a_runner_in_a_chain_still_reads_its_section() -> None:
    text = (DATA / "mocha_spec.log").read_text()
    run = read_run(
        "npm test",
        "npm test",
        CommandResult("npm test", 1, 1.0, text),
        scripts={"test": "eslint . && mocha"},
    )
    assert run.facts().readers == ("mocha",)


@pytest.mark.parametrize(
    "command",
    [
        "sh run-tests.sh",
        "./run-tests.sh",
        "make test",
        "node scripts/test.js",
        "env CI=1 bash t.sh",
    ],
)
def test_a_command_coder_cannot_see_into_is_read_by_the_look_of_its_output(command: str) -> None:
    """A wrapper script or a build tool may run any runner: its output is still read by the
    runner it looks like (pytest's `-x` stop behind `sh run-tests.sh` was lost otherwise),
    unlike a program coder knows is no runner it reads (`ava`)."""
    assert readers_of(command, {}) is None
    assert readers_of("npm test", {"test": command}) is None
    text = (DATA / "mocha_spec.log").read_text()
    run = read_run(command, command, CommandResult(command, 1, 1.0, text))
    assert run.facts().readers == ("mocha",)


@pytest.mark.parametrize("command", ["ava", "xo && ava && tsd", "npx ava --verbose"])
def test_a_program_that_is_no_known_runner_is_followed_and_reads_nothing(command: str) -> None:
    assert readers_of(command, {}) == []
