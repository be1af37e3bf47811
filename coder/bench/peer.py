"""`--predictions-in FILE`: another agent's SWE-bench predictions, judged like coder's runs.

Each line is `{"instance_id", "model_name_or_path", "model_patch"}`. For every line whose
instance is in the `--swebench` file, the patch is committed onto a throwaway clone at the
instance's base_commit and graded by the same local evaluation coder's runs get (the
FAIL_TO_PASS and PASS_TO_PASS tests, confined). Its row carries `model_name_or_path` as its
`mode`, so the report sets the peer beside coder's modes and pairs them per instance.

A line may also carry the peer's own figures, `model_calls` and `input_tokens` (keys the official
harness ignores); its rows and its summary then show them beside coder's modes.

A prediction has no verdict of its own: an agent that submitted a non-empty patch is taken to
claim it works (as SWE-bench's harness does), an empty patch to claim nothing.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from coder.bench.jobs import Row, run_row
from coder.bench.prepare import Prepared
from coder.bench.swebench import Instance
from coder.bench.swebench_job import InstanceError, prepare_clone
from sandbox.gitcli import GitError, git, git_line

PEER_AUTHOR = ["-c", "user.name=peer", "-c", "user.email=peer@coder.invalid"]


class PredictionsError(Exception):
    """The predictions file cannot be read: one line, exit 2."""


@dataclass(frozen=True)
class Prediction:
    instance_id: str
    model: str
    patch: str
    model_calls: int | None = None
    input_tokens: int | None = None


def load_predictions(path: Path) -> list[Prediction]:
    """Every prediction of a JSON Lines file (blank lines skipped); bad lines are errors."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PredictionsError(f"--predictions-in {path}: cannot read it ({exc})") from None
    found = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
            found.append(
                Prediction(
                    str(data["instance_id"]),
                    str(data["model_name_or_path"]),
                    str(data.get("model_patch") or ""),
                    _count(data, "model_calls"),
                    _count(data, "input_tokens"),
                )
            )
        except (ValueError, KeyError, TypeError) as exc:
            raise PredictionsError(
                f"{path.name}:{number}: not a prediction (needs instance_id, model_name_or_path, "
                f"model_patch): {exc}"
            ) from None
    if not found:
        raise PredictionsError(f"--predictions-in {path}: no predictions in it")
    return found


def _count(data: dict[str, object], key: str) -> int | None:
    value = data.get(key)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{key} is {value!r}, not a count")
    return value


@dataclass(frozen=True)
class PredictionJob:
    """One peer prediction, graded: a bench job like any other (the executors run it)."""

    instance: Instance
    prediction: Prediction
    repos: Path
    deps: Path | None = None
    setup_error: str | None = None

    @property
    def key(self) -> tuple[str, str]:
        return (self.instance.instance_id, self.prediction.model)

    def run(self) -> Row:
        return grade_prediction(self)

    def failed(self, reason: str) -> Row:
        return _row(self, error=reason)


def peer_jobs(
    predictions: list[Prediction],
    instances: list[Instance],
    repos: Path,
    prepared: Prepared | None = None,
) -> list[PredictionJob]:
    by_id = {i.instance_id: i for i in instances}
    prepared = prepared or Prepared()
    return [
        PredictionJob(
            by_id[p.instance_id],
            p,
            repos.resolve(),
            prepared.deps.get(p.instance_id),
            prepared.errors.get(p.instance_id),
        )
        for p in predictions
        if p.instance_id in by_id
    ]


def grade_prediction(job: PredictionJob) -> Row:
    from coder.bench.swebench_eval import RESOLVED, UNRESOLVED, evaluate

    started = time.monotonic()
    instance, patch = job.instance, job.prediction.patch
    if job.setup_error:
        return _row(job, error=job.setup_error)
    work = Path(tempfile.mkdtemp(prefix=f"coder-peer-{instance.instance_id}-"))
    try:
        try:
            repo = prepare_clone(job.repos, instance, work / "repo")
        except InstanceError as exc:
            return _row(job, error=str(exc), wall_s=round(time.monotonic() - started, 3))
        commit = instance.base_commit
        if patch.strip():
            try:
                git(["apply", "--whitespace=nowarn", "-"], repo, stdin=patch.encode("utf-8"))
                git(["add", "-A"], repo)
                git([*PEER_AUTHOR, "commit", "-qm", "peer prediction"], repo)
                commit = git_line(["rev-parse", "HEAD"], repo)
            except GitError as exc:
                return _row(
                    job,
                    claimed_success=True,
                    shipped_broken=True,
                    stop_reason="patch_does_not_apply",
                    error=None,
                    evaluation={
                        "status": "unresolved",
                        "detail": f"the patch does not apply: {exc}",
                    },
                    wall_s=round(time.monotonic() - started, 3),
                )
        evaluation = evaluate(repo, instance, commit, work, job.deps)
        claimed = bool(patch.strip())
        return _row(
            job,
            claimed_success=claimed,
            resolved=evaluation.status == RESOLVED,
            shipped_broken=claimed and evaluation.status == UNRESOLVED,
            stop_reason="submitted" if claimed else "empty_patch",
            evaluation=evaluation.as_json(),
            wall_s=round(time.monotonic() - started, 3),
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _row(job: PredictionJob, **fields: object) -> Row:
    ident = job.instance.instance_id
    figures = job.prediction
    return run_row(
        ident,
        job.prediction.model,
        job.instance.language,
        instance_id=ident,
        peer=True,
        model_calls=figures.model_calls,
        input_tokens=figures.input_tokens,
        turns=figures.model_calls or 0,
        tokens={"input": figures.input_tokens or 0, "output": 0},
        **fields,
    )
