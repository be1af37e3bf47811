"""Invariant kinds: what must hold after a step, checked by the verifier, never by the model.

Each kind is a small pydantic model discriminated by `kind`, so a plan on the wire maps to
exactly one checker in `coder.checks.verify`. `PLAN_INVARIANTS` is the registry of kinds a plan
may name; an unknown kind is reported with that list.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator
from pydantic.json_schema import SkipJsonSchema

from contracts.plan import integral


class _Invariant(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        populate_by_name=True,
        frozen=True,
        use_attribute_docstrings=True,
        strict=True,
    )
    source: SkipJsonSchema[str | None] = Field(default=None, exclude=True)
    """The natural-language string this invariant was compiled from, if any."""

    def describe(self) -> str:
        """One line for a person: what the verifier checks."""
        return self.source or self.model_dump_json(exclude={"source"})


def _paths_suffix(paths: list[str] | None) -> str:
    return f" in {', '.join(paths)}" if paths else ""


class TestsPass(_Invariant):
    __test__ = False  # a model, not a test class

    kind: Literal["tests_pass"] = "tests_pass"
    paths: list[str] | None = None
    """Test files, directories or test ids to run; all of the repo's tests when unset."""
    command: str | None = None
    """The test command to use instead of the repository's own."""

    def describe(self) -> str:
        using = f" (`{self.command}`)" if self.command else ""
        return f"tests pass{_paths_suffix(self.paths)}{using}"


class CommandSucceeds(_Invariant):
    kind: Literal["command_succeeds"] = "command_succeeds"
    command: str = Field(min_length=1)
    """Run in the sandbox at the worktree root; must exit 0."""

    def describe(self) -> str:
        return f"`{self.command}` exits 0"


class SignatureUnchanged(_Invariant):
    kind: Literal["signature_unchanged"] = "signature_unchanged"
    symbol: str = Field(min_length=1)
    """Function, method or class name; `Class.method` for a method."""
    file: str | None = None
    """The file that defines it; searched for among the changed files when unset."""

    def describe(self) -> str:
        where = f" in {self.file}" if self.file else ""
        return f"signature of {self.symbol}{where} unchanged"


class SignatureCompatible(_Invariant):
    """Backward compatible, not identical: every call the old signature accepted still works
    (new parameters with defaults pass, a removed or reordered one fails)."""

    kind: Literal["signature_compatible"] = "signature_compatible"
    symbol: str = Field(min_length=1)
    """Function, method or class name (a class: its constructor and public members)."""
    file: str | None = None
    """The file that defines it; searched for among the changed files when unset."""

    def describe(self) -> str:
        where = f" in {self.file}" if self.file else ""
        return f"signature of {self.symbol}{where} backward compatible"


class PublicApiUnchanged(_Invariant):
    kind: Literal["public_api_unchanged"] = "public_api_unchanged"
    file: str = Field(min_length=1)
    """No public symbol of this file is removed or changes signature."""

    def describe(self) -> str:
        return f"public API of {self.file} unchanged"


class PublicApiCompatible(_Invariant):
    """No public symbol of the file removed or made private, every public signature
    backward compatible."""

    kind: Literal["public_api_compatible"] = "public_api_compatible"
    file: str = Field(min_length=1)
    """The file whose public symbols callers rely on."""

    def describe(self) -> str:
        return f"public API of {self.file} backward compatible"


class _TextInvariant(_Invariant):
    pattern: str = Field(min_length=1, json_schema_extra={"format": "regex"})
    """A Python regular expression, searched line by line (rejected at validation if invalid)."""
    paths: list[str] | None = None
    """Files, directories or globs to search; the step's files when unset."""

    @field_validator("pattern")
    @classmethod
    def _compiles(cls, pattern: str) -> str:
        try:
            re.compile(pattern, re.MULTILINE)
        except re.error as exc:
            raise ValueError(
                f"{pattern!r} is not a valid regular expression ({exc}); "
                f"to match it literally write {re.escape(pattern)!r}"
            ) from None
        return pattern


