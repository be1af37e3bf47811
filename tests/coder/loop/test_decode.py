from coder.loop.conversation.decode import cut_off, decode
from coder.models.base import ModelReply, ToolCall, Usage
from coder.tools.specs import EXECUTE_TOOLS, PLAN_TOOLS
from contracts.decisions import Act, Ask, Final, ParseError, Stop


def reply(*calls: tuple[str, dict], text: str = "", errors: list[str] | None = None) -> ModelReply:
    tool_calls = [ToolCall(f"c{i}", name, args) for i, (name, args) in enumerate(calls)]
    return ModelReply(text, tool_calls, "tool_use", Usage(), 0.0, errors or [])


def test_no_call_is_a_parse_error_listing_the_phase_tools():
    decision = decode(reply(text="thinking"), PLAN_TOOLS)
    assert isinstance(decision, ParseError)
    assert "submit_plan" in decision.message and "edit_file" not in decision.message


def test_unrepairable_call_is_shown_to_the_model():
    decision = decode(
        reply(errors=["<tool_call>{bad json</tool_call>: unterminated"]), EXECUTE_TOOLS
    )
    assert isinstance(decision, ParseError) and "unterminated" in decision.message


def test_plain_calls_are_act():
    decision = decode(
        reply(("read_file", {"path": "a"}), ("search", {"pattern": "x"})), EXECUTE_TOOLS
    )
    assert isinstance(decision, Act) and [c.tool for c in decision.calls] == ["read_file", "search"]


def test_first_control_call_decides_and_earlier_calls_run_first():
    decision = decode(
        reply(
            ("edit_file", {"path": "a", "old_text": "x", "new_text": "y"}),
            ("finish_step", {"summary": "s"}),
            ("run", {"command": "ls"}),
        ),
        EXECUTE_TOOLS,
    )
    assert isinstance(decision, Final) and decision.tool == "finish_step"
    assert [c.tool for c in decision.before] == ["edit_file"]


def test_ask_and_stop():
    assert isinstance(decode(reply(("ask_user", {"question": "q?"})), PLAN_TOOLS), Ask)
    stop = decode(reply(("stop", {"reason": "cannot"})), EXECUTE_TOOLS)
    assert isinstance(stop, Stop) and stop.reason == "cannot"


def test_a_tool_of_another_phase_is_kept_as_a_call_not_a_control():
    decision = decode(reply(("finish_step", {"summary": "s"})), PLAN_TOOLS)
    assert isinstance(decision, Act) and decision.calls[0].tool == "finish_step"


def _cut(text: str, output_tokens: int) -> ModelReply:
    return ModelReply(text, [], "max_tokens", Usage(output_tokens=output_tokens), 0.0)


def test_a_reply_cut_at_the_reply_limit_says_so_not_no_tool_call():
    decision = decode(_cut("I will now", 512), EXECUTE_TOOLS, reply_limit=512)
    assert isinstance(decision, ParseError)
    assert decision.message.startswith(
        "Your reply was cut off at the reply limit of 512 tokens, before it made a complete tool call."
    )
    assert "contained no tool call" not in decision.message


def test_a_reply_cut_short_of_its_limit_was_cut_by_a_full_context():
    assert (
        cut_off(_cut("I will", 130), 1024)
        == "cut off after 130 tokens: the server's context window was full"
    )
    assert cut_off(_cut("x", 0), None) == "cut off at its length limit"
    assert cut_off(reply(text="done"), 1024) is None


def test_an_unfinished_call_in_a_cut_reply_is_still_shown():
    cut = ModelReply("", [], "max_tokens", Usage(output_tokens=64), 0.0, ["not valid JSON"])
    decision = decode(cut, EXECUTE_TOOLS, reply_limit=64)
    assert isinstance(decision, ParseError)
    assert "reply limit of 64 tokens" in decision.message and "not valid JSON" in decision.message


def test_an_empty_reply_is_called_empty():
    decision = decode(reply(text="  "), EXECUTE_TOOLS)
    assert isinstance(decision, ParseError)
    assert decision.message.startswith("Your reply was empty: no text and no tool call.")
