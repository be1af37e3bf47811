"""The shipped real suite (fixtures/swebench/) and the tiny one of these tests, as the bench uses them.

(a) Every instance's gold patch resolves and its base does not, through the bench's own
evaluation, after its prepare (JS instances fetch from the npm registry once).
(b) Every recorded session, replayed by `coder bench --swebench FILE --model script:sessions`,
gives the verdict fields expected.json keeps for it; a recording without an entry, or an entry
without a recording, fails. A harness change that flips a verdict fails here: regenerate
expected.json with `python3 -m coder.bench.expected SUITE` only when the change is meant.
(c) An instance with recorded candidate sessions (`<id>.<mode>.a2.json`, a live player's later
attempts) run with `--attempts N` gives the resolved@1, resolved@N and oracle ATTEMPTS keeps for
it: the bench's selection checked on a real task.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from coder.bench.attempts import is_variant
from coder.bench.expected import EXPECTED_FILE, SESSIONS, recordings, replay
from coder.bench.layout import JS_RUNNERS_ENV, js_runners_dir
from coder.bench.prepare import Prepared, prepare_all
from coder.bench.shipped import cached_clones, suite_cache
from coder.bench.swebench import Instance, load_instances
from coder.bench.swebench_eval import RESOLVED, UNRESOLVED, Evaluation, evaluate
from coder.bench.swebench_job import prepare_clone

ROOT = Path(__file__).resolve().parents[3]
SUITES = [
    s
    for s in (ROOT / "fixtures" / "swebench", ROOT / "tests" / "data" / "swebench_tiny")
    if (s / "instances.jsonl").is_file()
]


def _instances(suite: Path) -> list[Instance]:
    return load_instances(suite / "instances.jsonl").instances


def _gold(suite: Path) -> dict[str, str]:
    lines = (suite / "instances.jsonl").read_text(encoding="utf-8").splitlines()
    return {json.loads(line)["instance_id"]: json.loads(line)["patch"] for line in lines if line}


def _marks(suite: Path) -> list[pytest.MarkDecorator]:
    """The shipped suite's runs take many minutes: CI runs them in its bench step."""
    return [pytest.mark.bench] if suite.parent.name == "fixtures" else []


INSTANCES = [
    pytest.param(suite, instance, id=f"{suite.name}/{instance.instance_id}", marks=_marks(suite))
    for suite in SUITES
    for instance in _instances(suite)
]
RECORDINGS = [
    pytest.param(suite, ident, mode, id=f"{suite.name}/{ident}.{mode}", marks=_marks(suite))
    for suite in SUITES
    for ident, mode in recordings(suite)
]


@pytest.fixture(scope="session")
def suite_cache_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One cache for the whole session: the clones built and each instance prepared once,
    whether the evaluation tests or the replays get there first."""
    home = tmp_path_factory.mktemp("xdg-cache")
    runners = js_runners_dir()
    with pytest.MonkeyPatch.context() as patch:
        # Later tests in this worker still find the runners scripts/js-runners installed.
        patch.setenv(JS_RUNNERS_ENV, str(runners))
        patch.setenv("XDG_CACHE_HOME", str(home))
        yield home


def _selected(request: pytest.FixtureRequest, test: str, suite: Path) -> list[Instance]:
    """The instances of `suite` that the session's selected `test` items name (`-k <id>`
    judges or replays that one alone, not the whole suite)."""
    names = set()
    for item in request.session.items:
        if getattr(item, "originalname", None) == test and item.callspec.params["suite"] == suite:
            found = item.callspec.params.get("instance") or item.callspec.params.get("ident")
            names.add(getattr(found, "instance_id", found))
    return [i for i in _instances(suite) if i.instance_id in names]


@pytest.fixture(scope="session")
def prepared_suite(
    suite_cache_home: Path, request: pytest.FixtureRequest
) -> Callable[[Path], tuple[Path, Prepared]]:
    done: dict[Path, tuple[Path, Prepared]] = {}

    def get(suite: Path) -> tuple[Path, Prepared]:
        if suite not in done:
            clones = cached_clones(suite / "repos", lambda _: None)
            wanted = _selected(request, "test_gold_resolves_and_the_base_does_not", suite)
            prepared = prepare_all(wanted, clones, suite_cache(suite / "repos"), lambda _: None, 2)
            done[suite] = (clones, prepared)
        return done[suite]

    return get


def _judge_gold_and_base(
    suite: Path, instance: Instance, clones: Path, prepared: Prepared, work: Path
) -> tuple[Evaluation, Evaluation]:
    """The base and the gold patch, each through the bench's own evaluation."""
    deps = prepared.deps.get(instance.instance_id)
    work.mkdir(parents=True)
    clone = prepare_clone(clones, instance, work / "repo")
    base = evaluate(clone, instance, instance.base_commit, work / "base", deps)
    subprocess.run(
        ["git", "apply", "-"],
        cwd=clone,
        input=_gold(suite)[instance.instance_id],
        text=True,
        check=True,
    )
    env = {
        **os.environ,
        "GIT_AUTHOR_NAME": "gold",
        "GIT_AUTHOR_EMAIL": "gold@coder.invalid",
        "GIT_COMMITTER_NAME": "gold",
        "GIT_COMMITTER_EMAIL": "gold@coder.invalid",
    }
    subprocess.run(["git", "commit", "-qam", "gold"], cwd=clone, env=env, check=True)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=clone, capture_output=True, text=True, check=True
    ).stdout.strip()
    return base, evaluate(clone, instance, head, work / "gold", deps)


