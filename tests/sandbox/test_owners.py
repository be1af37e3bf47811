"""The owner file of a run's worktree: who holds it, read by a run pruning stale ones."""

from __future__ import annotations

from pathlib import Path


def test_an_owner_file_is_never_seen_half_written(tmp_path: Path) -> None:
    """Attempts side by side: one run's pruning read another's owner file while it was being
    written, took it for a gone owner, and removed that run's new worktree."""
    import threading

    from sandbox.owners import owner_gone, write_owner

    owner = tmp_path / "run.owner.json"
    write_owner(owner, run_id="r")
    done = threading.Event()
    seen_gone: list[bool] = []

    def rewrite() -> None:
        for _ in range(2000):
            write_owner(owner, run_id="r")
        done.set()

    writer = threading.Thread(target=rewrite)
    writer.start()
    while not done.is_set():
        seen_gone.append(owner_gone(owner))
    writer.join()
    assert seen_gone and not any(seen_gone)
    assert [p.name for p in tmp_path.iterdir()] == ["run.owner.json"]