class TextAbsent(_TextInvariant):
    kind: Literal["text_absent"] = "text_absent"

    def describe(self) -> str:
        return f"no match for /{self.pattern}/{_paths_suffix(self.paths)}"


class TextPresent(_TextInvariant):
    kind: Literal["text_present"] = "text_present"

    def describe(self) -> str:
        return f"a match for /{self.pattern}/{_paths_suffix(self.paths)}"


class MaxChangedLines(_Invariant):
    kind: Literal["max_changed_lines"] = "max_changed_lines"
    n: Annotated[int, Field(ge=0), BeforeValidator(integral)]
    """Added plus removed lines in the step's diff."""

    def describe(self) -> str:
        return f"at most {self.n} changed lines"


class TestsFailBefore(_Invariant):
    """The proof that a test would have caught the bug: each named test fails (or errors) on
    the code as it was before the step, with the step's own version of the test files laid
    over it, and passes after the step."""

    __test__ = False

    kind: Literal["tests_fail_before"] = "tests_fail_before"
    paths: list[str] = Field(min_length=1)
    """Test ids (`tests/test_x.py::test_y`), or test files: a file means the tests the step
    added or changed in it, found by the harness, of which at least one must fail before (the
    others may be guards that pass both times) and all must pass after."""

    def describe(self) -> str:
        return f"{', '.join(self.paths)} fail before the step and pass after"


class TestsRemoved(_Invariant):
    """Tests the step removes or skips on purpose: without this, a test that existed at the
    base and is now missing, skipped, deselected or xfailed fails the step."""

    __test__ = False

    kind: Literal["tests_removed"] = "tests_removed"
    paths: list[str] = Field(min_length=1)
    """Test ids, or test files (the tests of the file the step removed or skipped)."""

    def describe(self) -> str:
        return f"{', '.join(self.paths)} removed or skipped on purpose"


class FilesWithinScope(_Invariant):
    """Implicit on every step; checked from the git diff against the step's `files`."""

    kind: Literal["files_within_scope"] = "files_within_scope"

    def describe(self) -> str:
        return "only the step's files changed"


class Advisory(_Invariant):
    """A string no rule compiled, kept only under --allow-unverified and reported `unverified`."""

    kind: Literal["advisory"] = "advisory"
    text: str

    def describe(self) -> str:
        return f"(unverified) {self.text}"


Invariant = Annotated[
    TestsPass
    | CommandSucceeds
    | SignatureUnchanged
    | SignatureCompatible
    | PublicApiUnchanged
    | PublicApiCompatible
    | TextAbsent
    | TextPresent
    | MaxChangedLines
    | TestsFailBefore
    | TestsRemoved
    | FilesWithinScope
    | Advisory,
    Field(discriminator="kind"),
]

PlanInvariant = Annotated[
    TestsPass
    | CommandSucceeds
    | SignatureUnchanged
    | SignatureCompatible
    | PublicApiUnchanged
    | PublicApiCompatible
    | TextAbsent
    | TextPresent
    | MaxChangedLines
    | TestsFailBefore
    | TestsRemoved,
    Field(discriminator="kind"),
]
"""The invariant objects a plan may spell out (the JSON Schema of `invariants` items)."""

PLAN_INVARIANTS: dict[str, type[_Invariant]] = {
    "tests_pass": TestsPass,
    "command_succeeds": CommandSucceeds,
    "signature_unchanged": SignatureUnchanged,
    "signature_compatible": SignatureCompatible,
    "public_api_unchanged": PublicApiUnchanged,
    "public_api_compatible": PublicApiCompatible,
    "text_absent": TextAbsent,
    "text_present": TextPresent,
    "max_changed_lines": MaxChangedLines,
    "tests_fail_before": TestsFailBefore,
    "tests_removed": TestsRemoved,
}
"""Registry: kind -> model, for the kinds a plan may name explicitly."""

INVARIANT_KINDS: tuple[str, ...] = tuple(PLAN_INVARIANTS)
"""Kinds a plan may name explicitly (files_within_scope is implicit, advisory is internal)."""
