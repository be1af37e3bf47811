"""What a run of N attempts is expected to spend, said before it starts, and the bound
`--max-cost` puts on it.

The figure starts from the size of the first thing every attempt sends: the planning phase's
request in contract and plan mode (the rules, the tools, the task and the repository map),
react's own request in react and reflect mode (which send no planning request). Each further
call carries what came before it, so it is larger than the first by a share of the first that
the real suite's recorded sessions measure (the median over 15 sessions a mode: 0.066 in
contract mode, whose steps start fresh conversations, 0.33 in react mode, whose one
conversation grows). An attempt makes as many calls as its script has turns when its model is
a script, and otherwise about as many as those sessions took (contract 8.9, react 8.2 a run).
List prices come from `coder.models.pricing`; a model without one (a local server, a script)
is counted in tokens only.

Measured on js-offbyone-pages (`coder bench --attempts 2`, scripted): the figure was 117,558
tokens for contract against 16,030 spent, and 96,496 for react against 10,281 (a fixed 1,000
tokens of growth a call and 9 or 8 calls, where the scripts make 3 to 5 small ones).

The bound is kept, not hoped for: each attempt's token budget is cut to its share of the
dollars at its model's dearer rate (input or output), so N attempts together cannot spend
more than `--max-cost`, whatever they do.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from coder.loop.conversation import prompts
from coder.models.pricing import cost_usd
from coder.models.registry import known_calls
from coder.tools.specs import PLAN_TOOLS, REACT_TOOLS, tool_specs
from summarizers.repomap import build_repo_map
from summarizers.tokens import estimate_tokens

EXPECTED_CALLS = {"contract": 9, "react": 8, "plan": 9, "reflect": 12}
"""Model calls an attempt takes, about (the real suite's recorded sessions, rounded up)."""
GROWTH = {"contract": 0.066, "plan": 0.066, "react": 0.33, "reflect": 0.33}
"""How much larger each further call's request is than the first, as a share of the first."""
REPLY_TOKENS = {"contract": 240, "plan": 240, "react": 190, "reflect": 190}
"""Tokens of one reply, about (the same sessions' mean)."""
REACTING = ("react", "reflect")
"""Modes whose first request is react's, not the planner's."""


@dataclass(frozen=True)
class Expected:
    per_attempt: tuple[tuple[int, int], ...]
    """(input, output) tokens each attempt is expected to spend."""
    dollars: float | None
    """The whole run, at list prices; None when a model has no list price."""
    unpriced: tuple[str, ...] = ()

    @property
    def attempts(self) -> int:
        return len(self.per_attempt)

    @property
    def tokens(self) -> int:
        return sum(i + o for i, o in self.per_attempt)

    def attempt_tokens(self, attempt: int) -> int:
        """Attempt `attempt`'s (1-based) expected tokens."""
        i, o = self.per_attempt[attempt - 1]
        return i + o

    def line(self) -> str:
        each = sorted({i + o for i, o in self.per_attempt})
        per = f"{each[0]:,}" if len(each) == 1 else f"{each[0]:,} to {each[-1]:,}"
        said = (
            f"{self.attempts} attempt(s) expect to spend about {self.tokens:,} tokens ({per} each"
        )
        if self.dollars is not None:
            return f"{said}), about ${self.dollars:.2f} at list prices"
        return f"{said}); no list price for {', '.join(self.unpriced)}"


def first_request_tokens(repo: Path, task: str, test_cmd: str | None, mode: str) -> int:
    """The size of an attempt's first request, the part every call repeats: the planner's in
    contract and plan mode, react's in react and reflect mode."""
    repo_map = build_repo_map(repo, task)
    reacting = mode in REACTING
    briefing = (
        prompts.react_briefing(task, repo_map, test_cmd, "")
        if reacting
        else prompts.plan_briefing(task, repo_map, test_cmd)
    )
    specs = tool_specs(REACT_TOOLS if reacting else PLAN_TOOLS)
    tools = json.dumps([asdict(spec) for spec in specs])
    return estimate_tokens(prompts.SYSTEM_RULES + briefing + tools)


def expect(first_request: int, mode: str, models: Sequence[str]) -> Expected:
    """The run's expected spend: attempt i on models[i] (the list is one model per attempt)."""
    growth = GROWTH.get(mode, max(GROWTH.values()))
    reply = REPLY_TOKENS.get(mode, max(REPLY_TOKENS.values()))
    per_attempt = []
    for model in models:
        calls = known_calls(model) or EXPECTED_CALLS.get(mode, max(EXPECTED_CALLS.values()))
        grown = round(growth * first_request * calls * (calls - 1) / 2)
        per_attempt.append((first_request * calls + grown, reply * calls))
    prices = [cost_usd(m, i, o) for m, (i, o) in zip(models, per_attempt, strict=True)]
    unpriced = tuple(dict.fromkeys(m for m, p in zip(models, prices, strict=True) if p is None))
    dollars = None if unpriced else sum(p for p in prices if p is not None)
    return Expected(tuple(per_attempt), dollars, unpriced)


def token_cap(model: str, dollars: float) -> int | None:
    """The most tokens `model` can spend within `dollars`, at its dearer rate; None without a
    list price."""
    per_input, per_output = cost_usd(model, 1, 0), cost_usd(model, 0, 1)
    if per_input is None or per_output is None:
        return None
    dearest = max(per_input, per_output)
    return int(dollars / dearest) if dearest > 0 else None
