"""`coder clean`: what runs leave behind in a repository, found, said, then removed.

Every run keeps its branch `coder/<run-id>` (the change lives there until it is taken) and its
run directory `.coder/runs/<run-id>/`. After a few dozen runs they are clutter. Clean removes
the branches of finished runs (with `--older-than DAYS`, only those older), the rolled-back
attempts earlier versions kept as refs (`refs/coder/attempts/`) and, with `--older-than`, the
run directories older than that. A run still going is never touched: its
worktree is owned by a live process (`sandbox.workspace.live_runs`), and its branch is checked
out there. Branches under `coder/` that are not a run's (`coder/fix-12` pushed by `coder ci
fix`, a person's own) are left alone, and so is a run's branch that carries a commit coder
did not make (a person's commit on `coder/<id>`): deleting it would lose their work.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from sandbox.gitcli import HARNESS_EMAIL, HARNESS_NAME, GitError, git, git_line
from sandbox.packfilter import CACHE_DIR as PACK_CACHE
from sandbox.workspace import BRANCH_PREFIX, WorkspaceError, live_runs

RUNS_DIR = Path(".coder") / "runs"
_RUN_ID_TIME = re.compile(r"(\d{8}-\d{6})-[0-9a-f]{6}(?:-a\d+)?")
"""A run's id, or one attempt's of a run with --attempts (`<run-id>-a2`: its branch once the
attempts have ended, its directory `<run-id>/a2/`)."""
DAY_S = 86_400.0
ATTEMPT_REFS = "refs/coder/attempts/"
"""Where coder before issue 32 kept rolled-back attempts (now kept outside the repository)."""
CLOCK_SLACK_S = 5.0
"""A commit's time is whole seconds and a run id's start too: this much past a run's end
still counts as made by the run."""


class CleanInputError(Exception):
    """Not a repository, or a bad age: one line, exit 2."""


@dataclass(frozen=True)
class Item:
    """One thing clean would remove: a run's branch or a run directory."""

    kind: str  # "branch" | "run directory"
    name: str  # the branch name, or the directory's path relative to the repository
    run_id: str
    age_days: float
    status: str  # the run's status from result.json, or "unfinished"

    def line(self) -> str:
        return f"{self.kind} {self.name} ({self.status}, {_age(self.age_days)})"


@dataclass
class CleanPlan:
    repo: Path
    remove: list[Item] = field(default_factory=list)
    running: list[str] = field(default_factory=list)
    """Run ids kept because they are going on now."""
    kept_newer: int = 0
    """Items kept because they are younger than --older-than."""
    kept_foreign: list[str] = field(default_factory=list)
    """One line per run branch kept because it carries a commit coder did not make."""


