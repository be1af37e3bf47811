"""What the model is told: the stable system rules (cacheable) and a briefing per phase."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from contracts.compiler import COMPILABLE_FORMS
from contracts.validation import CompiledStep, ValidPlan
from summarizers.tokens import clip_chars

DONE_SUMMARY_CHARS = 300

SYSTEM_RULES = """\
You are coder, a careful software engineer working in a git repository through tools.
Every change you make is checked by a harness that never takes your word for it.

Rules:
- Call exactly the tools offered in this phase; every reply must contain at least one tool call.
- Paths are relative to the repository root. Read a file before editing it; copy edit_file's
  old_text from read_file output (without the line numbers).
- Stay within the files of the current step. Do not reformat or "fix" unrelated code.
"""

PLAN_FORMAT = """\
A plan is submit_plan's input: a goal, `notes` and steps. `notes` is what you found that the
executors need (root cause, the files and lines involved, decisions taken): each step runs in a
fresh conversation that sees only the goal, the notes and its own step. A step's files are the
paths or globs it may create, edit or delete (it changes at least one); its invariants hold
after it: objects (a `pattern` is a regular expression) or strings of the forms below.
tests_fail_before: of the tests the step adds or changes in `paths`, at least one must fail on
the code before the step, and all must pass after it; a test id requires that one.
tests_removed: tests removed or skipped on purpose; any other that disappears or is skipped fails.
Signatures and public APIs are checked compatible ("signature_compatible",
"public_api_compatible") or strict ("signature_unchanged", "public_api_unchanged").
Compatible: every call the old version accepted still works (a new parameter with a default
passes; a removed, renamed, reordered or newly required one fails). Strict: the signature
stays identical. "Breaking", "backward compatible" and "don't break" mean compatible;
"unchanged", "must not change" and "keeps its signature" mean strict. Any signature or API
form takes "in FILE".
Strings of these forms compile:
"""


def _with_context(task: str, context: str) -> str:
    """The task line, then its background (the PR bot's pull request) when there is one."""
    return f"Task: {task}\n\n{context.strip()}" if context.strip() else f"Task: {task}"


def plan_briefing(
    task: str,
    repo_map: str,
    test_cmd: str | None,
    context: str = "",
    baseline: str = "",
    repo_words: str = "",
    paths_run: str = "",
) -> str:
    """`baseline`: what the test command said before any change (tests already failing, a
    likely missing environment), so no step is made to demand a test red for another reason.
    `repo_words`: the repository's AGENTS.md, quoted (`coder.loop.conversation.repo_words`).
    `paths_run`: the command a `tests_pass` with paths runs (coder.verdict.scoping)."""
    forms = "\n".join(f"- {form}" for form in COMPILABLE_FORMS)
    base = f"{baseline}\n\n" if baseline else ""
    scoped = f"\n{paths_run}" if paths_run else ""
    return (
        f"{_with_context(task, context)}\n\nTest command: {test_cmd or '(none detected)'}"
        f"{scoped}\n\n{base}"
        f"Repository map:\n{repo_map}\n\n{repo_words}"
        "Phase: PLAN. Explore with read_file/list_files/search, and `run` commands to reproduce "
        "the problem (whatever they change is reset before the first step); then call "
        "submit_plan with small, verifiable steps. Every step should name the tests that prove "
        "it. A bug fix should come with a regression test proven to catch the bug: add the test "
        "in the fixing step and give it the invariant 'the new tests in FILE fail before this "
        "step and pass after'.\n\n"
        f"{PLAN_FORMAT}{forms}"
    )


ENVIRONMENTAL_FAILURE = (
    "The failure is the sandbox's doing, not the change's: the test command hit a limit of "
    "the sandbox (a read-only path, no network, a missing home configuration; the evidence "
    "names it). Do not change correct code to get around it: keep the attempt's change, and "
    "verify it with a check that does not need what the sandbox withholds (a narrower test "
    "command, the tests' own files)"
)


NOTES_CHARS = 4000


def plan_context(plan: ValidPlan | None, *, whole: bool = False) -> str:
    """The plan's goal and the planner's notes, as every step and revision is told them: a
    fresh conversation would otherwise rediscover the design from a one-line title. A step
    is told at most NOTES_CHARS of the notes; a revision (`whole`), which writes the next
    version of them, all."""
    if plan is None:
        return ""
    lines = [f"Plan goal: {plan.plan.goal}"] if plan.plan.goal.strip() else []
    notes = (plan.plan.notes or "").strip()
    if notes:
        lines.append(f"Planner's notes:\n{notes if whole else clip_chars(notes, NOTES_CHARS)}")
    return "\n".join(lines) + "\n\n" if lines else ""


REVISION_FORMAT = (
    "The plan is submit_plan's input, as its schema says: the goal, the notes and every step "
    "(verified ones included). Invariants: the forms the current plan uses, or any other that "
    "compiles; a string that does not is answered with every form that does."
)
"""A revision's whole word on the plan format: the invariant grammar is the plan phase's, and
comes back in a revision only with an invariant that does not compile (contracts.validation),
so a revise request does not carry ~3 KB it rarely needs on every turn."""


def revision_briefing(
    task: str,
    plan: ValidPlan,
    verified: list[str],
    failure: str,
    left: str,
    context: str = "",
    *,
    environmental: bool = False,
    what_failed: str = "A step failed verification and was rolled back.",
) -> str:
    """The plan's goal and notes once (as text, whole), then its steps; the invariant
    grammar only by reference (REVISION_FORMAT)."""
    cause = f"{ENVIRONMENTAL_FAILURE}; " if environmental else "Fix the cause; "
    return (
        f"{_with_context(task, context)}\n\n{plan_context(plan, whole=True)}"
        f"Phase: REVISE. {what_failed}\n\n"
        f"Failure:\n{failure}\n\n"
        f"The current plan's steps (its goal and notes are above):\n{steps_json(plan)}\n\n"
        f"Verified steps (kept unless you change their files): {', '.join(verified) or 'none'}\n"
        f"Budget left: {left}\n\n"
        f"Submit the complete next version of the plan with submit_plan. {cause}keep "
        "verified steps as they are, and the correct part of the failed attempt. You may read "
        "files and run commands first (what they change is reset).\n\n"
        f"{REVISION_FORMAT}"
    )


@dataclass(frozen=True)
class DoneStep:
    """A verified step as a later step is told it: a fresh conversation knows nothing else."""

    step_id: str
    commit: str
    summary: str


def _done_lines(done: list[DoneStep]) -> str:
    if not done:
        return "Steps already verified: none"
    lines = ["Steps already verified (`git show <commit>` in `run` shows what one changed):"]
    for d in done:
        said = clip_chars(" ".join(d.summary.split()), DONE_SUMMARY_CHARS)
        commit = f" (commit {d.commit[:10]})" if d.commit else ""
        lines.append(f"  - {d.step_id}{commit}" + (f": {said}" if said else ""))
    return "\n".join(lines)


def step_briefing(
    task: str,
    step: CompiledStep,
    done: list[DoneStep],
    left: str,
    failure: str,
    test_cmd: str | None,
    plan: ValidPlan | None = None,
    repo_words: str = "",
    paths_command: Callable[[list[str]], str] | None = None,
    *,
    base: str = "",
) -> str:
    """`plan`: whose goal and notes the step is told; `repo_words`: the repository's own
    instructions for agents (AGENTS.md), shown as quoted material; `paths_command`: the exact
    command a `tests_pass` with paths runs, shown beside it; `base`: what was red before any
    change (coder.loop.conversation.known_red), which the step's fresh conversation would rediscover."""
    contract = step.contract
    checks = (
        "\n".join(f"  - {describe(inv)}{_runs(inv, paths_command)}" for inv in step.invariants)
        or "  - (none besides scope)"
    )
    last = f"\nLast failure of this step:\n{failure}\n" if failure else ""
    red = f"{base}\n" if base else ""
    return (
        f"Task: {task}\n\n{plan_context(plan)}{repo_words}Phase: EXECUTE step `{contract.step_id}`"
        f"{': ' + contract.title if contract.title else ''}.\n"
        f"Files you may create, edit or delete: {', '.join(contract.intended_modification.files)}\n"
        f"After finish_step the harness checks:\n  - only those files changed\n{checks}\n"
        f"Test command: {test_cmd or '(none detected)'}\n{red}"
        f"{_done_lines(done)}\nBudget left: {left}\n{last}\n"
        "Make the change, run the relevant tests with `run` if useful, then call finish_step."
    )


def react_briefing(
    task: str,
    repo_map: str,
    test_cmd: str | None,
    left: str,
    critique: str = "",
    baseline: str = "",
) -> str:
    """`critique`: a reviewer's verdict on an earlier attempt (reflect mode's retry), which
    was discarded; the retry sees the verdict, never the earlier transcript. `baseline`: what
    the test command said before any change, as the planner is told it."""
    base = f"{baseline}\n\n" if baseline else ""
    earlier = (
        "An earlier attempt at this task was reviewed and discarded; the code is as it was "
        f"before it. The reviewer's critique:\n{critique}\n\n"
        if critique
        else ""
    )
    return (
        f"Task: {task}\n\nTest command: {test_cmd or '(none detected)'}\nBudget: {left}\n\n"
        f"{base}{earlier}Repository map:\n{repo_map}\n\n"
        "Work with the tools until the task is done, then call final_answer. A test that "
        "ran before your change and does not run after it fails the run, unless the task asked "
        "you to delete or skip it: then name it in final_answer's tests_removed."
    )


def critique_briefing(
    task: str, summary: str, diff: str, tests: str, baseline: str, left: str
) -> str:
    """What the critic sees: the attempt's own summary, its change and the harness's run of
    the test command on it, so the verdict can rest on something outside the model."""
    base = f"{baseline}\n\n" if baseline else ""
    return (
        f"Task: {task}\n\nPhase: CRITIQUE. An attempt at the task finished; review it before "
        f"it ships.\nThe attempt's summary: {summary or '(none)'}\n\n"
        f"Its change:\n{diff}\n\n{tests}\n\n{base}Budget left: {left}\n\n"
        "You may read files and run commands (whatever they change is discarded). Then call "
        'critique_done: verdict "ok" if the change does the task and breaks nothing, or '
        '"problem" with what is wrong; a problem discards the attempt, and a fresh one starts '
        "from the original code with your critique."
    )


def _runs(invariant: object, paths_command: Callable[[list[str]], str] | None) -> str:
    paths = getattr(invariant, "paths", None)
    if paths_command is None or getattr(invariant, "kind", None) != "tests_pass" or not paths:
        return ""
    if getattr(invariant, "command", None):
        return ""
    return f"\n    runs: `{paths_command(list(paths))}`"


def describe(invariant: object) -> str:
    """What the planner wrote, as written: a sentence stays the sentence (its compiled regex,
    `\\-\\-max\\-cost` say, would read as something else), an object stays its JSON."""
    data = invariant.model_dump(exclude_none=True)  # type: ignore[attr-defined]
    kind = data.pop("kind")
    source = getattr(invariant, "source", None)
    if source:
        return f"{source} (checked as {kind})"
    return f"{kind} {json.dumps(data, ensure_ascii=False)}" if data else kind


def steps_json(plan: ValidPlan) -> str:
    """The plan's steps as they travel (its goal and notes are told as text beside them)."""
    return json.dumps(plan.plan.wire()["steps"], indent=1, ensure_ascii=False)
