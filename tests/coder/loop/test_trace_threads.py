"""Steps at once (`--jobs`) emit into one trace from several threads: its listeners (the
journal that saves state.json, a progress display) hear one event at a time, and one that
fails is dropped once, not once per thread."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from coder.loop.state.trace import TraceWriter, read_trace
from contracts.saved_run import STATE_FILE, SavedLimits, SavedRun, load_saved_run, save_run

THREADS = 6
EVENTS = 40


def _side_by_side(work) -> list[BaseException]:
    start = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def body() -> None:
        start.wait()
        try:
            for n in range(EVENTS):
                work(n)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=body) for _ in range(THREADS)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return errors


def test_listeners_hear_one_event_at_a_time(tmp_path: Path) -> None:
    trace = TraceWriter(tmp_path / "trace.jsonl", "r1")
    inside = {"now": 0, "most": 0}
    guard = threading.Lock()

    def listener(event: dict[str, Any]) -> None:
        with guard:
            inside["now"] += 1
            inside["most"] = max(inside["most"], inside["now"])
        time.sleep(0.0005)  # a journal writing its file takes a moment
        with guard:
            inside["now"] -= 1

    trace.subscribe(listener)
    assert _side_by_side(lambda n: trace.emit("checkpoint", n=n)) == []
    assert inside["most"] == 1


def test_a_failing_listener_is_dropped_once_whichever_threads_hit_it(tmp_path: Path) -> None:
    trace = TraceWriter(tmp_path / "trace.jsonl", "r1")

    def broken(event: dict[str, Any]) -> None:
        raise RuntimeError("display gone")

    trace.subscribe(broken)
    assert _side_by_side(lambda n: trace.emit("checkpoint", n=n)) == []
    trace.close()
    failed = [e for e in read_trace(tmp_path / "trace.jsonl") if e["type"] == "observation"]
    assert len(failed) == 1 and "display gone" in failed[0]["text"]


def test_state_saved_from_several_threads_is_always_whole(tmp_path: Path) -> None:
    def saved(n: int) -> SavedRun:
        return SavedRun(
            run_id="r1",
            repo="/somewhere",
            branch="coder/r1",
            base_commit="a" * 40,
            head="b" * 40,
            mode="contract",
            model="script:x.json",
            task=f"fix it {n}",
            limits=SavedLimits(
                max_turns=60, max_revisions=3, timeout_s=1800, cmd_timeout_s=120, max_tokens=10
            ),
        )

    assert _side_by_side(lambda n: save_run(tmp_path, saved(n))) == []
    assert load_saved_run(tmp_path).task.startswith("fix it ")
    assert sorted(p.name for p in tmp_path.iterdir()) == [STATE_FILE]
