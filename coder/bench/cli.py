"""`coder bench`: check the jobs up front, run them on an executor with a progress bar, report.

The jobs are fixtures × modes, or SWE-bench instances × modes (`--swebench`); the executor is
the local process pool, or Ray (`--ray`). Every run record goes into one report and one JSON
whatever ran it; with `--predictions` the SWE-bench runs are also written for the harness.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from coder.bench.attempts import attempts_summary, attempts_view
from coder.bench.display import cost_view, grid, legend, summary_view
from coder.bench.fixtures import MODES, FixtureError, load_fixtures, skipped
from coder.bench.jobs import BenchJob, Row, absolute_model
from coder.bench.paired import paired, paired_lines
from coder.bench.report import classes_table, outcome, runs_table, summarize, summary_table
from coder.bench.swebench import BadLine
from coder.bench.swebench_source import SourceError, SweBenchArgs, describe, swebench_jobs
from coder.display import markup_safe


def bench_command(
    fixtures_dir: Path,
    model: str | None,
    modes_arg: str,
    only: str | None,
    workers: int,
    json_file: Path | None,
    console: Console,
    *,
    ray: str | None = None,
    swebench: SweBenchArgs | None = None,
    runs: bool = False,
    html_file: Path | None = None,
    predictions_in: Path | None = None,
    record: Path | None = None,
    attempts: int = 1,
) -> int:
    from coder.bench.executors import ExecutorUnavailable, make_executor

    modes = tuple(m.strip() for m in modes_arg.split(",") if m.strip())
    unknown = [m for m in modes if m not in MODES]
    if unknown or not modes:
        console.print(
            f"[red]error:[/] unknown mode(s) {markup_safe(', '.join(unknown) or '(none)')}; "
            f"choose from {', '.join(MODES)}",
            highlight=False,
        )
        return 2
    if attempts > 1 and record is not None:
        console.print("[red]error:[/] --record records one run a job; not with --attempts")
        return 2
    if swebench is not None and model is None and predictions_in is not None:
        modes = ()  # no model: the predictions given are judged alone
    model = absolute_model(model)
    bad_lines: list[BadLine] = []
    skips: list[dict[str, str]] = []
    jobs: Sequence[BenchJob]
    if record is not None:
        record = record.resolve()
    found_instances = None
    predictions = None
    if swebench is not None and predictions_in is not None:
        from coder.bench.peer import PredictionsError, load_predictions

        try:  # before the clones are built or anything prepared
            predictions = load_predictions(predictions_in)
        except PredictionsError as exc:
            console.print(f"[red]error:[/] {markup_safe(str(exc))}", highlight=False)
            return 2
    if swebench is not None:

        def say(line: str) -> None:
            console.print(markup_safe(line), highlight=False)

        try:
            found_instances = swebench_jobs(
                swebench, modes, only, model, say, record, workers, attempts
            )
        except SourceError as exc:
            console.print(f"[red]error:[/] {markup_safe(str(exc))}", highlight=False)
            return 2
        jobs, bad_lines = found_instances.jobs, found_instances.problems
    else:
        found = _fixture_jobs(fixtures_dir, only, modes, model, console, record, attempts)
        if found is None or not (found[0] or found[1]):
            return 2
        jobs, skips = found
    peer_modes: tuple[str, ...] = ()
    if found_instances is not None and predictions is not None:
        from coder.bench.peer import peer_jobs

        instances = found_instances.instances
        peers = peer_jobs(predictions, instances, found_instances.clones, found_instances.prepared)
        peer_modes = tuple(dict.fromkeys(p.prediction.model for p in peers))
        jobs = [*jobs, *peers]
    try:
        executor = make_executor(ray, workers)
    except ExecutorUnavailable as exc:
        console.print(f"[red]error:[/] {markup_safe(str(exc))}", highlight=False)
        return 2
    if swebench is not None:
        for bad in bad_lines:
            line = describe(swebench.file, bad)
            console.print(f"[red]error:[/] {markup_safe(line)}", highlight=False)
    writer = None
    if swebench is not None and swebench.predictions is not None:
        from coder.bench.predictions import PredictionsWriter

        writer = PredictionsWriter(swebench.predictions, modes, model)
    started = time.monotonic()
    try:
        rows = _run(jobs, executor, writer, console)
    finally:
        executor.close()
    every_mode = modes + tuple(m for m in peer_modes if m not in modes)
    summary = summarize(rows, every_mode)
    comparison = paired(rows, every_mode)
    if runs:
        console.print(runs_table(rows))
        console.print(summary_table(summary))
    console.print(summary_view(summary))
    if peer_modes:
        console.print(cost_view(summary))
    console.print(grid(rows, every_mode))
    many = attempts_summary(rows, modes) if attempts > 1 else {}
    if many:
        console.print(attempts_view(many, attempts))
    console.print(markup_safe(legend()), highlight=False)
    for line in paired_lines(comparison):
        console.print(markup_safe(line), highlight=False)
    if runs:
        console.print(classes_table(rows, every_mode))
    for skip in skips:
        console.print(
            markup_safe(f"skipped {skip['fixture']}/{skip['mode']}: {skip['reason']}"),
            highlight=False,
        )
    for line in _error_lines(rows):
        console.print(f"[red]error:[/] {markup_safe(line)}", highlight=False)
    for row in rows:
        if row.get("kept"):
            missed = ", ".join(row.get("unexpected") or []) or "kept on request"
            console.print(
                markup_safe(
                    f"kept {row['fixture']}/{row['mode']} (not as expected: {missed}; "
                    f"{row.get('stop_reason')}: {row.get('message', '')}): {row['kept']}"
                ),
                highlight=False,
            )
    where = f"with {workers} worker(s)"
    if executor.name == "ray":
        where = f"on Ray, {len({r.get('node') for r in rows})} node(s)"
    console.print(f"{len(jobs)} runs in {time.monotonic() - started:.1f}s {where}")
    if writer is not None:
        ran = {job.key[0] for job in jobs}
        for bad in bad_lines:
            writer.add_bad_line(bad, ran)
        writer.close(list(dict.fromkeys([job.key[0] for job in jobs])))
        paths = ", ".join(str(p) for p in writer.paths())
        console.print(f"wrote {markup_safe(paths)}", highlight=False)
    if json_file:
        json_file.parent.mkdir(parents=True, exist_ok=True)
        records = [{k: v for k, v in r.items() if k != "model_patch"} for r in rows]
        json_file.write_text(
            json.dumps(
                {
                    "runs": records,
                    "summary": summary,
                    "paired": comparison,
                    "skipped": skips,
                    **({"attempts": {"n": attempts, "per_mode": many}} if many else {}),
                },
                indent=2,
            )
            + "\n",
            encoding="utf-8",
        )
        console.print(f"wrote {markup_safe(json_file)}", highlight=False)
    if html_file:
        from coder.bench.html import report_page

        html_file.parent.mkdir(parents=True, exist_ok=True)
        html_file.write_text(report_page(rows, summary, every_mode, comparison), encoding="utf-8")
        console.print(f"wrote {markup_safe(html_file)}", highlight=False)
    return 0


def _fixture_jobs(
    fixtures_dir: Path,
    only: str | None,
    modes: tuple[str, ...],
    model: str | None,
    console: Console,
    record: Path | None = None,
    attempts: int = 1,
) -> tuple[list[BenchJob], list[dict[str, str]]] | None:
    """The fixture × mode jobs, and the pairs skipped (a fixture without that mode's script);
    None when the fixtures are broken (said on the console)."""
    from coder.bench.runner import FixtureJob

    try:
        fixtures = load_fixtures(fixtures_dir.resolve(), only, modes, need_scripts=model is None)
    except FixtureError as exc:
        console.print("[red]error:[/] broken fixtures:", highlight=False)
        for line in str(exc).splitlines():
            console.print(f"  {markup_safe(line)}", highlight=False)
        return None
    return [
        FixtureJob(f, m, model, record / f"{f.name}.{m}.json" if record else None, attempts)
        for f in fixtures
        for m in modes
        if f.runs(m)
    ], skipped(fixtures)


def _run(jobs: Sequence[BenchJob], executor: Any, writer: Any, console: Console) -> list[Row]:
    per_node: Counter[str] = Counter()
    with Progress(
        TextColumn("[bold]bench[/]"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.description}"),
        console=console,
        transient=False,
    ) as progress:
        bar = progress.add_task("", total=len(jobs))

        def done(row: Row) -> None:
            if writer is not None:
                writer.add(row)
            per_node[str(row.get("node", "?"))] += 1
            text = f"{row['fixture']}/{row['mode']}: {outcome(row)}"
            if executor.name == "ray":
                text += " · done per node: " + ", ".join(f"{n} {c}" for n, c in per_node.items())
            progress.update(bar, advance=1, description=markup_safe(text))

        return executor.run(jobs, done)  # type: ignore[no-any-return]


def _error_lines(rows: list[Row]) -> list[str]:
    """One line per name and reason, whatever number of modes it hit."""
    grouped: dict[tuple[str, str], list[str]] = {}
    for row in rows:
        if row.get("error"):
            grouped.setdefault((row["fixture"], row["error"]), []).append(row["mode"])
    return [f"{name} ({', '.join(modes)}): {error}" for (name, error), modes in grouped.items()]
