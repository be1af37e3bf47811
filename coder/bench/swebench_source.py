"""`coder bench --swebench FILE --repos DIR`: the instances file as bench jobs, checked up front.

What can be known without the clones (the file, its lines, the model) is checked here, before
anything runs; what needs a clone is checked by each job on the node that runs it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from coder.bench.swebench import BadLine, InstanceFileError, load_instances
from coder.bench.swebench_job import InstanceJob


@dataclass(frozen=True)
class SweBenchArgs:
    file: Path
    repos: Path
    predictions: Path | None = None
    hints: bool = False


class SourceError(Exception):
    """Nothing can run: one line, exit 2."""


def swebench_jobs(
    args: SweBenchArgs, modes: tuple[str, ...], only: str | None, model: str | None
) -> tuple[list[InstanceJob], list[BadLine]]:
    if model is None:
        raise SourceError(
            "--swebench needs --model: a model spec, or script:DIR with one scripted reply "
            "file per run, DIR/<instance_id>.<mode>.json"
        )
    if not args.repos.is_dir():
        raise SourceError(f"--repos {args.repos}: no such directory")
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
    repos = args.repos.resolve()
    jobs = [InstanceJob(i, mode, repos, model, args.hints) for i in instances for mode in modes]
    return jobs, problems


def describe(file: Path, bad: BadLine) -> str:
    return f"{file.name}:{bad.line}: {bad.message}"