@pytest.fixture(scope="session")
def judged(
    prepared_suite: Callable[[Path], tuple[Path, Prepared]],
    tmp_path_factory: pytest.TempPathFactory,
    request: pytest.FixtureRequest,
) -> Callable[[Path], dict[str, tuple[Evaluation, Evaluation]]]:
    """Every selected instance of a suite judged at its base and with its gold patch, two at
    a time (as the replays run)."""
    done: dict[Path, dict[str, tuple[Evaluation, Evaluation]]] = {}

    def get(suite: Path) -> dict[str, tuple[Evaluation, Evaluation]]:
        if suite not in done:
            clones, prepared = prepared_suite(suite)
            root = tmp_path_factory.mktemp(f"judged-{suite.name}")
            wanted = _selected(request, "test_gold_resolves_and_the_base_does_not", suite)
            runnable = [i for i in wanted if i.instance_id not in prepared.errors]

            def one(instance: Instance) -> tuple[Evaluation, Evaluation]:
                return _judge_gold_and_base(
                    suite, instance, clones, prepared, root / instance.instance_id
                )

            with ThreadPoolExecutor(max_workers=2) as pool:
                results = pool.map(one, runnable)
                done[suite] = {i.instance_id: r for i, r in zip(runnable, results, strict=True)}
        return done[suite]

    return get


@pytest.mark.timeout(1500)
@pytest.mark.parametrize(("suite", "instance"), INSTANCES)
def test_gold_resolves_and_the_base_does_not(suite, instance, prepared_suite, judged):
    _, prepared = prepared_suite(suite)
    assert instance.instance_id not in prepared.errors, prepared.errors[instance.instance_id]
    assert (instance.instance_id in prepared.deps) == bool(instance.prepare)
    base, gold = judged(suite)[instance.instance_id]
    assert base.status == UNRESOLVED, base.detail
    assert all(s != "PASSED" for s in base.fail_to_pass.values()), base.fail_to_pass
    assert all(s == "PASSED" for s in base.pass_to_pass.values()), base.pass_to_pass
    assert gold.status == RESOLVED, gold.detail


@dataclass
class Replays:
    verdicts: dict[str, Any]
    why: dict[tuple[str, str], list[str]]


@pytest.fixture(scope="session")
def replays(
    suite_cache_home: Path, request: pytest.FixtureRequest
) -> Callable[[Path, str], Replays]:
    """A suite's replayed verdicts: the whole suite in one bench when every one of its replay
    tests was selected, else each selected instance alone (`-k <id>` replays one)."""
    done: dict[Path, Replays] = {}

    def get(suite: Path, ident: str) -> Replays:
        found = done.setdefault(suite, Replays({}, {}))
        if ident not in found.verdicts:
            test = "test_a_replay_gives_the_expected_verdict"
            wanted = {i.instance_id for i in _selected(request, test, suite)}
            whole = wanted >= {i for i, _ in recordings(suite)}
            bench = replay(suite, workers=2, only=None if whole else ident)
            assert bench.process.returncode == 0, bench.process.stdout + bench.process.stderr
            found.verdicts.update(bench.verdicts)
            found.why.update(bench.why)
        return found

    return get


