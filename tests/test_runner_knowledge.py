"""No product module outside the runner modules names a test runner (issue 30, Build item 1).

What a runner is called, how it is run, what it writes and how its reports read belongs to its
module under summarizers/runners/; everything else asks the table. This walks the product
packages as `grep -rniwE "<names>" coder sandbox contracts summarizers --include=*.py` does
(whole words, any case, code and prose alike) and names every line that knows a runner.
"""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("coder", "sandbox", "contracts", "summarizers")
NAMES = (
    "pytest",
    "unittest",
    "vitest",
    "jest",
    "mocha",
    "node-tap",
    "tape",
    "nyc",
    "c8",
    "node --test",
    "ava",
)
NAMED = re.compile(
    r"(?<![A-Za-z0-9_])(?:" + "|".join(re.escape(n) for n in NAMES) + r")(?![A-Za-z0-9_])",
    re.IGNORECASE,
)
"""A whole word as grep -w takes it: no letter, digit or underscore on either side."""


def runner_mentions(root: Path) -> list[str]:
    found: list[str] = []
    for package in PACKAGES:
        for path in sorted((root / package).rglob("*.py")):
            if path.is_relative_to(root / "summarizers" / "runners"):
                continue
            text = path.read_text(encoding="utf-8")
            for number, line in enumerate(text.splitlines(), 1):
                if NAMED.search(line):
                    found.append(f"{path.relative_to(root)}:{number}: {line.strip()}")
    return found


def test_the_word_test_matches_as_grep_does():
    assert [bool(NAMED.search(s)) for s in ("run pytest -q", "PYTEST_ADDOPTS", "java", "AVA")] == [
        True,
        False,
        False,
        True,
    ]


def test_no_module_outside_the_runner_modules_names_a_runner():
    found = runner_mentions(ROOT)
    assert not found, "a runner named outside summarizers/runners/:\n" + "\n".join(found)
