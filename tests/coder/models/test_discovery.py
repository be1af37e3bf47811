"""The context window each kind of local server reports, read through its real HTTP routes."""

from __future__ import annotations

import socket
import time

import pytest
from fake_model_servers import Reply, fake_llama_cpp, fake_openai

from coder.models.base import ContextWindow
from coder.models.discovery import OLLAMA_DEFAULT_CONTEXT, discover_window
from coder.models.openai_model import OpenAIModel

LLAMA_SERVER_PROPS = {
    "default_generation_settings": {"n_ctx": 8192, "params": {"n_predict": -1}},
    "total_slots": 1,
    "model_path": "/models/qwen.gguf",
}
VLLM_MODELS = {
    "object": "list",
    "data": [
        {"id": "other", "object": "model", "max_model_len": 2048},
        {"id": "Qwen/Qwen2.5-Coder-7B", "object": "model", "max_model_len": 32768},
    ],
}


def _window(routes: dict, model: str = "Qwen/Qwen2.5-Coder-7B") -> ContextWindow | None:
    with fake_openai(routes=routes) as server:
        return discover_window(server.base_url, model)


def test_llama_server_props() -> None:
    found = _window({"GET /props": LLAMA_SERVER_PROPS})
    assert found == ContextWindow(8192, "llama.cpp /props n_ctx")


def test_vllm_model_list_for_the_named_model() -> None:
    found = _window({"GET /v1/models": VLLM_MODELS})
    assert found == ContextWindow(32768, "the server's model list (max_model_len)")


def test_a_single_listed_model_with_a_context_length() -> None:
    listing = {"data": [{"id": "whatever", "context_length": 16384}]}
    assert _window({"GET /v1/models": listing}, "local") == ContextWindow(
        16384, "the server's model list (context_length)"
    )


def test_ollama_num_ctx_then_running_context_then_its_default() -> None:
    show = {"parameters": 'stop "<|im_end|>"\nnum_ctx 12288', "model_info": {}}
    assert _window({"POST /api/show": show}, "qwen2.5-coder") == ContextWindow(
        12288, "Ollama num_ctx of the model"
    )
    unset = {"parameters": "temperature 0.2", "model_info": {"qwen2.context_length": 32768}}
    running = {
        "models": [{"name": "qwen2.5-coder", "model": "qwen2.5-coder", "context_length": 8192}]
    }
    found = _window({"POST /api/show": unset, "GET /api/ps": running}, "qwen2.5-coder")
    assert found == ContextWindow(8192, "Ollama /api/ps context_length")
    found = _window({"POST /api/show": unset}, "qwen2.5-coder")
    assert found is not None and found.tokens == OLLAMA_DEFAULT_CONTEXT


def test_ollama_is_asked_about_the_model_by_name() -> None:
    with fake_openai(routes={"POST /api/show": {"model_info": {}}}) as server:
        discover_window(server.base_url, "llama3.2:1b")
    assert server.side_requests[-1].body == {"model": "llama3.2:1b"}


def test_llama_cpp_python_reports_nothing() -> None:
    with fake_llama_cpp([]) as server:
        assert discover_window(server.base_url, "gemma-3-270m") is None
    assert [r.path for r in server.side_requests] == ["/v1/models"]


def test_an_unreachable_or_silent_server_is_never_fatal() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert discover_window(f"http://127.0.0.1:{port}/v1", "m") is None
    slow = {"GET /props": Reply(LLAMA_SERVER_PROPS, delay_s=10.0)}
    started = time.monotonic()
    assert _window(slow) is None
    assert time.monotonic() - started < 9.0


@pytest.mark.parametrize("body", ["not json", {"default_generation_settings": {"n_ctx": "big"}}])
def test_odd_answers_are_ignored(body: object) -> None:
    assert _window({"GET /props": Reply(body)}) is None


def test_the_provider_asks_once_and_only_a_server_it_was_pointed_at() -> None:
    with fake_openai(routes={"GET /props": LLAMA_SERVER_PROPS}) as server:
        model = OpenAIModel("m", api_key="sk-local", base_url=server.base_url)
        assert (
            model.context_window()
            == model.context_window()
            == ContextWindow(8192, "llama.cpp /props n_ctx")
        )
    assert len(server.side_requests) == 1
    assert server.side_requests[0].headers["authorization"] == "Bearer sk-local"
    hosted = OpenAIModel("gpt-4o", api_key="sk-x")  # no base URL: nothing is asked
    assert hosted.context_window() is None