def plan_clean(repo: Path, older_than_days: float | None, now: float | None = None) -> CleanPlan:
    """What `coder clean` would remove in `repo`, touching nothing."""
    if older_than_days is not None and older_than_days < 0:
        raise CleanInputError("--older-than must be 0 or more days")
    try:
        top = Path(git_line(["rev-parse", "--show-toplevel"], repo)).resolve()
        live_ids, live_branches = live_runs(top)
    except (GitError, WorkspaceError, OSError) as exc:
        raise CleanInputError(f"{repo} is not a git repository ({exc})") from None
    now = time.time() if now is None else now
    plan = CleanPlan(top)
    runs_dir = top / RUNS_DIR
    run_dirs = {p.name: p for p in runs_dir.iterdir() if p.is_dir()} if runs_dir.is_dir() else {}
    ends = _run_ends(run_dirs)
    attempt_dirs = {
        f"{p.name}-{a.name}": a for p in run_dirs.values() for a in p.glob("a[0-9]*") if a.is_dir()
    }
    for branch, committed in _run_branches(top):
        run_id = branch.removeprefix(BRANCH_PREFIX)
        own_dir = run_dirs.get(run_id) or attempt_dirs.get(run_id)
        if own_dir is None and not _RUN_ID_TIME.fullmatch(run_id):
            continue  # not a run's branch
        if run_id in live_ids or branch in live_branches:
            plan.running.append(run_id)
            continue
        age = (now - _run_time(run_id, own_dir, committed)) / DAY_S
        if older_than_days is not None and age < older_than_days:
            plan.kept_newer += 1
            continue
        foreign = _foreign_commit(top, branch, ends.get(branch))
        if foreign is not None:
            plan.kept_foreign.append(
                f"kept: branch {branch} carries a commit coder did not make ({foreign}); "
                f"delete it yourself if it is not wanted: git branch -D {branch}"
            )
            continue
        plan.remove.append(Item("branch", branch, run_id, age, _status(own_dir)))
    cache = Path(git_line(["rev-parse", "--path-format=absolute", "--git-common-dir"], top))
    cache = cache / PACK_CACHE
    if cache.is_dir() and not live_ids:
        age = (now - cache.stat().st_mtime) / DAY_S
        plan.remove.append(Item("pack cache", str(cache), "", age, "packs as commands see them"))
    for ref, committed in _refs(top, ATTEMPT_REFS):
        age = (now - committed) / DAY_S
        plan.remove.append(Item("attempt ref", ref, "", age, "a rolled-back attempt"))
    if older_than_days is None:
        return plan
    for run_id, path in sorted(run_dirs.items()):
        if run_id in live_ids:
            if run_id not in plan.running:
                plan.running.append(run_id)
            continue
        age = (now - _run_time(run_id, path, None)) / DAY_S
        if age < older_than_days:
            plan.kept_newer += 1
            continue
        name = str(path.relative_to(top))
        plan.remove.append(Item("run directory", name, run_id, age, _status(path)))
    return plan


def carry_out(plan: CleanPlan) -> list[str]:
    """Remove what the plan lists, checking again that no run has started on it meanwhile;
    one line for each thing that could not be removed."""
    live_ids, live_branches = live_runs(plan.repo)
    problems = []
    for item in plan.remove:
        if item.run_id in live_ids or item.name in live_branches:
            problems.append(f"{item.kind} {item.name}: its run is going on now; kept")
            continue
        if item.kind == "branch":
            try:
                git(["branch", "-q", "-D", item.name], plan.repo)
            except GitError as exc:
                problems.append(f"branch {item.name}: {exc}")
        elif item.kind == "pack cache":
            shutil.rmtree(item.name, ignore_errors=True)
        elif item.kind == "attempt ref":
            try:
                git(["update-ref", "-d", item.name], plan.repo)
            except GitError as exc:
                problems.append(f"attempt ref {item.name}: {exc}")
        else:
            shutil.rmtree(plan.repo / item.name, ignore_errors=True)
            if (plan.repo / item.name).exists():
                problems.append(f"run directory {item.name}: could not be removed")
    return problems


def _run_branches(top: Path) -> list[tuple[str, float]]:
    return _refs(top, "refs/heads/" + BRANCH_PREFIX, short=True)


def _refs(top: Path, prefix: str, *, short: bool = False) -> list[tuple[str, float]]:
    """The refs under `prefix` with their commits' times."""
    name = "%(refname:short)" if short else "%(refname)"
    listing = git(["for-each-ref", f"--format={name}%09%(committerdate:unix)", prefix], top).decode(
        "utf-8", errors="replace"
    )
    refs = []
    for line in listing.splitlines():
        ref, _, when = line.partition("\t")
        refs.append((ref, float(when or 0)))
    return refs


def _run_ends(run_dirs: dict[str, Path]) -> dict[str, float]:
    """Branch -> when the last run on it ended (a resumed run goes on on the branch of the run
    it resumes): its id's start time plus its wall time, from each result.json."""
    ends: dict[str, float] = {}
    for run_id, run_dir in run_dirs.items():
        try:
            result = json.loads((run_dir / "result.json").read_text())
        except (OSError, ValueError):
            continue
        match = _RUN_ID_TIME.fullmatch(run_id)
        if not isinstance(result, dict) or match is None:
            continue
        branch, wall = result.get("branch"), result.get("wall_s")
        if not isinstance(branch, str) or not isinstance(wall, int | float):
            continue
        start = datetime.strptime(match[1], "%Y%m%d-%H%M%S").replace(tzinfo=UTC).timestamp()
        ends[branch] = max(ends.get(branch, 0.0), start + float(wall))
    return ends


