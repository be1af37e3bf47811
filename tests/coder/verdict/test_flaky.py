"""A test that fails once and passes when run again is flaky, not broken: the final check
reruns a few new failures once, on a fresh checkout of the same commit, and does not count the
ones that pass (the dayjs replay: `dayjs()` and `moment()` a second apart under load failed a
right change). A failure that only a file left by the first run makes pass is not flaky: the
fresh checkout has no such file (issue 32: a deterministic failure waived as "flaky")."""

from __future__ import annotations

import subprocess
from pathlib import Path

from gitrepo import make_repo

from coder.verdict.evidence import final_check as final_check_result
from coder.verdict.flaky import passed_again
from coder.verdict.judge import final_policy, judge
from coder.verdict.run import run_tests
from sandbox.confine import make_sandbox

FLAKY = """from pathlib import Path

SEEN = Path(__file__).parent / ".seen"
SHARED = {"polluted": False}


def test_a_pollutes():
    SHARED["polluted"] = True


def test_races_the_clock():
    assert not SHARED["polluted"], "another test changed what this one reads"


def test_state_file():
    first = not SEEN.exists()
    SEEN.touch()
    assert not first, "fails unless a file the first run made is there"


def test_broken():
    assert 1 + 1 == 3


def test_fine():
    assert True
"""


def _repo(tmp_path: Path) -> Path:
    return make_repo(
        tmp_path / "repo",
        {"tests/test_clock.py": FLAKY, ".gitignore": "tests/.seen\n__pycache__/\n"},
    )


def test_a_test_that_passes_when_run_again_is_flaky_and_a_broken_one_is_not(tmp_path):
    repo = _repo(tmp_path)
    sandbox = make_sandbox("bwrap", repo)
    command = "python -m pytest -q -p no:cacheprovider"
    first = run_tests(sandbox, repo, command, 120)
    failing = sorted(first.failing)
    assert failing == [
        "tests/test_clock.py::test_broken",
        "tests/test_clock.py::test_races_the_clock",
        "tests/test_clock.py::test_state_file",
    ]
    assert (repo / "tests" / ".seen").exists()
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()
    again = passed_again(sandbox, repo, head, command, failing, 120)
    assert again.passed == ["tests/test_clock.py::test_races_the_clock"]


def test_the_judge_does_not_count_a_flaky_test_and_names_it(tmp_path):
    repo = _repo(tmp_path)
    sandbox = make_sandbox("bwrap", repo)
    command = "python -m pytest -q -p no:cacheprovider"
    (repo / "tests" / "test_clock.py").write_text(
        FLAKY.replace("assert 1 + 1 == 3", "pass").replace('SHARED["polluted"] = True', "pass")
    )
    base = run_tests(sandbox, repo, command, 120)  # at the base: .seen absent, races... once
    (repo / "tests" / ".seen").unlink()
    now = run_tests(sandbox, repo, command, 120)
    base_facts = base.facts()
    base_facts = type(base_facts)(
        **{
            **base_facts.__dict__,
            "outcomes": {t: "passed" for t in base_facts.outcomes},
            "exit_code": 0,
        }
    )
    counted = judge(now.facts(), base_facts, final_policy())
    assert not counted.passed and counted.counted == ["tests/test_clock.py::test_state_file"]
    forgiven = judge(now.facts(), base_facts, final_policy(flaky=counted.counted))
    assert forgiven.passed and forgiven.flaky == counted.counted
    detail = final_check_result(forgiven, now, "").detail
    assert "flaky (failed, then passed when run again on a fresh checkout" in detail
