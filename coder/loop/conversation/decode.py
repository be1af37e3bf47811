"""Decode a model reply into one typed decision. Pure: no I/O, no state."""

from __future__ import annotations

from dataclasses import replace

from coder.display import map_strings
from coder.models.base import ModelReply, ToolCall
from coder.tools.specs import PHASE_ENDING, usage_line
from coder.tools.textfile import printable
from contracts.decisions import Act, Ask, Call, Decision, Final, ParseError, Stop


def decode(
    reply: ModelReply, allowed: tuple[str, ...], *, reply_limit: int | None = None
) -> Decision:
    """The first control call (phase end, ask, stop) decides; calls before it run first.

    Tools outside `allowed` stay in the decision as plain calls; the session answers them with
    an observation naming the tools this phase offers, which teaches more than silence.
    `reply_limit` is the max_tokens the call asked for, to tell a cut-off reply's cause.
    """
    if not reply.tool_calls:
        return ParseError(_no_call_message(reply, allowed, reply_limit))
    before: list[Call] = []
    for tc in reply.tool_calls:
        call = Call(tc.id, tc.name, tc.input)
        if tc.name not in allowed:
            before.append(call)
        elif tc.name in PHASE_ENDING:
            return Final(tc.name, tc.input, tc.id, before)
        elif tc.name == "ask_user":
            return Ask(str(tc.input.get("question", "")), tc.id, before)
        elif tc.name == "stop":
            return Stop(str(tc.input.get("reason", "")), tc.id, before)
        else:
            before.append(call)
    return Act(before)


def cut_off(reply: ModelReply, reply_limit: int | None) -> str | None:
    """Why a reply ended early, with its length; None for a reply that ended by itself.

    A reply shorter than the limit it was given stopped because the server's context window
    was full (llama.cpp shortens max_tokens to what is left of it)."""
    if reply.stop_reason != "max_tokens":
        return None
    length = reply.usage.output_tokens
    if reply_limit and length and length < reply_limit * 0.9:
        return f"cut off after {length} tokens: the server's context window was full"
    limit = reply_limit or length
    return (
        f"cut off at the reply limit of {limit} tokens" if limit else "cut off at its length limit"
    )


def _no_call_message(reply: ModelReply, allowed: tuple[str, ...], reply_limit: int | None) -> str:
    problems = "".join(f"\n- {p}" for p in reply.parse_errors)
    forms = "\n".join(f"  {usage_line(name)}" for name in allowed)
    if why := cut_off(reply, reply_limit):
        lead = (
            f"Your reply was {why}, before it made a complete tool call. Call the tool first "
            "and keep any text short."
        )
        if reply.parse_errors:
            lead += " The unfinished call could not be read:" + problems
    elif reply.parse_errors:
        lead = "Your reply contained a tool call that could not be read:" + problems
    elif not reply.text.strip():
        lead = "Your reply was empty: no text and no tool call."
    else:
        lead = "Your reply contained no tool call."
    return f"{lead}\nEvery reply must call one of these tools:\n{forms}"


def printable_reply(reply: ModelReply) -> ModelReply:
    """The reply with every string valid UTF-8: a model's JSON may carry a lone surrogate
    (`"\\udcff"`), which no file, trace or API request could hold."""
    calls = [ToolCall(c.id, c.name, map_strings(c.input, printable)) for c in reply.tool_calls]
    return replace(reply, text=printable(reply.text), tool_calls=calls)
