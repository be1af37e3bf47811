"""How long a reply may be and how much context one call may hold.

Each comes from a flag, else the repository's config, else the model's context window (what a
local server reports, what Anthropic documents), else a default. A call's prompt and its reply
share the window, and our token count is an estimate (bytes / 4, without the chat template's
own tokens), so the context limit keeps a margin below what is left after the reply.
"""

from __future__ import annotations

from dataclasses import dataclass

from coder.models.base import ContextWindow

DEFAULT_REPLY_TOKENS = 4096
DEFAULT_CONTEXT_TOKENS = 24_000
MIN_REPLY_TOKENS = 256
ESTIMATE_MARGIN = 0.85
"""The share of the window (after the reply) the estimated context may fill."""


@dataclass(frozen=True)
class TokenLimits:
    reply: int
    context: int
    source: str
    """Where the numbers came from, for the trace and the terminal."""


def token_limits(
    window: ContextWindow | None, *, reply: int | None = None, context: int | None = None
) -> TokenLimits:
    """The limits for a run: given values win; the window fills in the rest."""
    given = [name for name, value in (("reply", reply), ("context", context)) if value]
    if len(given) == 2:
        return TokenLimits(reply or 0, context or 0, "flags or config")
    if window is None:
        source = f"{given[0]} given, the rest defaults" if given else "defaults"
        return TokenLimits(reply or DEFAULT_REPLY_TOKENS, context or DEFAULT_CONTEXT_TOKENS, source)
    reply = reply or default_reply(window.tokens)
    context = context or context_for(window.tokens, reply)
    source = f"{window.source}: {window.tokens} tokens" + (f"; {given[0]} given" if given else "")
    return TokenLimits(reply, context, source)


def default_reply(window: int) -> int:
    """An eighth of the window, within [256, 4096]: room to write an edit, most left for context."""
    return max(MIN_REPLY_TOKENS, min(DEFAULT_REPLY_TOKENS, window // 8))


def context_for(window: int, reply: int) -> int:
    return max(1, int((window - reply) * ESTIMATE_MARGIN))


def shrink_to(
    window: int, current: TokenLimits, *, prompt_tokens: int | None = None, estimated: int = 0
) -> TokenLimits | None:
    """Limits that fit a window a server named when it refused a request; None if the current
    ones already do (then shrinking again cannot help).

    When the refusal also says how many of its tokens the prompt took, our estimate of that
    prompt (`estimated`) tells how far the estimate runs short for this server (its tokenizer,
    its chat template's rendering of the tools), and the context limit shrinks by as much."""
    reply = min(current.reply, max(MIN_REPLY_TOKENS, window // 4))
    undercount = max(1.0, prompt_tokens / estimated) if prompt_tokens and estimated else 1.0
    context = min(current.context, max(1, int(context_for(window, reply) / undercount)))
    if (reply, context) == (current.reply, current.context):
        return None
    return TokenLimits(reply, context, f"the server's refusal: a {window}-token window")