def _expected(suite: Path) -> dict[str, Any]:
    path = suite / EXPECTED_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}


@pytest.mark.parametrize("suite", SUITES, ids=[s.name for s in SUITES])
def test_every_recording_has_an_expected_verdict_and_the_reverse(suite):
    recorded = set(recordings(suite))
    expected = {(i, m) for i, modes in _expected(suite).items() for m in modes}
    assert sorted(recorded - expected) == [], "recordings with no entry in expected.json"
    assert sorted(expected - recorded) == [], "expected.json entries with no recording"


@pytest.mark.timeout(3600)  # the first one replays the whole suite when all are selected
@pytest.mark.parametrize(("suite", "ident", "mode"), RECORDINGS)
def test_a_replay_gives_the_expected_verdict(suite, ident, mode, replays):
    expected = _expected(suite).get(ident, {}).get(mode)
    assert expected is not None, f"{ident}.{mode}: no entry in {suite / EXPECTED_FILE}"
    found = replays(suite, ident)
    why = "\n".join(found.why.get((ident, mode), ["no run"]))
    assert found.verdicts.get(ident, {}).get(mode) == expected, why


ATTEMPTS = {
    # attempt 1 takes ',' only (upstream's test_numbers also parses '_d'), attempt 2 both: both
    # verify; attempt 2's proven test fails on attempt 1's tree, so attempt 2 is selected
    ("r1chardj0n3s__parse-221", "contract"): {
        "attempts": 2,
        "at_1_n_oracle": (False, True, True),
        "candidates": [("verified", False, False, "0/1"), ("verified", True, True, "1/1")],
    },
}
"""(instance, mode) of the shipped suite's candidate sessions -> what `--attempts N` gives:
resolved@1, @N, the oracle, and per attempt (status, selected, resolved, proofs passed)."""


def _candidate_sessions(suite: Path) -> dict[tuple[str, str], int]:
    """(instance, mode) -> the attempts its sessions hold (`x.json`, `x.a2.json`, ...)."""
    found: dict[tuple[str, str], int] = {}
    for path in (suite / SESSIONS).glob("*.json"):
        if is_variant(path):
            run, _, attempt = path.name.removesuffix(".json").rpartition(".")
            ident, _, mode = run.rpartition(".")
            found[(ident, mode)] = max(found.get((ident, mode), 1), int(attempt[1:]))
    return found


def test_every_candidate_session_has_its_attempts_check_and_the_reverse():
    suite = ROOT / "fixtures" / "swebench"
    found = _candidate_sessions(suite)
    assert found == {key: want["attempts"] for key, want in ATTEMPTS.items()}
    assert set(found) <= set(recordings(suite)), "a candidate session with no attempt-1 recording"


@pytest.mark.bench
@pytest.mark.timeout(1800)
@pytest.mark.parametrize(("ident", "mode"), sorted(ATTEMPTS), ids=lambda v: str(v))
def test_attempts_on_a_real_task_select_the_resolved_candidate(
    ident, mode, suite_cache_home, tmp_path
):
    suite = ROOT / "fixtures" / "swebench"
    want = ATTEMPTS[(ident, mode)]
    out = tmp_path / "bench.json"
    done = subprocess.run(
        [
            *(sys.executable, "-m", "coder", "bench", "--swebench", str(suite / "instances.jsonl")),
            *("--model", f"script:{suite / SESSIONS}", "--modes", mode, "--only", ident),
            *("--attempts", str(want["attempts"]), "--json", str(out)),
        ],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "120"},
    )
    assert done.returncode == 0, done.stdout + done.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    (row,) = [r for r in data["runs"] if r["fixture"] == ident]
    assert (row["resolved_at_1"], row["resolved"], row["oracle"]) == want["at_1_n_oracle"]
    got = [(a["status"], a["selected"], a["resolved"], a["proofs"]) for a in row["attempts"]]
    assert got == want["candidates"]
    assert not row["shipped_broken"]
    summary = data["attempts"]["per_mode"][mode]
    assert (summary["resolved_at_1"], summary["resolved_at_n"], summary["oracle"]) == tuple(
        int(x) for x in want["at_1_n_oracle"]
    )
