"""A plan a person wrote (`coder run --plan FILE`, an edit under --approve), checked like the
planner's and against the repository itself: a file reached through a symlink that leads out
of the repository is outside it, whatever its spelling."""

from __future__ import annotations

from pathlib import Path

from coder.loop.state.usage import UsageError
from contracts.paths import is_glob
from contracts.validation import ValidPlan, load_plan_file
from sandbox.policy import PathPolicy


def load_given_plan(path: Path, repo: Path, *, allow_unverified: bool) -> ValidPlan:
    """The valid plan in `path`, or UsageError listing every problem, as `coder check-plan`."""
    check = load_plan_file(path, allow_unverified=allow_unverified)
    problems = [str(p) for p in check.problems]
    if check.plan is not None:
        problems = escaping_files(check.plan, repo)
    if problems:
        count = f"{len(problems)} problem{'s' if len(problems) > 1 else ''}"
        raise UsageError(f"--plan {path} is not a valid plan ({count}, above)", problems)
    assert check.plan is not None
    return check.plan


def escaping_files(plan: ValidPlan, root: Path) -> list[str]:
    """One problem per file glob whose fixed part resolves outside `root` (or into .git/)."""
    policy = PathPolicy(root, None, ())
    problems = []
    for index, step in enumerate(plan.plan.steps):
        for j, glob in enumerate(step.intended_modification.files):
            fixed = _fixed_part(glob)
            if not fixed:
                continue
            decision = policy.check(fixed, write=False)
            if not decision.allowed:
                reason = decision.reason.split(";")[0]
                problems.append(
                    f"steps[{index}] ({step.step_id}).intendedModification.files[{j}]: "
                    f"{glob!r} is outside the repository: {reason}"
                )
    return problems


def _fixed_part(glob: str) -> str:
    """The leading segments without wildcards: what a glob's matches all lie under."""
    parts = glob.split("/")
    fixed = []
    for part in parts:
        if is_glob(part):
            break
        fixed.append(part)
    return "/".join(fixed)
