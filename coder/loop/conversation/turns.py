"""The turn engine: model call → typed decision → tool calls → observations, until the phase ends.

Everything a phase needs to know about budgets, parse errors, repeated failures and progress
lives here, so the modes read as plain sequences of phases.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from coder.loop.conversation.context import (
    ContextPolicy,
    Conversation,
    ResultEntry,
    Turn,
    View,
    fixed_tokens,
)
from coder.loop.conversation.decode import cut_off, decode, printable_reply
from coder.loop.conversation.windows import TokenLimits, shrink_to
from coder.loop.state.state import Limits, RunState, RunStop, command_timeout, model_timeout
from coder.loop.state.trace import TraceWriter
from coder.models.base import (
    ContextOverflow,
    Message,
    Model,
    ModelError,
    ModelReply,
    TextPart,
    ToolCallPart,
    ToolResultPart,
)
from coder.tools.specs import TOOL_ARGS, args_problem, tool_specs, usage_line
from coder.tools.toolbox import Observation, ToolBox
from contracts.decisions import Act, Ask, Call, Decision, Final, ParseError, Stop

FILE_CHANGING = frozenset({"edit_file", "write_file", "delete_file"})
"""After one of these succeeds, earlier failures may no longer repeat: the refusal resets."""

OnFinal = Callable[[str, dict[str, Any]], str | None]
"""Judges a phase-ending call: None accepts it, a string rejects it with that explanation."""


@dataclass
class Phase:
    name: str
    tools: tuple[str, ...]
    briefing: str
    on_final: OnFinal
    before_command: Callable[[], None] | None = None
    """Called before each `run` the phase executes (the plan phases checkpoint the worktree
    before their first, to reset what the commands change)."""


@dataclass(frozen=True)
class PhaseEnd:
    tool: str
    args: dict[str, Any]


class Session:
    def __init__(
        self,
        model: Model,
        toolbox: ToolBox,
        trace: TraceWriter,
        state: RunState,
        limits: Limits,
        system: str,
        policy: ContextPolicy,
        ask: Callable[[str], str] | None = None,
    ) -> None:
        self.model = model
        self.toolbox = toolbox
        self.trace = trace
        self.state = state
        self.limits = limits
        self.system = system
        self.policy = policy
        self.ask = ask
        self.redact = trace.redact

    def run_phase(self, phase: Phase) -> PhaseEnd:
        conversation = Conversation(phase.briefing)
        self.state.failed_calls.clear()
        parse_errors = 0
        while True:
            reply = self._call_model(conversation, phase)
            decision = decode(reply, phase.tools, reply_limit=self.limits.max_reply_tokens)
            self.trace.emit(
                "decision", phase=phase.name, decision=decision.kind, text=reply.text[:2000]
            )
            if isinstance(decision, ParseError):
                parse_errors += 1
                self._reject_reply(conversation, reply, decision, parse_errors)
                continue
            parse_errors = 0
            turn = Turn(_assistant_message(reply), note=_unread_calls(reply))
            conversation.add(turn)
            calls = decision.calls if isinstance(decision, Act) else decision.before
            progress = any([self._act(call, turn, phase) for call in calls])
            if self._refused_control(decision, reply, turn):
                self._idle(progress)
                self._skip_rest(turn, reply, None)
                continue
            match decision:
                case Act():
                    self._idle(progress)
                case Stop(reason=reason):
                    raise RunStop("stopped_by_model", reason or "the model stopped the run")
                case Ask(question=question, call_id=call_id):
                    answer = self._ask(question)
                    self._answer(turn, call_id, "ask_user", Observation("ok", answer))
                    self._idle(True)
                case Final(tool=tool, args=args, call_id=call_id):
                    self.trace.emit("action", tool=tool, args=_clip(args), call_id=call_id)
                    rejection = phase.on_final(tool, args)
                    if rejection is None:
                        self._answer(turn, call_id, tool, Observation("ok", "accepted"))
                        self._skip_rest(turn, reply, call_id)
                        return PhaseEnd(tool, args)
                    self._answer(turn, call_id, tool, Observation.error(rejection))
                    self._idle(progress)
            self._skip_rest(turn, reply, None)

    def _refused_control(self, decision: Decision, reply: ModelReply, turn: Turn) -> bool:
        """A phase end, question or stop whose input its tool's schema does not allow is
        answered as any other bad call is, and does nothing: the schema the model was sent is
        what is accepted."""
        if isinstance(decision, Act | ParseError):
            return False
        call = next((c for c in reply.tool_calls if c.id == decision.call_id), None)
        if call is None or (problem := args_problem(call.name, call.input)) is None:
            return False
        self.trace.emit("action", tool=call.name, args=_clip(call.input), call_id=call.id)
        self._answer(turn, call.id, call.name, Observation.error(problem))
        return True

    def _reject_reply(
        self, conversation: Conversation, reply: ModelReply, error: ParseError, in_a_row: int
    ) -> None:
        """A reply with no usable call: tell the model the exact form, within a bounded budget."""
        self._idle(progress=False)
        if in_a_row >= self.limits.max_parse_errors:
            why = cut_off(reply, self.limits.max_reply_tokens)
            last = f" (the last was {why}; see --max-reply-tokens, --context-tokens)" if why else ""
            raise RunStop(
                "model_error", f"{in_a_row} replies in a row had no usable tool call{last}"
            )
        self.trace.emit(
            "observation",
            tool=None,
            status="error",
            text=error.message,
            raw_chars=len(reply.text),
            summarized_chars=len(error.message),
        )
        # An empty reply stays empty: words put in the model's mouth are words it repeats.
        said = (TextPart(reply.text),) if reply.text.strip() else ()
        conversation.add(Turn(Message("assistant", said), note=error.message))

    def _call_model(self, conversation: Conversation, phase: Phase) -> ModelReply:
        state, limits = self.state, self.limits
        if state.turns >= limits.max_turns:
            raise RunStop("turn_budget", f"the turn budget of {limits.max_turns} is spent")
        if state.elapsed() >= limits.timeout_s:
            raise RunStop("timeout", f"the run passed its {limits.timeout_s:.0f}s timeout")
        if state.input_tokens + state.output_tokens >= limits.max_tokens:
            raise RunStop("token_budget", f"the token budget of {limits.max_tokens} is spent")
        state.turns += 1
        started = time.monotonic()
        reply, view = self._send(conversation, phase)
        state.replies += 1
        state.spent.model_s += reply.latency_s or (time.monotonic() - started)
        state.input_tokens += reply.usage.input_tokens
        state.output_tokens += reply.usage.output_tokens
        state.cache_read_tokens += reply.usage.cache_read_tokens
        state.cache_write_tokens += reply.usage.cache_write_tokens
        self.trace.emit(
            "model_call",
            phase=phase.name,
            turn=state.turns,
            context_tokens=view.tokens,
            **({"masked": view.masked} if view.masked else {}),
            **({"dropped_turns": view.dropped} if view.dropped else {}),
            tokens_in=reply.usage.input_tokens,
            tokens_out=reply.usage.output_tokens,
            cache_read=reply.usage.cache_read_tokens,
            cache_write=reply.usage.cache_write_tokens,
            latency_s=round(reply.latency_s, 3),
            stop_reason=reply.stop_reason,
        )
        return printable_reply(reply)

    def _send(self, conversation: Conversation, phase: Phase) -> tuple[ModelReply, View]:
        """One model call within the limits; a refusal that names the server's window refits
        the limits and asks again, until they fit it."""
        specs = tool_specs(phase.tools)
        fixed = fixed_tokens(self.system, specs)
        while True:
            view = self.policy.view(conversation, fixed, self.limits.context_tokens)
            size = view.tokens
            try:
                reply = self.model.complete(
                    system=self.system,
                    messages=view.messages,
                    tools=specs,
                    max_tokens=self.limits.max_reply_tokens,
                    timeout_s=model_timeout(self.limits, self.state),
                )
                return reply, view
            except ContextOverflow as exc:
                refit = self._shrink_context(exc, size)
                self.trace.emit(
                    "model_call",
                    phase=phase.name,
                    error=exc.kind,
                    message=exc.message,
                    window=exc.window,
                    retry_with=refit,
                )
                if refit is None:
                    raise self._model_stop(exc, size) from None
            except ModelError as exc:
                self.trace.emit("model_call", phase=phase.name, error=exc.kind, message=exc.message)
                raise self._model_stop(exc, size) from None

    def _shrink_context(self, refusal: ContextOverflow, size: int) -> dict[str, int] | None:
        """Fit the limits to the window a server named when it refused a request of `size`
        estimated tokens; None if they fit it already (asking again cannot help)."""
        limits = self.limits
        current = TokenLimits(limits.max_reply_tokens, limits.context_tokens, limits.token_source)
        smaller = shrink_to(
            refusal.window, current, prompt_tokens=refusal.prompt_tokens, estimated=size
        )
        if smaller is None:
            return None
        self.limits = replace(
            limits,
            max_reply_tokens=smaller.reply,
            context_tokens=smaller.context,
            token_source=smaller.source,
        )
        return {"max_reply_tokens": smaller.reply, "context_tokens": smaller.context}

    def _model_stop(self, exc: ModelError, size: int) -> RunStop:
        if exc.kind == "timeout" and self.state.elapsed() >= self.limits.timeout_s - 1.0:
            return RunStop(
                "timeout",
                f"the run passed its {self.limits.timeout_s:.0f}s timeout waiting for the model",
            )
        if isinstance(exc, ContextOverflow):
            return RunStop(
                "model_error",
                f"the request does not fit the server's {exc.window}-token context window "
                f"(about {size} tokens of context and {self.limits.max_reply_tokens} for the "
                "reply); give the server a larger context or lower --context-tokens and "
                f"--max-reply-tokens: {exc.message}",
            )
        return RunStop("model_error", f"model error ({exc.kind}): {exc.message}")

    def _act(self, call: Call, turn: Turn, phase: Phase) -> bool:
        """Run one tool call; True when it produced information not seen before."""
        self.trace.emit("action", tool=call.tool, args=_clip(call.args), call_id=call.id)
        key = f"{call.tool}:{json.dumps(call.args, sort_keys=True, default=str)}"
        if call.tool not in phase.tools:
            obs = Observation.error(
                f"{call.tool!r} is not available in the {phase.name} phase; "
                f"available: {', '.join(phase.tools)}"
            )
        elif self.state.failed_calls.get(key, 0) >= 2:
            obs = Observation.error(
                "refused: this exact call already failed twice; change the arguments or approach "
                f"(form: {usage_line(call.tool) if call.tool in TOOL_ARGS else call.tool})"
            )
        else:
            if call.tool == "run" and phase.before_command is not None:
                phase.before_command()
            self.toolbox.cmd_timeout_s = command_timeout(self.limits, self.state)
            obs = self.toolbox.execute(call.tool, call.args)
            self.state.spent.tool_commands_s += obs.duration_s
            if obs.status != "ok":
                self.state.failed_calls[key] = self.state.failed_calls.get(key, 0) + 1
            elif call.tool in FILE_CHANGING:
                self.state.failed_calls.clear()
        self._answer(turn, call.id, call.tool, obs)
        fingerprint = obs.fingerprint or (f"{key}\0{obs.text}" if obs.status == "ok" else None)
        if fingerprint is None or fingerprint in self.state.seen:
            return False
        self.state.seen.add(fingerprint)
        return True

    def _answer(self, turn: Turn, call_id: str, tool: str, obs: Observation) -> None:
        obs = replace(obs, text=self.redact(obs.text), gist=self.redact(obs.gist))
        self.trace.emit(
            "observation",
            tool=tool,
            call_id=call_id,
            status=obs.status,
            text=obs.text,
            raw_chars=obs.raw_chars,
            summarized_chars=len(obs.text),
            duration_s=round(obs.duration_s, 3),
        )
        part = ToolResultPart(call_id, obs.text or f"({obs.status}, no output)", obs.status != "ok")
        turn.results.append(ResultEntry(part, obs.gist))

    def _skip_rest(self, turn: Turn, reply: ModelReply, ended_at: str | None) -> None:
        """Every tool call gets a result, also those a phase end or stop made moot."""
        answered = {r.part.call_id for r in turn.results}
        for call in reply.tool_calls:
            if call.id not in answered:
                note = "skipped: the phase ended before this call" if ended_at else "skipped"
                turn.results.append(ResultEntry(ToolResultPart(call.id, note, True)))

    def _ask(self, question: str) -> str:
        if self.ask is None:
            raise RunStop("needs_input", f"the model asked: {question}")
        return self.ask(question)

    def _idle(self, progress: bool) -> None:
        self.state.idle_turns = 0 if progress else self.state.idle_turns + 1
        if self.state.idle_turns >= self.limits.no_progress_turns:
            raise RunStop(
                "no_progress",
                f"{self.state.idle_turns} turns in a row brought no new file change, test result or plan",
            )

    def progress(self) -> None:
        """A phase outcome elsewhere (a plan accepted, a step verified) counts as progress."""
        self.state.idle_turns = 0


def _assistant_message(reply: ModelReply) -> Message:
    parts: list[Any] = [TextPart(reply.text)] if reply.text else []
    parts += [ToolCallPart(c.id, c.name, c.input) for c in reply.tool_calls]
    return Message("assistant", tuple(parts))


def _unread_calls(reply: ModelReply) -> str:
    if not reply.parse_errors:
        return ""
    return "These tool calls in your reply could not be read and did not run:\n" + "\n".join(
        f"- {problem}" for problem in reply.parse_errors
    )


def _clip(args: dict[str, Any]) -> dict[str, Any]:
    return {
        k: (v[:2000] + "…" if isinstance(v, str) and len(v) > 2000 else v) for k, v in args.items()
    }
