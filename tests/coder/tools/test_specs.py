from coder.tools.specs import EXECUTE_TOOLS, PLAN_TOOLS, REACT_TOOLS, tool_specs, usage_line


def test_phase_vocabularies_match_the_design():
    assert set(PLAN_TOOLS) == {
        "read_file",
        "list_files",
        "search",
        "run",  # issue 12: a planner that cannot reproduce a bug writes invariants blind
        "submit_plan",
        "ask_user",
        "stop",
    }
    assert set(EXECUTE_TOOLS) == {
        "read_file",
        "list_files",
        "search",
        "edit_file",
        "write_file",
        "delete_file",
        "restore_attempt",  # issue 23: a retry takes a rolled-back attempt up again
        "run",
        "finish_step",
        "stop",
    }
    contract_only = {"finish_step", "restore_attempt"}
    assert set(REACT_TOOLS) == (set(EXECUTE_TOOLS) - contract_only) | {"final_answer"}


def test_specs_are_json_schemas_with_required_fields():
    specs = {s.name: s for s in tool_specs(EXECUTE_TOOLS)}
    edit = specs["edit_file"].input_schema
    assert edit["type"] == "object" and set(edit["required"]) == {"path", "old_text", "new_text"}
    assert specs["read_file"].description


def test_usage_line_marks_optional_arguments():
    assert usage_line("read_file") == 'read_file {"path": …, "start_line?": …, "end_line?": …}'
