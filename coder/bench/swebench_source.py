"""`coder bench --swebench FILE [--repos DIR]`: the instances file as bench jobs, checked up front.

What can be known without the clones (the file, its lines, the model) is checked here, before
anything runs; what needs a clone is checked by each job on the node that runs it. Without
--repos, a suite that ships its sources (`repos/` beside FILE) is built once into the cache;
instances with a `prepare` command are prepared once, here, before any run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from coder.bench.prepare import Prepared, local_cache, prepare_all
from coder.bench.shipped import BuildError, cached_clones, suite_cache
from coder.bench.swebench import BadLine, Instance, InstanceFileError, load_instances
from coder.bench.swebench_job import InstanceJob


@dataclass(frozen=True)
class SweBenchArgs:
    file: Path
    repos: Path | None
    """The local clones; None: built from the `repos/` beside `file`."""
    predictions: Path | None = None
    hints: bool = False


@dataclass
class SweBenchJobs:
    jobs: list[InstanceJob]
    problems: list[BadLine]
    clones: Path
    """Where the clones are (--repos, or the cache)."""
    prepared: Prepared = field(default_factory=Prepared)
    instances: list[Instance] = field(default_factory=list)
    """Every instance to run or judge (also when no mode runs: predictions judged alone)."""


class SourceError(Exception):
    """Nothing can run: one line, exit 2."""


def swebench_jobs(
    args: SweBenchArgs,
    modes: tuple[str, ...],
    only: str | None,
    model: str | None,
    say: Callable[[str], None] = lambda line: None,
    record: Path | None = None,
    workers: int = 1,
    attempts: int = 1,
) -> SweBenchJobs:
    """The instance × mode jobs; with no modes (no --model, only --predictions-in), none:
    the instances are still loaded, cloned and prepared for the predictions' judging."""
    if model is None and modes:
        raise SourceError(
            "--swebench needs --model: a model spec, or script:DIR with one scripted reply "
            "file per run, DIR/<instance_id>.<mode>.json (or --predictions-in FILE alone, to "
            "judge those predictions)"
        )
    shipped = args.file.parent / "repos"
    if args.repos is not None and not args.repos.is_dir():
        raise SourceError(f"--repos {args.repos}: no such directory")
    if args.repos is None and not shipped.is_dir():
        raise SourceError(
            f"--swebench {args.file}: no repos/ beside it to build the clones from; name "
            "the local clones with --repos DIR (one per repository, named owner__name)"
        )
    if args.predictions is not None and args.predictions.suffix != ".jsonl":
        raise SourceError(
            f"--predictions {args.predictions}: name a .jsonl file (the harness reads JSON Lines)"
        )
    try:
        loaded = load_instances(args.file)
    except InstanceFileError as exc:
        raise SourceError(str(exc)) from None
    instances = [i for i in loaded.instances if not only or only in i.instance_id]
    problems = [p for p in loaded.problems if not only or only in (p.instance_id or only)]
    if not instances:
        what = f" matching {only!r}" if only else ""
        lines = "".join(f"\n  {describe(args.file, p)}" for p in problems)
        raise SourceError(f"{args.file}: no instance to run{what}{lines}")
    if args.repos is not None:
        repos, cache = args.repos.resolve(), local_cache(args.repos)
    else:
        try:
            repos, cache = cached_clones(shipped.resolve(), say), suite_cache(shipped.resolve())
        except (BuildError, OSError) as exc:
            raise SourceError(f"cannot build the clones from {shipped}: {exc}") from None
    prepared = prepare_all(instances, repos, cache, say, workers)
    jobs = [
        InstanceJob(
            i,
            mode,
            repos,
            model,
            args.hints,
            deps=prepared.deps.get(i.instance_id),
            setup_error=prepared.errors.get(i.instance_id),
            record=record / f"{i.instance_id}.{mode}.json" if record else None,
            attempts=attempts,
        )
        for i in instances
        for mode in modes
    ]
    return SweBenchJobs(jobs, problems, repos, prepared, instances)


def describe(file: Path, bad: BadLine) -> str:
    return f"{file.name}:{bad.line}: {bad.message}"
