"""`make_model`: a model spec (`PREFIX:NAME`) to a ready `Model`, or one line saying what is wrong.

Providers are imported only when asked for, so a scripted run never pays for loading an SDK.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path

from coder.models.base import ConfigError, Model

__all__ = [
    "DEFAULT_ANTHROPIC_MODEL",
    "PROVIDERS",
    "ConfigError",
    "default_model_spec",
    "hosted_api_note",
    "known_calls",
    "make_model",
]

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-4-5"

ProviderFactory = Callable[[str, str | None], Model]
"""(the part of the spec after the prefix, the base URL if one was given) -> a model."""


def _anthropic(model_id: str, base_url: str | None) -> Model:
    key = os.environ.get("ANTHROPIC_API_KEY", "").strip()
    if not key:
        raise ConfigError("set ANTHROPIC_API_KEY to use an anthropic: model")
    from coder.models.anthropic_model import AnthropicModel

    return AnthropicModel(
        model_id, api_key=key, base_url=base_url or os.environ.get("ANTHROPIC_BASE_URL") or None
    )


def _openai(model_id: str, base_url: str | None) -> Model:
    from coder.models.openai_model import NO_KEY, OpenAIModel

    url = base_url or os.environ.get("OPENAI_BASE_URL") or None
    key = os.environ.get("OPENAI_API_KEY", "").strip()
    if not key and url is None:
        raise ConfigError(
            "set OPENAI_API_KEY, or pass --base-url (or set OPENAI_BASE_URL) for a local server"
        )
    return OpenAIModel(model_id, api_key=key or NO_KEY, base_url=url)


def _script(path: str, base_url: str | None) -> Model:
    from coder.models.scripted import ScriptedModel

    return ScriptedModel.from_file(Path(path))


PROVIDERS: dict[str, ProviderFactory] = {
    "anthropic": _anthropic,
    "openai": _openai,
    "script": _script,
}


def known_calls(spec: str) -> int | None:
    """How many calls the model `spec` names will make, when that is known before it runs: a
    script's turns. None for any other model, and for a script that cannot be read (making the
    model says why)."""
    prefix, _, rest = spec.partition(":")
    if prefix.strip().lower() != "script" or not rest.strip():
        return None
    from coder.models.scripted import load_turns

    try:
        return len(load_turns(Path(rest)))
    except (ConfigError, OSError):
        return None


def make_model(spec: str, *, base_url: str | None = None) -> Model:
    """The model `spec` names; `ConfigError` (one line, no secret) when it cannot be made."""
    known = ", ".join(f"{prefix}:" for prefix in PROVIDERS)
    prefix, sep, rest = spec.partition(":")
    if not sep:
        raise ConfigError(f"model {spec!r} needs a prefix: one of {known} (e.g. script:run.json)")
    factory = PROVIDERS.get(prefix.strip().lower())
    if factory is None:
        raise ConfigError(f"unknown model prefix {prefix!r}; known: {known}")
    if not rest.strip():
        raise ConfigError(f"model {spec!r} names nothing after {prefix}:")
    return factory(rest.strip(), base_url)


def default_model_spec(env: Mapping[str, str]) -> str:
    """The model to use when none was asked for: Anthropic when its key is set."""
    if env.get("ANTHROPIC_API_KEY", "").strip():
        return f"anthropic:{DEFAULT_ANTHROPIC_MODEL}"
    raise ConfigError(
        "no model: set ANTHROPIC_API_KEY or pass --model "
        "(anthropic:<id>, openai:<id> with --base-url, or script:<file>)"
    )


def hosted_api_note(model: Model, base_url: str | None, env: Mapping[str, str]) -> str | None:
    """What to tell the person when an `openai:` model goes to the hosted API: a key alone sends
    it there, though the person may have meant a local server."""
    from coder.models.openai_model import OpenAIModel

    if not isinstance(model, OpenAIModel) or base_url or env.get("OPENAI_BASE_URL"):
        return None
    return (
        f"{model.name} targets the hosted API at {model.base_url} (OPENAI_API_KEY is set and "
        "no --base-url or OPENAI_BASE_URL names a local server)"
    )
