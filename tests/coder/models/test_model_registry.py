from __future__ import annotations

import pytest
from fake_model_servers import anthropic_message, fake_anthropic, fake_openai, openai_completion

from coder.models.base import ConfigError, Message
from coder.models.registry import (
    DEFAULT_ANTHROPIC_MODEL,
    default_model_spec,
    known_calls,
    make_model,
)


@pytest.fixture(autouse=True)
def _no_provider_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)


def _hello(model: object) -> str:
    reply = model.complete(system="s", messages=[Message.user("hi")], tools=[])  # type: ignore[attr-defined]
    return reply.text


@pytest.mark.parametrize("spec", ["gpt:4", "Claude:x", "file:run.json"])
def test_unknown_prefix_lists_the_known_ones(spec: str) -> None:
    with pytest.raises(ConfigError) as err:
        make_model(spec)
    assert "anthropic:, openai:, script:" in str(err.value)


@pytest.mark.parametrize("spec", ["claude-sonnet-4-5", "", "anthropic:", "script:  "])
def test_malformed_specs_are_config_errors(spec: str) -> None:
    with pytest.raises(ConfigError):
        make_model(spec)


def test_missing_anthropic_key_says_what_to_set() -> None:
    with pytest.raises(ConfigError) as err:
        make_model("anthropic:claude-x")
    assert str(err.value) == "set ANTHROPIC_API_KEY to use an anthropic: model"


def test_anthropic_honours_key_and_base_url_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with fake_anthropic([anthropic_message(text="hello")], require_key="env-key") as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", "env-key")
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        model = make_model("anthropic:claude-x")
        assert model.name == "anthropic:claude-x"
        assert _hello(model) == "hello"
    assert server.requests[0].body["model"] == "claude-x"


def test_base_url_argument_wins_over_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "k")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    with fake_anthropic([anthropic_message(text="hello")]) as server:
        assert _hello(make_model("anthropic:claude-x", base_url=server.base_url)) == "hello"


def test_openai_without_key_or_base_url_says_what_to_set() -> None:
    with pytest.raises(ConfigError) as err:
        make_model("openai:gpt-x")
    assert "OPENAI_API_KEY" in str(err.value) and "--base-url" in str(err.value)


def test_openai_local_server_needs_no_key(monkeypatch: pytest.MonkeyPatch) -> None:
    with fake_openai([openai_completion(content="a"), openai_completion(content="b")]) as server:
        model = make_model("openai:qwen2.5-coder:7b", base_url=server.base_url)
        assert model.name == "openai:qwen2.5-coder:7b"
        assert _hello(model) == "a"
        monkeypatch.setenv("OPENAI_BASE_URL", server.base_url)
        assert _hello(make_model("openai:llama")) == "b"
    assert server.requests[0].body["model"] == "qwen2.5-coder:7b"
    assert server.requests[0].headers["authorization"] == "Bearer not-needed"


def test_default_model_spec() -> None:
    assert default_model_spec({"ANTHROPIC_API_KEY": "k"}) == f"anthropic:{DEFAULT_ANTHROPIC_MODEL}"
    with pytest.raises(ConfigError) as err:
        default_model_spec({"OPENAI_API_KEY": "k"})
    assert "set ANTHROPIC_API_KEY or pass --model" in str(err.value)


def test_an_openai_model_without_a_base_url_says_it_targets_the_hosted_api(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from coder.models.registry import hosted_api_note
    from coder.models.scripted import ScriptedModel

    monkeypatch.setenv("OPENAI_API_KEY", "sk-hosted-test")
    hosted = make_model("openai:gpt-4o-mini")
    note = hosted_api_note(hosted, None, {})
    assert note is not None and "https://api.openai.com/v1" in note and "--base-url" in note
    assert "sk-hosted-test" not in note
    local = make_model("openai:qwen", base_url="http://127.0.0.1:8080/v1")
    assert hosted_api_note(local, "http://127.0.0.1:8080/v1", {}) is None
    assert hosted_api_note(hosted, None, {"OPENAI_BASE_URL": "http://127.0.0.1:1/v1"}) is None
    assert hosted_api_note(ScriptedModel([]), None, {}) is None


def test_a_scripts_calls_are_known_before_it_runs_and_a_live_models_are_not(tmp_path) -> None:
    script = tmp_path / "s.json"
    script.write_text(
        '{"turns": [{"tool": "read_file", "input": {"path": "a"}},'
        ' {"calls": [{"tool": "run", "input": {"command": "true"}},'
        ' {"tool": "final_answer", "input": {"summary": "done"}}]}]}'
    )
    assert known_calls(f"script:{script}") == 2
    assert known_calls(f"script:{tmp_path / 'missing.json'}") is None
    assert known_calls("openai:gpt-4o-mini") is None
