from __future__ import annotations

from sandbox.changes import new_ignored, parse_diff_raw, parse_status_v2

H1 = "a" * 40
H2 = "b" * 40
Z = "0" * 40


def test_status_v2_records_are_parsed_with_spaces_in_paths() -> None:
    raw = (
        f"1 .M N... 100644 100644 100644 {H1} {H1} src/with space.py\0"
        f"1 .D N... 100644 100644 000000 {H1} {H1} gone.py\0"
        f"1 A. N... 000000 100644 100644 {Z} {H2} staged new.py\0"
        f"2 R. N... 100644 100644 100644 {H1} {H1} R100 new name.py\0old name.py\0"
        "? untracked dir/file.txt\0"
        "! build/\0"
        "# branch.oid whatever\0"
    ).encode()
    changed, ignored = parse_status_v2(raw)
    summary = [(r.path, r.status, r.indexed) for r in changed]
    assert summary == [
        ("src/with space.py", "M", True),
        ("gone.py", "D", True),
        ("staged new.py", "A", True),
        ("old name.py", "D", True),
        ("new name.py", "A", True),
        ("untracked dir/file.txt", "?", False),
    ]
    assert ignored == ["build/"]


def test_diff_raw_records() -> None:
    raw = f":100644 100755 {H1} {Z} M\0run.sh\0:000000 100644 {Z} {Z} A\0new.py\0".encode()
    parsed = [(r.path, r.status, r.old_mode, r.new_mode) for r in parse_diff_raw(raw)]
    assert parsed == [("run.sh", "M", "100644", "100755"), ("new.py", "A", "000000", "100644")]


def test_new_ignored_counts_paths_inside_old_entries_as_old() -> None:
    before = frozenset({"build/", "logs/", "old.log"})
    now = ["build/", "build/extra.o", "logs/a.log", "old.log", "new.log", "dist/", "buildx/"]
    assert new_ignored(now, before) == ["buildx", "dist", "new.log"]
    assert new_ignored(now, frozenset()) == sorted(p.rstrip("/") for p in now)