def _foreign_commit(top: Path, branch: str, run_end: float | None) -> str | None:
    """A commit that only `branch` holds (no other branch, tag, remote or HEAD, other run
    branches aside) and that coder did not make, as `sha "subject"`; None when every one is
    coder's. Coder's commits carry its identity and its words (a `Coder-Step:` trailer, or a
    subject `coder: ...`), and none is later than the run's end, when that is known."""
    log = git(
        [
            "log",
            "-z",
            "--format=%h%x01%cn%x01%ce%x01%ct%x01%s%x01%(trailers:key=Coder-Step,valueonly)",
            f"refs/heads/{branch}",
            "--not",
            f"--exclude=refs/heads/{BRANCH_PREFIX}*",
            "--all",
        ],
        top,
    ).decode("utf-8", errors="replace")
    for record in filter(None, log.split("\0")):
        sha, name, email, when, subject, step = (record.split("\x01") + [""] * 6)[:6]
        ours = (name, email) == (HARNESS_NAME, HARNESS_EMAIL) and (
            step.strip() or subject.startswith("coder: ")
        )
        late = run_end is not None and float(when or 0) > run_end + CLOCK_SLACK_S
        if not ours or late:
            return f'{sha} "{subject}"'
    return None


def _run_time(run_id: str, run_dir: Path | None, committed: float | None) -> float:
    """When the run last did something: its run directory's newest record, else the time in
    its id, else its branch's last commit."""
    if run_dir is not None:
        times = [
            (run_dir / name).stat().st_mtime
            for name in ("result.json", "state.json", "trace.jsonl")
            if (run_dir / name).is_file()
        ]
        if times:
            return max(times)
    match = _RUN_ID_TIME.fullmatch(run_id)
    if match:
        return datetime.strptime(match[1], "%Y%m%d-%H%M%S").replace(tzinfo=UTC).timestamp()
    if committed is not None:
        return committed
    return run_dir.stat().st_mtime if run_dir is not None else 0.0


def _status(run_dir: Path | None) -> str:
    if run_dir is None:
        return "no run directory"
    try:
        result = json.loads((run_dir / "result.json").read_text())
    except (OSError, ValueError):
        return "unfinished"
    if not isinstance(result, dict):
        return "unfinished"
    status, reason = result.get("status"), result.get("stop_reason")
    return f"{status} ({reason})" if reason and reason != "completed" else str(status)


def _age(days: float) -> str:
    if days >= 1:
        return f"{days:.0f} day{'s' if round(days) != 1 else ''} old"
    hours = days * 24
    return f"{hours:.0f} hour{'s' if round(hours) != 1 else ''} old" if hours >= 1 else "new"


def clean(
    repo: Path,
    older_than_days: float | None,
    *,
    yes: bool,
    ask: Callable[[str], str] | None,
    say: Callable[[str], None],
) -> int:
    """`coder clean`: say what will go, ask (unless `yes`), remove. The exit status: 0 done or
    nothing to do, 1 something could not be removed, 2 no terminal to ask on and no --yes."""
    plan = plan_clean(repo, older_than_days)
    for run_id in plan.running:
        say(f"kept: run {run_id} is going on now")
    if plan.kept_newer:
        say(f"kept: {plan.kept_newer} newer than {older_than_days:g} day(s)")
    for line in plan.kept_foreign:
        say(line)
    if not plan.remove:
        say(f"nothing to clean in {plan.repo}")
        return 0
    say(f"coder clean will remove, in {plan.repo}:")
    for item in plan.remove:
        say(f"  {item.line()}")
    if not yes:
        if ask is None:
            say("no terminal to ask on: pass --yes to remove these")
            return 2
        if ask(f"remove these {len(plan.remove)}? [y/N] ").strip().lower() not in ("y", "yes"):
            say("nothing removed")
            return 0
    problems = carry_out(plan)
    for problem in problems:
        say(problem)
    say(f"removed {len(plan.remove) - len(problems)} of {len(plan.remove)}")
    return 1 if problems else 0
