from __future__ import annotations

import json

from coder.ci.comments import REVIEW_MARKER
from coder.ci.render import MAX_COMPATIBLE_LISTED, fenced, render_markdown
from coder.ci.report import (
    BreakingChange,
    CallSite,
    CompatibleChange,
    DiffStats,
    FileChange,
    RefInfo,
    ReviewReport,
    SuiteReport,
    SuiteRun,
    SymbolChange,
)


def _report(**tests: object) -> ReviewReport:
    head_run = SuiteRun(
        ref="feature",
        commit="b" * 40,
        command="python -m pytest -q",
        exit_code=1,
        passed=False,
        failing=["test_extra.py::test_triple"],
        log="FAILED test_extra.py::test_triple - assert 6 == 9\n```\n",
    )
    return ReviewReport(
        base=RefInfo(ref="main", commit="a" * 40),
        head=RefInfo(ref="feature", commit="b" * 40),
        stats=DiffStats(files=2, added=10, removed=4),
        files=[
            FileChange(
                path="calc.py",
                status="modified",
                language="python",
                added_lines=6,
                removed_lines=4,
                symbols=[
                    SymbolChange(
                        name="scale",
                        kind="function",
                        change="signature_changed",
                        public=True,
                        old_signature="scale(value, factor)",
                        new_signature="scale(value, times)",
                    ),
                    SymbolChange(
                        name="_helper",
                        kind="function",
                        change="body_changed",
                        public=False,
                        new_signature="_helper(x)",
                    ),
                ],
            ),
            FileChange(path="README.md", status="modified", added_lines=4),
        ],
        breaking=[
            BreakingChange(
                path="calc.py",
                symbol="scale",
                change="signature_changed",
                old_signature="scale(value, factor)",
                new_signature="scale(value, times)",
                reasons=["`factor` renamed `times`"],
                call_sites=[CallSite(path="app.py", line=5, text="scale(value=2, factor=3)")],
                more_call_sites=2,
            )
        ],
        compatible=[
            CompatibleChange(
                path="calc.py",
                symbol="add",
                old_signature="add(a, b)",
                new_signature="add(a, b, c=0)",
                extended=True,
                notes=["added optional parameter `c` (default `0`)"],
            )
        ],
        tests=SuiteReport(
            command="python -m pytest -q", command_source="detected", head=head_run, **tests
        ),
    )


def test_markdown_has_marker_headline_and_folded_details() -> None:
    text = render_markdown(_report())
    assert text.startswith(REVIEW_MARKER + "\n")
    assert "**2 files changed** (+10 −4)" in text
    assert "**1 possible breaking change**" in text
    assert (
        "- `calc.py`: `scale` signature changed (`factor` renamed `times`): "
        "`scale(value, factor)` → `scale(value, times)`"
    ) in text
    assert "**1 possible breaking change** · 1 compatible signature change" in text
    assert (
        "### Compatible signature changes\n\nEvery call these accepted at base still works.\n\n"
        "- `calc.py`: `add` signature extended, compatible: `add(a, b)` → `add(a, b, c=0)`\n"
        "  added optional parameter `c` (default `0`)"
    ) in text
    assert "<summary>3 call sites</summary>" in text
    assert "app.py:5: scale(value=2, factor=3)" in text
    assert "<summary><code>calc.py</code> modified" in text
    assert "`_helper` (private)" in text
    assert text.count("<details>") == text.count("</details>") >= 3
    assert "tests fail at head ❌ (1 failing)" in text


def test_new_failures_headline_and_section() -> None:
    base_run = SuiteRun(ref="main", commit="a" * 40, command="x", exit_code=1, passed=False)
    text = render_markdown(_report(base=base_run, new_failures=[], fixed=[]))
    assert "none new: they fail at base too" in text
    assert "New failures (fail at head, not at base): none" in text


def test_fence_outlasts_backticks_in_the_log() -> None:
    block = fenced("a ``` b ```` c")
    first = block.splitlines()[0]
    assert first == "`````" and block.endswith("\n`````")


def test_json_round_trips_through_the_model() -> None:
    report = _report()
    again = ReviewReport.model_validate(json.loads(report.model_dump_json()))
    assert again == report


def test_fail_on_conditions() -> None:
    report = _report()
    assert report.failed_checks([]) == []
    assert report.failed_checks(["breaking", "tests"]) == [
        "1 possible breaking change(s)",
        "tests fail at head",
    ]
    base_failing = SuiteRun(ref="main", commit="a" * 40, command="x", exit_code=1, passed=False)
    old_only = _report(base=base_failing, new_failures=[])
    assert old_only.failed_checks(["tests"]) == []
    new = _report(base=base_failing, new_failures=["test_extra.py::test_triple"])
    assert new.failed_checks(["tests"]) == ["1 new test failure(s) at head"]
    base_green = SuiteRun(ref="main", commit="a" * 40, command="x", exit_code=0, passed=True)
    unnamed = _report(base=base_green, new_failures=[])
    assert unnamed.failed_checks(["tests"]) == ["tests fail at head"]


def test_many_compatible_changes_are_folded_and_capped() -> None:
    report = _report()
    one = report.compatible[0]
    report.compatible = [
        one.model_copy(update={"symbol": f"f{i}"}) for i in range(MAX_COMPATIBLE_LISTED + 3)
    ]
    text = render_markdown(report)
    section = text.split("### Compatible signature changes")[1].split("### Symbols by file")[0]
    assert f"<details><summary>{MAX_COMPATIBLE_LISTED + 3} compatible signature changes" in section
    assert section.count("signature extended, compatible") == MAX_COMPATIBLE_LISTED
    assert "… and 3 more (`--format json` lists them all)" in section
    assert text.count("<details>") == text.count("</details>")
