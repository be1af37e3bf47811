from coder.loop.context import Conversation, ResultEntry, Turn, fit, mask_line, measure
from coder.models.base import Message, ToolCallPart, ToolResultPart


def conversation(turns: int, output_chars: int) -> Conversation:
    conv = Conversation("briefing " * 50)
    for i in range(turns):
        call = ToolCallPart(f"c{i}", "run", {"command": f"pytest {i}"})
        text = f"output {i} " + "x" * output_chars
        conv.add(
            Turn(
                Message("assistant", (call,)),
                [
                    ResultEntry(
                        ToolResultPart(f"c{i}", text), mask_line("run", call.input, "ok", text)
                    )
                ],
            )
        )
    return conv


def test_stale_outputs_are_masked_and_recent_ones_kept_whole():
    conv = conversation(6, 4000)
    messages = conv.render(keep_recent=2)
    results = [
        m.parts[0] for m in messages if m.role == "user" and isinstance(m.parts[0], ToolResultPart)
    ]
    assert len(results) == 6
    assert all(r.content.startswith("[stale run pytest") for r in results[:4])
    assert all(len(r.content) > 4000 for r in results[4:])


def test_fit_never_exceeds_the_limit_and_prefers_whole_recent_turns():
    conv = conversation(30, 8000)
    messages, size = fit(conv, "system", [], limit=6000, keep_recent=3)
    assert size <= 6000 and size == measure("system", messages, [])
    unmasked = [
        m
        for m in messages
        if m.role == "user"
        and isinstance(m.parts[0], ToolResultPart)
        and not m.parts[0].content.startswith("[stale")
    ]
    assert 1 <= len(unmasked) <= 3


def test_fit_drops_oldest_turns_when_masking_is_not_enough():
    conv = conversation(400, 10)
    messages, size = fit(conv, "system", [], limit=3000, keep_recent=3)
    assert size <= 3000
    assert "earlier turns of this phase were dropped" in messages[0].parts[0].text
    assert messages[-1].role == "user"
