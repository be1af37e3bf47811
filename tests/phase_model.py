"""A model that answers by phase, behind the fake OpenAI-compatible server: for runs whose
phases overlap (independent steps at once, `--jobs J`), where a script's one sequence of turns
would be dealt out by whichever call came first.

Each request is told apart by its briefing (the phase's first user message: `Phase: PLAN`,
`Phase: REVISE`, or `Phase: EXECUTE step `ID``) and by how many replies the conversation
already holds; the reply is that phase's turn, after `delay_s` (a model that takes its time).
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

from fake_model_servers import ReceivedRequest, Reply, openai_completion, openai_tool_call

_STEP = re.compile(r"Phase: EXECUTE step `([^`]+)`")


class PhaseModel:
    def __init__(self, phases: Mapping[str, Sequence[Mapping[str, Any]]], delay_s: float = 0.0):
        """`phases`: "plan", "revise", "revise2", ... (the n-th revision), or a step id -> its
        turns, each {"tool": NAME, "input": {...}}."""
        self.phases = {k: list(v) for k, v in phases.items()}
        self.delay_s = delay_s
        self.revisions: list[int] = []

    def __call__(self, request: ReceivedRequest) -> Reply:
        messages = request.body["messages"]
        briefing = next(_text(m) for m in messages if m["role"] == "user")
        turn_index = sum(1 for m in messages if m["role"] == "assistant")
        phase = self._phase(briefing, turn_index)
        turns = self.phases[phase]
        turn = turns[min(turn_index, len(turns) - 1)]
        call = openai_tool_call(turn["tool"], json.dumps(turn["input"]))
        return Reply(openai_completion(tool_calls=[call]), delay_s=self.delay_s)

    def _phase(self, briefing: str, turn_index: int) -> str:
        if "Phase: PLAN" in briefing:
            return "plan"
        if "Phase: REVISE" in briefing:
            if turn_index == 0:
                self.revisions.append(1)
            n = len(self.revisions)
            return "revise" if n == 1 else f"revise{n}"
        found = _STEP.search(briefing)
        if found is None:
            raise AssertionError(f"no phase in the briefing: {briefing[:200]!r}")
        return found.group(1)


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    if isinstance(content, list):
        return "".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")
