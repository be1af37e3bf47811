from coder.loop.conversation.windows import (
    DEFAULT_CONTEXT_TOKENS,
    DEFAULT_REPLY_TOKENS,
    TokenLimits,
    shrink_to,
    token_limits,
)
from coder.models.base import ContextWindow

LLAMA = ContextWindow(8192, "llama.cpp /props n_ctx")


def test_without_a_window_the_defaults_fill_what_was_not_given():
    assert token_limits(None) == TokenLimits(
        DEFAULT_REPLY_TOKENS, DEFAULT_CONTEXT_TOKENS, "defaults"
    )
    assert token_limits(None, reply=512) == TokenLimits(
        512, DEFAULT_CONTEXT_TOKENS, "reply given, the rest defaults"
    )
    assert token_limits(LLAMA, reply=300, context=5000) == TokenLimits(300, 5000, "flags or config")


def test_a_window_gives_an_eighth_to_the_reply_and_most_of_the_rest_to_the_context():
    assert token_limits(LLAMA) == TokenLimits(1024, 6092, "llama.cpp /props n_ctx: 8192 tokens")
    assert token_limits(ContextWindow(2048, "s")).reply == 256  # never below 256
    assert token_limits(ContextWindow(200_000, "s")).reply == 4096  # never above 4096
    limits = token_limits(LLAMA, reply=2000)
    assert (limits.reply, limits.context) == (2000, 5263)
    assert limits.source.endswith("; reply given")


def test_a_refusal_shrinks_the_limits_once_then_they_fit():
    start = token_limits(None)
    smaller = shrink_to(8000, start)
    assert smaller is not None and (smaller.reply, smaller.context) == (2000, 5100)
    assert shrink_to(8000, smaller) is None  # already fitted: asking again cannot help
    assert shrink_to(64_000, start) is None  # never grows


def test_a_refusal_that_gives_the_prompts_size_corrects_our_undercount():
    start = token_limits(None)
    # The server counted 1.5 of its tokens for each one we estimated: the context shrinks as much.
    fitted = shrink_to(8000, start, prompt_tokens=9000, estimated=6000)
    assert fitted is not None and (fitted.reply, fitted.context) == (2000, 3400)
    # A server that counts fewer tokens than we do never makes the context grow past the window's.
    assert shrink_to(8000, start, prompt_tokens=3000, estimated=6000) == shrink_to(8000, start)
