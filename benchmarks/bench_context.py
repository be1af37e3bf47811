"""What the context policy costs, billed the way Anthropic bills a cached prompt.

Every session runs the real loop with an `anthropic:` model, through the real SDK, against the
tests' local Messages API server (tests/fake_model_servers.py), which answers with the
session's scripted turns and keeps every request body; prompt_cache.py bills those bodies
(cache writes 1.25x, cache reads 0.1x, plain input 1x, breakpoints where the provider put
them). Same session, same turns, three policies:

- `none`: nothing is ever masked;
- `turns3`: the policy before issue 12, kept here as the comparison: every output older than
  the last 3 turns masked to one line, then fewer whole turns until the call fits 24k tokens;
- `default24k`, `default200k`: the policy the run builds itself, at the 24k call limit of
  models that report no window (masked from 24k down to 6k) and at the limit it derives from
  Anthropic's 200k window (masked from 32k down to 8k).

Sessions:
- `biglog30`: react, 29 runs of a ~11k-token noisy test log (1.5k tokens compacted) and a
  final answer (the 30-turn run of bench_loop.py);
- `short`: every fixture's own scripts in contract, react and plan mode;
- `long:<fixture>`: react on a fixture repository as a thorough agent works: list, read every
  file, search each defined name, run the suite verbosely, then the fixture's own moves, then
  re-read and re-run; `long:coder`: the same on this project's own source tree (its first
  40 modules by size, its contract tests).

Goals: the defaults bill no more than `none` on the short runs, and at least 2x less on biglog30.
A floor is printed for the longer sessions: what any policy that shows each output whole once
must pay (every new token written once at 1.25x, the first call's prefix read at 0.1x on every
later call); none/floor is the most any policy could save.

Usage: python benchmarks/bench_context.py [--sessions biglog30,short,long] [--sweep]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

from fake_model_servers import Reply, anthropic_message, anthropic_tool_use, fake_anthropic  # noqa: E402
from gitrepo import make_repo  # noqa: E402
from prompt_cache import PLAIN, READ, WRITE, Bill, simulate  # noqa: E402

from coder.bench.fixtures import MODES, Fixture, load_fixtures  # noqa: E402
from coder.bench.runner import FIXTURE_ENV, _make_repo  # noqa: E402
from coder.loop.conversation.context import (  # noqa: E402
    BatchMasking,
    ContextPolicy,
    Conversation,
    View,
    part_tokens,
)
from coder.loop.runner import RunOptions, run_task  # noqa: E402
from coder.models.base import Message, TextPart, ToolCallPart, ToolResultPart  # noqa: E402
from coder.models.scripted import ScriptedCall, ScriptedTurn, load_turns  # noqa: E402

LIMIT = 24_000
"""The call limit when the model reports no window (scripted models)."""
SWEEP = (24_000, 32_000, 48_000, 64_000, 98_000)
SAME = 1.01
NOISY_LOG = ROOT / "benchmarks" / "data" / "noisy_log.py"


@dataclass(frozen=True)
class RecentTurns:
    """The policy before issue 12, as it was: outputs older than `keep` turns masked to one
    line each (the old `mask_line`), then fewer whole turns, then dropped turns, to fit."""

    limit: int = LIMIT
    keep: int = 3

    def view(self, conversation: Conversation, fixed_tokens: int, limit: int) -> View:
        limit = min(self.limit, limit)
        turns = len(conversation.turns)
        for keep in range(min(self.keep, turns), -1, -1):
            messages = _old_render(conversation, keep, 0)
            size = fixed_tokens + _tokens(messages)
            if size <= limit:
                return View(messages, size)
        for skip in range(1, turns + 1):
            messages = _old_render(conversation, 0, skip)
            size = fixed_tokens + _tokens(messages)
            if size <= limit:
                break
        return View(messages, size)


def _old_render(conversation: Conversation, keep: int, skip: int) -> list[Message]:
    opening = conversation.briefing
    if skip:
        opening += (
            f"\n\n({skip} earlier turns of this phase were dropped to fit "
            "the context; the trace keeps them.)"
        )
    messages = [Message.user(opening)]
    live = conversation.turns[skip:]
    for index, turn in enumerate(live):
        stale = index < len(live) - keep
        messages.append(turn.assistant)
        calls = {p.id: p for p in turn.assistant.parts if isinstance(p, ToolCallPart)}
        if not turn.results:
            messages.append(Message.user(turn.note))
            continue
        parts: tuple[ToolResultPart | TextPart, ...] = tuple(
            ToolResultPart(r.part.call_id, _old_mask(calls.get(r.part.call_id), r.part), True)
            if stale
            else r.part
            for r in turn.results
        )
        if turn.note:
            parts += (TextPart(turn.note),)
        messages.append(Message("user", parts))
    return messages


def _old_mask(call: ToolCallPart | None, part: ToolResultPart) -> str:
    if call is None:
        return part.content
    args, text = call.input, part.content
    status = "error" if part.is_error else "ok"
    first = text.strip().splitlines()[0][:120] if text.strip() else ""
    target = (
        args.get("path") or args.get("command") or args.get("pattern") or args.get("glob") or ""
    )
    return (
        f"[stale {call.name} {str(target)[:80]} → {status}: {first} … "
        f"({len(text)} chars masked; call again to see it)]"
    )


def _tokens(messages: list[Message]) -> int:
    return sum(part_tokens(p) for m in messages for p in m.parts)


@dataclass(frozen=True)
class Policy:
    """A policy to run (None: the one the run builds itself) and the call limit to run it at
    (None: what the run derives from the model's window)."""

    make: Callable[[], ContextPolicy | None]
    context_tokens: int | None = None


POLICIES: dict[str, Policy] = {
    "none": Policy(lambda: BatchMasking(threshold=10**9, target=10**9), 10**9),
    "turns3": Policy(lambda: RecentTurns(), LIMIT),
    "default24k": Policy(lambda: None, LIMIT),
    "default200k": Policy(lambda: None),
}
DEFAULTS = ("default24k", "default200k")


@dataclass
class Session:
    name: str
    repo: Callable[[Path], Path]
    task: str
    mode: str
    turns: list[ScriptedTurn]
    test_cmd: str | None = None
    short: bool = False


@dataclass
class Outcome:
    bill: Bill
    max_context: int
    batches: int
    turns: int
    new_tokens: list[int] = field(default_factory=list)


def run_session(session: Session, policy: Policy, work: Path) -> Outcome:
    """The session through the real loop, SDK and wire server; the bodies it sent, billed."""
    queue = deque(session.turns)

    def respond(_request: Any) -> Reply:
        if not queue:
            return Reply({"error": {"type": "invalid_request_error", "message": "done"}}, 400)
        turn = queue.popleft()
        calls = [anthropic_tool_use(c.tool, c.input) for c in turn.calls]
        return Reply(anthropic_message(text=turn.text, tool_calls=calls))

    repo = session.repo(work / "repo")
    with fake_anthropic(respond=respond) as server:
        os.environ["ANTHROPIC_API_KEY"] = "bench-not-a-key"
        os.environ["ANTHROPIC_BASE_URL"] = server.base_url
        outcome = run_task(
            RunOptions(
                repo=repo,
                task=session.task,
                model="anthropic:claude-bench",
                mode=session.mode,
                test_cmd=session.test_cmd,
                out_dir=work / "run",
                max_turns=500,
                context_policy=policy.make(),
                context_tokens=policy.context_tokens,
                command_env=FIXTURE_ENV,
            )
        )
        bodies = server.bodies()
    events = [json.loads(line) for line in (outcome.run_dir / "trace.jsonl").open()]
    calls = [e for e in events if e["type"] == "model_call" and "context_tokens" in e]
    return Outcome(
        bill=simulate(bodies),
        max_context=max(e["context_tokens"] for e in calls),
        batches=sum(1 for e in calls if e.get("masked")),
        turns=len(calls),
    )


def _turn(tool: str, **args: Any) -> ScriptedTurn:
    return ScriptedTurn("", (ScriptedCall(tool, args),))


def biglog_session(turns: int = 30) -> Session:
    calls = [_turn("run", command=f"python {NOISY_LOG} {i}") for i in range(turns - 1)]
    calls.append(_turn("final_answer", summary="done"))
    return Session(
        "biglog30",
        lambda path: make_repo(path, {"tests/test_x.py": "def test_x():\n    assert True\n"}),
        "look at the logs",
        "react",
        calls,
        test_cmd="true",
    )


def short_sessions(fixtures: list[Fixture]) -> Iterator[Session]:
    for fixture in fixtures:
        for mode in MODES:
            yield Session(
                f"short:{fixture.name}:{mode}",
                lambda path, f=fixture: _make_repo(f, path),
                fixture.spec.task,
                mode,
                load_turns(fixture.script(mode)),
                fixture.spec.test_cmd,
                short=True,
            )


DEFINED = re.compile(r"^\s*(?:def|class|function|async function)\s+([A-Za-z_]\w*)", re.M)


def explore(root: Path, files: list[str], test_cmds: list[str]) -> list[ScriptedTurn]:
    """A thorough agent's first look: list, read each file, search each defined name, run."""
    turns = [_turn("list_files")]
    names: list[str] = []
    for rel in files:
        turns.append(_turn("read_file", path=rel))
        text = (root / rel).read_text(encoding="utf-8", errors="replace")
        names += [n for n in DEFINED.findall(text) if not n.startswith("test") and n not in names]
    turns += [_turn("run", command=cmd) for cmd in test_cmds]
    turns += [_turn("search", pattern=rf"\b{name}\b") for name in names[:8]]
    return turns


def long_fixture_session(fixture: Fixture) -> Session:
    root = fixture.repo
    files = sorted(
        str(p.relative_to(root))
        for p in root.rglob("*")
        if p.is_file() and p.suffix in (".py", ".js")
    )
    verbose = (
        "python -m pytest -vv -rA"
        if fixture.spec.language == "python"
        else "node --test --test-reporter=spec test/"
    )
    turns = explore(root, files, [fixture.spec.test_cmd, verbose])
    moves = [t for t in load_turns(fixture.script("react")) if t.calls]
    final = moves.pop() if moves and moves[-1].calls[0].tool == "final_answer" else None
    turns += moves
    edited = [
        c.input["path"] for t in moves for c in t.calls if c.tool in ("edit_file", "write_file")
    ]
    turns += [_turn("read_file", path=p) for p in dict.fromkeys(edited)]
    turns += [_turn("run", command=fixture.spec.test_cmd), _turn("run", command=verbose)]
    turns.append(final or _turn("final_answer", summary="done"))
    return Session(
        f"long:{fixture.name}",
        lambda path: _make_repo(fixture, path),
        fixture.spec.task,
        "react",
        turns,
        fixture.spec.test_cmd,
    )


def long_coder_session() -> Session:
    listed = subprocess.run(
        ["git", "ls-files", "coder", "sandbox", "summarizers", "contracts"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    modules = sorted(
        (p for p in listed if p.endswith(".py")), key=lambda p: -(ROOT / p).stat().st_size
    )[:40]
    test_cmd = "python -m pytest -q -p no:cacheprovider tests/contracts/test_plan_validation.py"
    turns = explore(ROOT, sorted(modules), [test_cmd, f"{test_cmd} -vv"])
    turns += [_turn("run", command=test_cmd), _turn("final_answer", summary="read the code")]

    def repo(path: Path) -> Path:
        tracked = subprocess.run(
            ["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True
        ).stdout.split(b"\0")
        files = {
            rel.decode(): (ROOT / rel.decode()).read_text(encoding="utf-8", errors="replace")
            for rel in tracked
            if rel and (ROOT / rel.decode()).is_file()
        }
        return make_repo(path, files)

    return Session("long:coder", repo, "read the code", "react", turns, test_cmd)


def floor(none: Bill) -> float:
    """What any policy that shows each output whole once pays at least: every token that is
    new to a call written once, and the first call's prefix (tools, system, briefing) read
    on every later call."""
    new = sum(write + plain for write, _, plain in none.per_call)
    opening = sum(none.per_call[0])
    return new * WRITE + opening * READ * (none.calls - 1)


def measure(
    sessions: list[Session], work: Path, policies: dict[str, Policy]
) -> dict[str, dict[str, Outcome]]:
    results: dict[str, dict[str, Outcome]] = {}
    for n, session in enumerate(sessions):
        results[session.name] = {}
        print(f"{session.name} ...", file=sys.stderr, flush=True)
        for name, policy in policies.items():
            if session.short and name not in POLICIES:
                continue  # short runs never reach a threshold: the sweep would repeat `none`
            results[session.name][name] = run_session(session, policy, work / f"s{n}-{name}")
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", default="biglog30,short,long")
    parser.add_argument("--sweep", action="store_true", help="also try other thresholds")
    args = parser.parse_args()
    wanted = set(args.sessions.split(","))
    fixtures = load_fixtures(ROOT / "fixtures", None, MODES, need_scripts=True)
    sessions: list[Session] = []
    if "biglog30" in wanted:
        sessions.append(biglog_session())
    if "short" in wanted:
        sessions += short_sessions(fixtures)
    if "long" in wanted:
        sessions += [long_fixture_session(f) for f in fixtures[::3]] + [long_coder_session()]
    policies = dict(POLICIES)
    if args.sweep:
        sessions = [s for s in sessions if s.name in ("biglog30", "long:coder")]
        for limit, thresholds in ((LIMIT, (12_000, 18_000, 24_000)), (None, SWEEP)):
            for threshold in thresholds:
                for share in (0.25, 0.5):
                    name = f"{(limit or 200_000) // 1000}k:{threshold // 1000}k/{share}"
                    policies[name] = Policy(
                        lambda t=threshold, sh=share: BatchMasking(t, int(t * sh)), limit
                    )
    with tempfile.TemporaryDirectory() as tmp:
        results = measure(sessions, Path(tmp), policies)
    report(sessions, results, list(policies))


def report(
    sessions: list[Session], results: dict[str, dict[str, Outcome]], policies: list[str]
) -> None:
    print(
        f"billed input tokens (writes x{WRITE}, reads x{READ}, plain x{PLAIN}); ratio = none / policy"
    )
    head = f"{'session':34} {'calls':>5} {'max ctx':>8} " + " ".join(f"{p:>14}" for p in policies)
    print(head + f" {'floor':>14}")
    short_ok = True
    for session in sessions:
        row = results[session.name]
        none = row["none"].bill.billed
        cells = []
        for p in policies:
            if p not in row:
                cells.append("-")
                continue
            billed = row[p].bill.billed
            cells.append(f"{billed / 1000:7.1f}k {none / billed:4.2f}x")
        least = floor(row["none"].bill)
        cells.append("-" if session.short else f"{least / 1000:7.1f}k {none / least:4.2f}x")
        print(
            f"{session.name:34} {row['none'].turns:>5} {row['none'].max_context:>8} "
            + " ".join(f"{c:>14}" for c in cells)
        )
        # Runs differ only in the timings their outputs print: a few tokens either way.
        if session.short and any(
            row[d].batches or row[d].bill.billed > none * SAME for d in DEFAULTS
        ):
            short_ok = False
    print()
    for label, pick in (
        ("short runs (sum)", [s for s in sessions if s.short]),
        ("long sessions (sum)", [s for s in sessions if s.name.startswith("long")]),
        ("biglog30", [s for s in sessions if s.name == "biglog30"]),
    ):
        if not pick:
            continue
        shown = [p for p in policies if all(p in results[s.name] for s in pick)]
        sums = {p: sum(results[s.name][p].bill.billed for s in pick) for p in shown}
        print(f"{label:34} " + " ".join(f"{p}={sums[p] / 1000:.1f}k" for p in shown))
        for d in DEFAULTS:
            print(
                f"{'':34} {d}: none/{d} {sums['none'] / sums[d]:.2f}x, "
                f"turns3/{d} {sums['turns3'] / sums[d]:.2f}x"
            )
    if any(s.short for s in sessions):
        print(
            "goal: the defaults mask nothing and bill no more than none on every short run: "
            + ("yes" if short_ok else "NO")
        )
    if "biglog30" in results:
        row = results["biglog30"]
        for d in DEFAULTS:
            ratio = row["none"].bill.billed / row[d].bill.billed
            old = row["turns3"].bill.billed / row[d].bill.billed
            print(
                f"goal: none/{d} >= 2x on biglog30: {ratio:.2f}x {'yes' if ratio >= 2 else 'NO'}"
                f" (turns3/{d}: {old:.2f}x; the floor allows "
                f"{row['none'].bill.billed / floor(row['none'].bill):.2f}x)"
            )


if __name__ == "__main__":
    main()
