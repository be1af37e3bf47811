"""`coder bench --html FILE`: the report as one self-contained page with pictures.

The same figures as the terminal's summary and grid, drawn as inline SVG (per-mode bars of
resolved, shipped broken and false failures; the fixture × mode grid as coloured squares with
their marks), plus the summary and paired comparison as tables. No script, no external asset:
the page opens from a file anywhere, offline.
"""

from __future__ import annotations

from html import escape
from typing import Any

from coder.bench.display import MARKS, mark

COLOURS = {
    "right": "#2e9d4f",
    "false_failure": "#e0a800",
    "broken": "#d1342f",
    "failed": "#9aa3ad",
    "unjudged": "#dfe3e8",
}
BAR_PARTS = (
    ("resolved", "resolved", "#2e9d4f"),
    ("shipped_broken", "shipped broken", "#d1342f"),
    ("false_failures", "false failures", "#e0a800"),
)
STYLE = """
body { font: 15px/1.45 system-ui, sans-serif; margin: 2em; color: #1d232a; }
h1 { font-size: 1.5em; } h2 { font-size: 1.15em; margin-top: 1.6em; }
table { border-collapse: collapse; margin: .6em 0; }
th, td { border-bottom: 1px solid #dfe3e8; padding: .25em .7em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
.legend span { display: inline-block; margin-right: 1.2em; }
.sw { display: inline-block; width: .9em; height: .9em; vertical-align: -.1em; margin-right: .3em; }
"""


def report_page(
    rows: list[dict[str, Any]],
    summary: dict[str, Any],
    modes: tuple[str, ...],
    paired: dict[str, dict[str, Any]],
) -> str:
    parts = [
        "<!doctype html><html lang=en><head><meta charset=utf-8>",
        "<title>coder bench</title>",
        f"<style>{STYLE}</style></head><body>",
        f"<h1>coder bench: {len(rows)} runs</h1>",
        "<h2>Per mode</h2>",
        _bars(summary),
        _summary_table(summary),
        "<h2>Each run</h2>",
        _legend(),
        _grid(rows, modes),
    ]
    if paired:
        parts.append("<h2>Paired with contract mode</h2><ul>")
        for mode, r in paired.items():
            parts.append(
                f"<li>contract vs {escape(mode)}: only contract {len(r['only_contract'])}, "
                f"only {escape(mode)} {len(r['only_baseline'])}, p = {r['p_value']:.3f}: "
                f"{escape(r['verdict'])}</li>"
            )
        parts.append("</ul>")
    parts.append("</body></html>\n")
    return "\n".join(parts)


def _bars(summary: dict[str, Any]) -> str:
    """Per mode, one group of horizontal bars: resolved, shipped broken, false failures, each
    out of the mode's runs."""
    label_w, bar_w, row_h = max(220, 9 * max(map(len, summary), default=0) + 10), 420, 18
    group_h = row_h * len(BAR_PARTS) + 14
    height = group_h * max(len(summary), 1) + 10
    out = [
        f'<svg id="bars" xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 170}" '
        f'height="{height}" role="img" aria-label="per-mode bars">'
    ]
    for g, (mode, s) in enumerate(summary.items()):
        top = g * group_h + 6
        out.append(
            f'<text x="0" y="{top + row_h * 1.5}" font-size="14" font-weight="bold">'
            f"{escape(mode)}</text>"
        )
        for i, (key, words, colour) in enumerate(BAR_PARTS):
            y = top + i * row_h
            value = int(s.get(key) or 0)
            width = bar_w * value / s["runs"] if s["runs"] else 0
            out.append(
                f'<rect x="{label_w}" y="{y}" width="{bar_w}" height="{row_h - 4}" fill="#f0f2f5"/>'
                f'<rect x="{label_w}" y="{y}" width="{width:.1f}" height="{row_h - 4}" '
                f'fill="{colour}"><title>{escape(mode)}: {words} {value}/{s["runs"]}</title></rect>'
                f'<text x="{label_w + bar_w + 6}" y="{y + row_h - 6}" font-size="12">'
                f"{value}/{s['runs']} {words}</text>"
            )
    out.append("</svg>")
    return "".join(out)


def _grid(rows: list[dict[str, Any]], modes: tuple[str, ...]) -> str:
    names = list(dict.fromkeys(r["fixture"] for r in rows))
    cells = {(r["fixture"], r["mode"]): mark(r) for r in rows}
    label_w = max(260, 8 * max(map(len, names), default=0) + 10)
    cell, head = 34, int(24 + 5.2 * max(map(len, modes), default=0))
    width = label_w + cell * len(modes) + head
    height = head + cell * len(names) + 10
    out = [
        f'<svg id="grid" xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        'role="img" aria-label="fixture by mode grid">'
    ]
    for j, mode in enumerate(modes):
        x = label_w + j * cell + cell / 2
        out.append(
            f'<text transform="translate({x + 4},{head - 6}) rotate(-50)" font-size="12">'
            f"{escape(mode)}</text>"
        )
    for i, name in enumerate(names):
        y = head + i * cell
        out.append(f'<text x="0" y="{y + cell * 0.65}" font-size="12">{escape(name)}</text>')
        for j, mode in enumerate(modes):
            case = cells.get((name, mode))
            if case is None:
                continue
            x = label_w + j * cell
            symbol, _, words = MARKS[case]
            out.append(
                f'<rect x="{x + 2}" y="{y + 2}" width="{cell - 4}" height="{cell - 4}" rx="4" '
                f'fill="{COLOURS[case]}"><title>{escape(name)} / {escape(mode)}: '
                f"{escape(words)}</title></rect>"
                f'<text x="{x + cell / 2}" y="{y + cell * 0.66}" font-size="13" '
                f'text-anchor="middle" fill="#fff">{escape(symbol)}</text>'
            )
    out.append("</svg>")
    return "".join(out)


def _summary_table(summary: dict[str, Any]) -> str:
    head = (
        "<tr><th>mode</th><th>resolved</th><th>shipped broken</th><th>false failures</th>"
        "<th>precision</th><th>recall</th><th>mean tokens</th><th>mean time</th></tr>"
    )
    body = []
    for mode, s in summary.items():
        body.append(
            f"<tr><td>{escape(mode)}</td><td>{s['resolved']}/{s['runs']}</td>"
            f"<td>{s['shipped_broken']}</td><td>{s['false_failures']}</td>"
            f"<td>{_pct(s['precision'])}</td><td>{_pct(s['recall'])}</td>"
            f"<td>{s['mean_tokens']:,.0f}</td><td>{s['mean_wall_s']:.1f}s</td></tr>"
        )
    return f'<table id="summary">{head}{"".join(body)}</table>'


def _legend() -> str:
    items = "".join(
        f'<span><i class="sw" style="background:{COLOURS[case]}"></i>{escape(symbol)} '
        f"{escape(words)}</span>"
        for case, (symbol, _, words) in MARKS.items()
    )
    return f'<p class="legend">{items}</p>'


def _pct(value: float | None) -> str:
    return "—" if value is None else f"{value:.0%}"
