"""Invariant kinds: what must hold after a step, checked by the verifier, never by the model.

Each kind is a small pydantic model discriminated by `kind`, so a plan on the wire maps to
exactly one checker in `coder.loop.verifier`.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field


class _Invariant(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True, frozen=True)
    source: str | None = Field(default=None, exclude=True)
    """The natural-language string this invariant was compiled from, if any."""


class TestsPass(_Invariant):
    kind: Literal["tests_pass"] = "tests_pass"
    paths: list[str] | None = None
    command: str | None = None


class CommandSucceeds(_Invariant):
    kind: Literal["command_succeeds"] = "command_succeeds"
    command: str = Field(min_length=1)


class SignatureUnchanged(_Invariant):
    kind: Literal["signature_unchanged"] = "signature_unchanged"
    symbol: str = Field(min_length=1)
    file: str | None = None


class PublicApiUnchanged(_Invariant):
    kind: Literal["public_api_unchanged"] = "public_api_unchanged"
    file: str = Field(min_length=1)


class TextAbsent(_Invariant):
    kind: Literal["text_absent"] = "text_absent"
    pattern: str = Field(min_length=1)
    paths: list[str] | None = None


class TextPresent(_Invariant):
    kind: Literal["text_present"] = "text_present"
    pattern: str = Field(min_length=1)
    paths: list[str] | None = None


class MaxChangedLines(_Invariant):
    kind: Literal["max_changed_lines"] = "max_changed_lines"
    n: int = Field(ge=0)


class FilesWithinScope(_Invariant):
    """Implicit on every step; checked from the git diff against the step's `files`."""

    kind: Literal["files_within_scope"] = "files_within_scope"


class Advisory(_Invariant):
    """A string no rule compiled, kept only under --allow-unverified and reported `unverified`."""

    kind: Literal["advisory"] = "advisory"
    text: str


Invariant = Annotated[
    TestsPass
    | CommandSucceeds
    | SignatureUnchanged
    | PublicApiUnchanged
    | TextAbsent
    | TextPresent
    | MaxChangedLines
    | FilesWithinScope
    | Advisory,
    Field(discriminator="kind"),
]

INVARIANT_KINDS: tuple[str, ...] = (
    "tests_pass",
    "command_succeeds",
    "signature_unchanged",
    "public_api_unchanged",
    "text_absent",
    "text_present",
    "max_changed_lines",
)
"""Kinds a plan may name explicitly (files_within_scope is implicit, advisory is internal)."""
