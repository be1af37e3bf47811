"""The review report as GitHub-flavoured markdown: a headline a reviewer reads in two seconds,
the rest folded into `<details>` blocks.
"""

from __future__ import annotations

import html
import re

from coder.ci.comments import REVIEW_MARKER
from coder.ci.report import (
    BreakingChange,
    CompatibleChange,
    FileChange,
    ReviewReport,
    SuiteRun,
    SymbolChange,
)
from summarizers.compat import is_constructor

FOLD_COMPATIBLE_OVER = 5
MAX_COMPATIBLE_LISTED = 40
CHANGE_WORDS = {
    "added": "added",
    "removed": "removed",
    "signature_changed": "signature changed",
    "body_changed": "body changed",
    "made_private": "no longer public",
    "made_public": "now public",
}


def render_markdown(report: ReviewReport) -> str:
    parts = [
        REVIEW_MARKER,
        f"## coder ci review: `{_short(report.base.commit)}` → `{_short(report.head.commit)}`",
        "",
        _headline(report),
    ]
    if report.warnings:
        parts += ["", *(f"> {_inline(w)}" for w in report.warnings)]
    parts += ["", "### Possible breaking changes", ""]
    if report.breaking:
        parts += [_breaking_item(b) for b in report.breaking]
    else:
        parts.append(
            "None found: no public symbol was removed or made private, and every changed "
            "signature still accepts the calls it accepted before."
        )
    if report.compatible:
        parts += ["", "### Compatible signature changes", ""]
        parts += ["Every call these accepted at base still works.", "", *_compatible(report)]
    parts += ["", "### Symbols by file", ""]
    if report.files:
        parts += [_file_block(f) for f in report.files]
    else:
        parts.append("No files changed.")
    if report.diff.strip():
        parts += ["", folded("the diff, compacted", fenced(report.diff))]
    parts += ["", "### Tests", "", *_tests_section(report)]
    return "\n".join(parts).rstrip() + "\n"


def _headline(report: ReviewReport) -> str:
    s = report.stats
    bits = [f"**{s.files} file{'s' if s.files != 1 else ''} changed** (+{s.added} −{s.removed})"]
    n = len(report.breaking)
    bits.append(f"**{n} possible breaking change{'s' if n != 1 else ''}**" if n else "no breaking")
    if report.compatible:
        c = len(report.compatible)
        bits.append(f"{c} compatible signature change{'s' if c != 1 else ''}")
    bits.append(_tests_phrase(report))
    return " · ".join(bits)


def _tests_phrase(report: ReviewReport) -> str:
    head = report.tests.head
    if head is None:
        return "tests not run"
    if head.passed:
        return "tests pass at head ✅"
    count = f"{len(head.failing)} failing" if head.failing else f"exit {head.exit_code}"
    if head.timed_out:
        count = "timed out"
    new = report.tests.new_failures
    if new is not None:
        if new:
            return f"tests fail at head ❌ ({count}, {len(new)} new)"
        if report.tests.base is not None and report.tests.base.passed:
            return f"tests fail at head ❌ ({count}; base passed)"
        return f"tests fail at head ⚠️ ({count}, none new: they fail at base too)"
    return f"tests fail at head ❌ ({count})"


def _breaking_item(b: BreakingChange) -> str:
    what = CHANGE_WORDS[b.change]
    line = f"- `{b.path}`: `{_inline(b.symbol)}` {what}"
    restated = b.change in ("removed", "made_private") and not is_constructor(b.symbol)
    if b.reasons and not restated:
        line += f" ({_reasons(b.reasons)})"
    if b.old_signature and b.new_signature and b.old_signature != b.new_signature:
        line += f": `{_inline(b.old_signature)}` → `{_inline(b.new_signature)}`"
    total = len(b.call_sites) + b.more_call_sites
    if total == 0:
        return line + " (no call sites found in the repository)"
    sites = [f"{c.path}:{c.line}: {c.text.strip()}" for c in b.call_sites]
    if b.more_call_sites:
        sites.append(f"… and {b.more_call_sites} more")
    label = f"{total} call site{'s' if total != 1 else ''}"
    return f"{line}\n  <details><summary>{label}</summary>\n\n{fenced(chr(10).join(sites))}\n  </details>"


def _compatible(report: ReviewReport) -> list[str]:
    """Listed as they are when few; folded, and at most MAX_COMPATIBLE_LISTED, when many."""
    items = [_compatible_item(c) for c in report.compatible[:MAX_COMPATIBLE_LISTED]]
    left = len(report.compatible) - len(items)
    if left:
        items.append(f"- … and {left} more (`--format json` lists them all)")
    if len(report.compatible) <= FOLD_COMPATIBLE_OVER:
        return items
    summary = f"{len(report.compatible)} compatible signature changes"
    return [f"<details><summary>{summary}</summary>\n", *items, "\n</details>"]


