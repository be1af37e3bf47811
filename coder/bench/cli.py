"""`coder bench`: check fixtures, run them in a pool with a progress bar, print and save the report."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from coder.bench.fixtures import MODES, FixtureError, load_fixtures
from coder.bench.report import runs_table, summarize, summary_table
from coder.display import markup_safe


def bench_command(
    fixtures_dir: Path,
    model: str | None,
    modes_arg: str,
    only: str | None,
    workers: int,
    json_file: Path | None,
    console: Console,
) -> int:
    from coder.bench.runner import run_all

    modes = tuple(m.strip() for m in modes_arg.split(",") if m.strip())
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        console.print(
            f"[red]error:[/] unknown mode(s) {markup_safe(', '.join(unknown) or '(none)')}; "
            f"choose from {', '.join(MODES)}",
            highlight=False,
        )
        return 2
    try:
        fixtures = load_fixtures(fixtures_dir, only, modes, need_scripts=model is None)
    except FixtureError as exc:
        console.print("[red]error:[/] broken fixtures:", highlight=False)
        for line in str(exc).splitlines():
            console.print(f"  {markup_safe(line)}", highlight=False)
        return 2
    started = time.monotonic()
    total = len(fixtures) * len(modes)
    with Progress(
        TextColumn("[bold]bench[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=False,
    ) as progress:
        bar = progress.add_task("", total=total)

        def done(row: dict[str, Any]) -> None:
            mark = (
                "shipped broken"
                if row["shipped_broken"]
                else ("resolved" if row["resolved"] else row["stop_reason"])
            )
            where = markup_safe(f"{row['fixture']}/{row['mode']}: {mark}")
            progress.update(bar, advance=1, description=where)

        rows = run_all(fixtures, modes, model, workers, done)
    summary = summarize(rows, modes)
    console.print(runs_table(rows))
    console.print(summary_table(summary))
    console.print(f"{total} runs in {time.monotonic() - started:.1f}s with {workers} worker(s)")
    if json_file:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        json_file.write_text(
            json.dumps({"runs": rows, "summary": summary}, indent=2) + "\n", encoding="utf-8"
        )
        console.print(f"wrote {markup_safe(json_file)}", highlight=False)
    return 0
