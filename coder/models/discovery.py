"""What an OpenAI-compatible server says about its context window, asked before the first call.

Local servers run with a context far smaller than the model's own (llama-cpp-python starts at
2,048 tokens, Ollama at a few thousand), and a request past it is refused or, by Ollama,
silently cut. Each server family says it somewhere else: llama.cpp's `llama-server` in
`/props`, vLLM (and several hosted APIs) in the model list, Ollama in `/api/show` or
`/api/ps`. Every probe is best effort under a short timeout; no answer means defaults.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

import httpx

from coder.models.base import ContextWindow

PROBE_TIMEOUT_S = 2.0
OLLAMA_DEFAULT_CONTEXT = 4096
"""What Ollama allocates when nothing sets num_ctx (OLLAMA_CONTEXT_LENGTH, a Modelfile) on a
machine with less than 24 GiB of VRAM; it cuts longer prompts without saying so."""
_LIST_FIELDS = ("max_model_len", "context_length", "context_window", "max_context_length")
_NUM_CTX = re.compile(r"^\s*num_ctx\s+(\d+)\s*$", re.MULTILINE)


def discover_window(base_url: str, model_id: str, api_key: str = "") -> ContextWindow | None:
    """The context window the server at `base_url` (ending in /v1) reports for `model_id`."""
    base = base_url.rstrip("/")
    root = base.removesuffix("/v1")
    headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
    try:
        with httpx.Client(timeout=PROBE_TIMEOUT_S, headers=headers) as client:
            for probe in (_llama_cpp, _model_list, _ollama):
                found = probe(client, base, root, model_id)
                if found is not None:
                    return found
    except (httpx.HTTPError, OSError):
        return None
    return None


def _get(client: httpx.Client, url: str, body: Mapping[str, Any] | None = None) -> Any:
    """The JSON a probe answered, or None for any failure (wrong server, no such route)."""
    try:
        response = client.post(url, json=body) if body is not None else client.get(url)
        if response.status_code != 200:
            return None
        return response.json()
    except (httpx.HTTPError, ValueError):
        return None


def _positive(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _llama_cpp(client: httpx.Client, base: str, root: str, model_id: str) -> ContextWindow | None:
    props = _get(client, f"{root}/props")
    if not isinstance(props, Mapping):
        return None
    settings = props.get("default_generation_settings")
    n_ctx = _positive(settings.get("n_ctx")) if isinstance(settings, Mapping) else None
    n_ctx = n_ctx or _positive(props.get("n_ctx"))
    if n_ctx is None:
        return None
    # The slot's context (llama-server splits --ctx-size between parallel slots): one request's.
    return ContextWindow(n_ctx, "llama.cpp /props n_ctx")


def _model_list(client: httpx.Client, base: str, root: str, model_id: str) -> ContextWindow | None:
    listing = _get(client, f"{base}/models")
    entries = listing.get("data") if isinstance(listing, Mapping) else None
    if not isinstance(entries, list):
        return None
    models = [e for e in entries if isinstance(e, Mapping)]
    chosen = [e for e in models if e.get("id") == model_id] or (models if len(models) == 1 else [])
    for entry in chosen:
        for name in _LIST_FIELDS:
            if tokens := _positive(entry.get(name)):
                return ContextWindow(tokens, f"the server's model list ({name})")
    return None


def _ollama(client: httpx.Client, base: str, root: str, model_id: str) -> ContextWindow | None:
    shown = _get(client, f"{root}/api/show", {"model": model_id})
    if not isinstance(shown, Mapping) or not ({"model_info", "parameters"} & set(shown)):
        return None
    parameters = shown.get("parameters")
    if isinstance(parameters, str) and (match := _NUM_CTX.search(parameters)):
        return ContextWindow(int(match.group(1)), "Ollama num_ctx of the model")
    running = _get(client, f"{root}/api/ps")
    for entry in running.get("models") or [] if isinstance(running, Mapping) else []:
        if isinstance(entry, Mapping) and model_id in (entry.get("name"), entry.get("model")):
            if tokens := _positive(entry.get("context_length")):
                return ContextWindow(tokens, "Ollama /api/ps context_length")
    return ContextWindow(OLLAMA_DEFAULT_CONTEXT, "Ollama's default context (num_ctx unset)")