def _compatible_item(c: CompatibleChange) -> str:
    what = "signature extended, compatible" if c.extended else "signature changed, compatible"
    line = f"- `{c.path}`: `{_inline(c.symbol)}` {what}"
    if c.old_signature and c.new_signature:
        line += f": `{_inline(c.old_signature)}` → `{_inline(c.new_signature)}`"
    return line + (f"\n  {_reasons(c.notes)}" if c.notes else "")


def _reasons(lines: list[str]) -> str:
    return "; ".join(line.replace("\n", " ") for line in lines)


def _file_block(f: FileChange) -> str:
    name = f"{f.old_path} → {f.path}" if f.old_path and f.old_path != f.path else f.path
    counts = _symbol_counts(f.symbols)
    summary = f"<code>{_esc(name)}</code> {f.status}, +{f.added_lines} −{f.removed_lines}"
    if f.language:
        summary += f", {f.language}"
    if counts:
        summary += f": {counts}"
    if not f.symbols and f.parse_error is None:
        return f"- {summary.replace('<code>', '`').replace('</code>', '`')}"
    rows = ["| symbol | kind | change | signature |", "|---|---|---|---|"]
    rows += [_symbol_row(s) for s in f.symbols]
    body = "\n".join(rows)
    if f.parse_error:
        body += f"\n\n⚠️ {_esc(f.parse_error)}"
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


def _symbol_row(s: SymbolChange) -> str:
    public = "" if s.public else " (private)"
    sig = s.new_signature or s.old_signature or ""
    if s.change == "signature_changed" and s.old_signature:
        sig = f"{s.old_signature} → {s.new_signature}"
    change = CHANGE_WORDS[s.change]
    if s.compatible is not None:
        change += " (compatible)" if s.compatible else " (breaking)"
    if s.change == "removed" and s.compatible:
        change = "now inherited (compatible)"
    return f"| `{_cell(s.name)}`{public} | {s.kind} | {change} | `{_cell(sig)}` |"


def _symbol_counts(symbols: list[SymbolChange]) -> str:
    counts: dict[str, int] = {}
    for s in symbols:
        counts[s.change] = counts.get(s.change, 0) + 1
    return ", ".join(f"{n} {CHANGE_WORDS[k]}" for k, n in counts.items())


def _tests_section(report: ReviewReport) -> list[str]:
    t = report.tests
    if t.head is None:
        return [t.note or "No test command found; pass --test-cmd or set `[tool.coder] test_cmd`."]
    lines = [f"Command: `{_inline(t.command or t.head.command)}` ({t.command_source or 'given'})"]
    lines += ["", *_run_block(t.head, "head")]
    if t.base is not None:
        lines += ["", *_run_block(t.base, "base")]
    if t.new_failures is not None:
        new = ", ".join(f"`{_inline(x)}`" for x in t.new_failures) or "none"
        lines += ["", f"New failures (fail at head, not at base): {new}"]
    if t.fixed:
        lines.append("Fixed by this change: " + ", ".join(f"`{_inline(x)}`" for x in t.fixed))
    return lines


def _run_block(run: SuiteRun, side: str) -> list[str]:
    verdict = "passed" if run.passed else ("timed out" if run.timed_out else "failed")
    head = (
        f"**{side}** `{_short(run.commit)}`: {verdict} (exit {run.exit_code}, "
        f"{run.duration_s:.1f} s, sandbox {run.sandbox or 'none'})"
    )
    if run.passed or not run.log:
        return [head]
    failing = f"{len(run.failing)} failing" if run.failing else "output"
    return [
        head,
        f"<details><summary>{side}: {failing}, compacted</summary>\n\n{fenced(run.log)}\n\n</details>",
    ]


def folded(summary: str, body: str) -> str:
    return f"<details><summary>{summary}</summary>\n\n{body}\n\n</details>"


def fenced(text: str, lang: str = "") -> str:
    """A code fence longer than any backtick run inside, so the log cannot close it."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{lang}\n{text.rstrip()}\n{fence}"


def _short(sha: str) -> str:
    return sha[:10]


def _inline(text: str) -> str:
    return text.replace("`", "'").replace("\n", " ")


def _cell(text: str) -> str:
    return _inline(text).replace("|", "\\|")


def _esc(text: str) -> str:
    return html.escape(text, quote=False)
