"""What a run of N attempts is expected to spend, said before it starts, and the bound
`--max-cost` puts on it.

The figure starts from the size of the first thing every attempt sends: the planning phase's
request (the rules, the tools, the task and the repository map). An attempt makes about as
many calls as the real suite's recorded sessions took (contract mode 8.7, react 8.2 a run), and
each call carries what came before it, so an attempt costs about that many requests of that
size, each a little larger than the last. List prices come from `coder.models.pricing`; a
model without one (a local server, a script) is counted in tokens only.

The bound is kept, not hoped for: each attempt's token budget is cut to its share of the
dollars at its model's dearer rate (input or output), so N attempts together cannot spend
more than `--max-cost`, whatever they do.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

from coder.loop import prompts
from coder.models.pricing import cost_usd
from coder.tools.specs import PLAN_TOOLS, tool_specs
from summarizers.repomap import build_repo_map
from summarizers.tokens import estimate_tokens

EXPECTED_CALLS = {"contract": 9, "react": 8, "plan": 8, "reflect": 12}
"""Model calls an attempt takes, about (the real suite's recorded sessions, rounded up)."""
GROWTH_PER_CALL = 1000
"""Tokens each further call adds to the context, about (a tool call and its output)."""
REPLY_TOKENS = 300
"""Tokens of one reply, about."""


@dataclass(frozen=True)
class Expected:
    attempts: int
    input_tokens: int
    """Per attempt."""
    output_tokens: int
    """Per attempt."""
    dollars: float | None
    """The whole run, at list prices; None when a model has no list price."""
    unpriced: tuple[str, ...] = ()

    @property
    def tokens(self) -> int:
        return self.attempts * (self.input_tokens + self.output_tokens)

    def line(self) -> str:
        per = self.input_tokens + self.output_tokens
        said = (
            f"{self.attempts} attempt(s) expect to spend about {self.tokens:,} tokens ({per:,} each"
        )
        if self.dollars is not None:
            return f"{said}), about ${self.dollars:.2f} at list prices"
        return f"{said}); no list price for {', '.join(self.unpriced)}"


def planning_tokens(repo: Path, task: str, test_cmd: str | None) -> int:
    """The size of the planning phase's first request, the part every call repeats."""
    repo_map = build_repo_map(repo, task)
    briefing = prompts.plan_briefing(task, repo_map, test_cmd)
    tools = json.dumps([asdict(spec) for spec in tool_specs(PLAN_TOOLS)])
    return estimate_tokens(prompts.SYSTEM_RULES + briefing + tools)


def expect(first_request: int, mode: str, models: Sequence[str]) -> Expected:
    """The run's expected spend: attempt i on models[i] (the list is one model per attempt)."""
    calls = EXPECTED_CALLS.get(mode, max(EXPECTED_CALLS.values()))
    input_tokens = sum(first_request + GROWTH_PER_CALL * n for n in range(calls))
    output_tokens = calls * REPLY_TOKENS
    prices = [cost_usd(model, input_tokens, output_tokens) for model in models]
    unpriced = tuple(dict.fromkeys(m for m, p in zip(models, prices, strict=True) if p is None))
    dollars = None if unpriced else sum(p for p in prices if p is not None)
    return Expected(len(models), input_tokens, output_tokens, dollars, unpriced)


def token_cap(model: str, dollars: float) -> int | None:
    """The most tokens `model` can spend within `dollars`, at its dearer rate; None without a
    list price."""
    per_input, per_output = cost_usd(model, 1, 0), cost_usd(model, 0, 1)
    if per_input is None or per_output is None:
        return None
    dearest = max(per_input, per_output)
    return int(dollars / dearest) if dearest > 0 else None
