"""trace.jsonl events. Every line carries ts, run_id, seq and type; the rest depends on type.

The envelope is fixed here; payloads stay open (extra fields allowed) so that adding evidence
to an event never breaks a reader.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict

EventType = Literal[
    "run_started",
    "baseline",
    "model_call",
    "decision",
    "action",
    "observation",
    "plan_submitted",
    "plan_rejected",
    "step_started",
    "checkpoint",
    "verification",
    "rollback",
    "step_verified",
    "plan_revised",
    "run_finished",
]

EVENT_TYPES: tuple[str, ...] = EventType.__args__  # type: ignore[attr-defined]


class TraceEvent(BaseModel):
    model_config = ConfigDict(extra="allow")

    ts: float
    run_id: str
    seq: int
    type: EventType
