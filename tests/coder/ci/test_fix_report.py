"""The fix comment's headline says when a fix changes nothing but tests."""

from __future__ import annotations

import pytest

from coder.ci.fix_report import FixReport, FixStep, render_fix_markdown


def _patch(*paths: str) -> str:
    return "".join(
        f"diff --git a/{p} b/{p}\n--- a/{p}\n+++ b/{p}\n@@ -1,2 +1,2 @@\n x = 1\n-y = 2\n+y = 3\n"
        for p in paths
    )


def _headline(patch: str, status: str = "pushed") -> str:
    report = FixReport(status=status, message="m", head="0" * 40, patch=patch)
    return render_fix_markdown(report).split("\n")[3]


def test_a_fix_of_tests_alone_says_so_in_the_headline() -> None:
    headline = _headline(_patch("testing/test_pluginmanager.py", "src/app.test.ts"))
    assert headline.startswith("🔧 The agent fixed the failing tests")
    assert headline.endswith(
        "It changes tests only: `testing/test_pluginmanager.py` (+1 −1), `src/app.test.ts` (+1 −1)."
    )


@pytest.mark.parametrize(
    ("patch", "status"),
    [
        (_patch("src/pkg/core.py", "tests/test_core.py"), "pushed"),
        (_patch("src/pkg/core.py"), "pushed"),
        (_patch("tests/test_core.py"), "not_verified"),
        ("", "pushed"),
    ],
)
def test_any_other_fix_keeps_the_plain_headline(patch: str, status: str) -> None:
    assert "tests only" not in _headline(patch, status)


@pytest.mark.parametrize(
    "said",
    [
        "fixed it, see [the docs](https://evil.example/steal)",
        "fixed ![x](https://evil.example/pixel.png) and https://evil.example/bare",
        "`code` then [link](https://evil.example) ``double``",
        "<a href='https://evil.example'>here</a></details>",
    ],
)
def test_what_the_agent_says_is_one_code_span_nothing_clickable(said: str) -> None:
    step = FixStep(step_id="s", status="verified", checks=[], summary=said)
    report = FixReport(status="pushed", message="m", head="0" * 40, patch="", steps=[step])
    line = next(x for x in render_fix_markdown(report).split("\n") if x.startswith("- `s`: "))
    span = line.removeprefix("- `s`: ")
    fence = span[: len(span) - len(span.lstrip("`"))]
    assert span.endswith(fence) and fence not in span[len(fence) : -len(fence)]
    assert span[len(fence) : -len(fence)].strip() == said
