"""The context policy as a pure function of a conversation: what is sent, and when it changes."""

from __future__ import annotations

from coder.loop.conversation.context import (
    BatchMasking,
    Conversation,
    ResultEntry,
    Turn,
    View,
    measure,
)
from coder.models.base import Message, ToolCallPart, ToolResultPart

FIXED = 100


def add_run(conv: Conversation, i: int, chars: int, placeholder: str | None = None) -> None:
    call = ToolCallPart(f"c{i}", "run", {"command": f"pytest {i}"})
    text = f"output {i} " + "x" * chars
    gist = placeholder if placeholder is not None else f"[output masked: pytest {i} exit code 1]"
    conv.add(
        Turn(Message("assistant", (call,)), [ResultEntry(ToolResultPart(f"c{i}", text), gist)])
    )


def add_edit(conv: Conversation, i: int) -> None:
    call = ToolCallPart(f"e{i}", "edit_file", {"path": "a.py", "old_text": "x", "new_text": "y"})
    answer = "edited a.py\n" + "  12| y = 1\n" * 40  # an edit answer with its region: long
    conv.add(Turn(Message("assistant", (call,)), [ResultEntry(ToolResultPart(f"e{i}", answer))]))


def results(messages: list[Message]) -> list[ToolResultPart]:
    return [
        p for m in messages if m.role == "user" for p in m.parts if isinstance(p, ToolResultPart)
    ]


class Rules:
    """A BatchMasking policy and the call limit its views are asked to fit."""

    def __init__(self, limit: int, policy: BatchMasking) -> None:
        self.limit, self.policy = limit, policy

    def view(self, conv: Conversation, fixed: int) -> View:
        return self.policy.view(conv, fixed, self.limit)


def policy(
    limit: int = 20_000, threshold: int = 8_000, target: int = 4_000, keep_turns: int = 3
) -> Rules:
    return Rules(limit, BatchMasking(threshold, target, keep_turns))


def test_nothing_is_masked_under_the_threshold_and_each_view_extends_the_last():
    conv, rules = Conversation("briefing"), policy()
    previous: list[Message] = []
    for i in range(10):
        add_run(conv, i, 2000)  # ~500 tokens a turn: 10 turns stay under 8k
        view = rules.view(conv, FIXED)
        assert view.masked == [] and view.dropped == 0
        assert view.messages[: len(previous)] == previous
        assert view.tokens == measure("", view.messages, []) + FIXED
        previous = view.messages
    assert all(not r.content.startswith("[output masked") for r in results(previous))


def test_past_the_threshold_the_oldest_outputs_are_masked_in_one_batch_down_to_the_target():
    conv, rules = Conversation("briefing"), policy()
    views = []
    for i in range(40):
        add_run(conv, i, 2000)
        views.append(rules.view(conv, FIXED))
    batches = [(n, v) for n, v in enumerate(views) if v.masked]
    assert len(batches) >= 2
    first_at, first = batches[0]
    assert all(v.tokens <= 8_000 for v in views[:first_at]), "nothing masked before"
    assert len(first.masked) >= 5, "one batch, not one output a turn"
    assert first.tokens <= 4_000
    assert first.masked == [f"c{i}" for i in range(len(first.masked))], "oldest first"
    # Between batches, each call's messages extend the previous call's byte for byte.
    for (a, _), (b, _) in zip(batches, batches[1:], strict=False):
        assert b - a >= 5
        for n in range(a + 1, b):
            assert views[n].messages[: len(views[n - 1].messages)] == views[n - 1].messages
    assert all(v.tokens <= 8_000 + 600 for v in views)


def test_a_batch_spares_the_newest_turns():
    conv, rules = Conversation("briefing"), policy(keep_turns=3)
    for i in range(30):
        add_run(conv, i, 2000)
        view = rules.view(conv, FIXED)
    shown = results(view.messages)
    assert all(not r.content.startswith("[output masked") for r in shown[-3:])


def test_placeholders_are_never_longer_than_the_output_and_short_outputs_stay():
    conv, rules = Conversation("briefing"), policy(threshold=1_000, target=200)
    add_run(conv, 0, 10, placeholder="[output masked: this placeholder is longer than the output]")
    for i in range(1, 20):
        add_run(conv, i, 2000)
    view = rules.view(conv, FIXED)
    shown = {r.call_id: r.content for r in results(view.messages)}
    assert shown["c0"].startswith("output 0"), "a placeholder longer than its output is not used"
    assert shown["c1"].startswith("[output masked")
    for entry in (r for t in conv.turns for r in t.results):
        assert len(entry.shown.content) <= len(entry.part.content)


def test_edit_answers_are_never_masked_even_to_fit_the_limit():
    conv, rules = Conversation("briefing"), policy(limit=3_000, threshold=1_000, target=500)
    for i in range(12):
        add_edit(conv, i)
        add_run(conv, i, 2000)
    view = rules.view(conv, FIXED)
    edits = [r for r in results(view.messages) if r.call_id.startswith("e")]
    assert edits and all(r.content.startswith("edited a.py") for r in edits)
    assert all("call again" not in r.content for r in results(view.messages))


def test_a_batch_that_would_free_little_waits_until_it_is_worth_a_cache_rewrite():
    conv, rules = Conversation("briefing"), policy(limit=50_000, threshold=8_000, target=4_000)
    for i in range(60):
        add_edit(conv, i)  # never maskable: ~170 tokens a turn
    add_run(conv, 60, 1000)  # one small maskable output, about 250 tokens
    for i in range(61, 64):
        add_edit(conv, i)
    view = rules.view(conv, FIXED)
    assert view.tokens > 8_000 and view.masked == []


def test_the_hard_limit_masks_the_newest_outputs_then_drops_the_oldest_turns():
    conv, rules = Conversation("briefing " * 50), policy(limit=3_000, threshold=2_000, target=1_000)
    for i in range(400):
        add_run(conv, i, 40, placeholder="[m]")
    view = rules.view(conv, FIXED)
    assert view.tokens <= 3_000 and view.tokens == measure("", view.messages, []) + FIXED
    assert view.dropped > 0
    assert "earlier turns of this phase were dropped" in view.messages[0].parts[0].text
    assert view.messages[1].role == "assistant" and view.messages[-1].role == "user"
    again = rules.view(conv, FIXED)
    assert again.dropped == 0 and again.messages == view.messages, "dropping is not redone"


def test_the_default_threshold_comes_from_the_call_limit():
    small = BatchMasking.for_limit(8_000)
    assert (small.threshold, small.target) == (8_000, 2_000)
    large = BatchMasking.for_limit(166_000)
    assert (large.threshold, large.target) == (32_000, 8_000)
    assert BatchMasking.for_limit(24_000, threshold=6_000).threshold == 6_000
    assert BatchMasking.for_limit(24_000, threshold=90_000).threshold == 24_000


def test_a_limit_that_shrinks_under_the_policy_is_still_fitted():
    """A server that names a smaller window shrinks the call limit in the middle of a phase."""
    conv, wide = Conversation("briefing"), policy(limit=100_000, threshold=32_000, target=8_000)
    for i in range(20):
        add_run(conv, i, 2000)
        assert wide.view(conv, FIXED).masked == []
    narrow = Rules(6_000, wide.policy)
    view = narrow.view(conv, FIXED)
    assert view.tokens <= 6_000 and view.dropped == 0
    assert len(view.masked) >= 10 and view.masked[0] == "c0"
