"""Which files of a suite's sessions/ are recordings that expected.json keeps a verdict for."""

from __future__ import annotations

from coder.bench.expected import recordings, replay_command


def test_an_attempts_candidate_session_is_not_a_recording_of_its_own(tmp_path):
    sessions = tmp_path / "sessions"
    sessions.mkdir()
    for name in (
        "owner__name-1.contract.json",
        "owner__name-1.contract.a2.json",
        "owner__name-1.react.json",
        "owner__name-1.2.react.json",
    ):
        (sessions / name).write_text('{"turns": []}')
    # x.a2.json is attempt 2's script beside x.json (coder.bench.attempts.variant): the bench
    # replays it only with --attempts, as a candidate of x's run, never as a run of its own
    assert sorted(recordings(tmp_path)) == [
        ("owner__name-1", "contract"),
        ("owner__name-1", "react"),
        ("owner__name-1.2", "react"),
    ]
    command = replay_command(tmp_path, tmp_path / "out.json")
    assert command[command.index("--modes") + 1] == "contract,react"
