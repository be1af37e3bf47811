"""SWE-bench instances: the official task format, read line by line into checked records.

A file is JSON Lines or one JSON list (as the dataset is published both ways). A line that is
not an instance is named by its line number and left out; the others still run. FAIL_TO_PASS
and PASS_TO_PASS come JSON-encoded in the published dataset and as plain lists in files people
write by hand: both are read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from summarizers.runners.table import grader_for

_REPO = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")
_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.+-]*")


class Instance(BaseModel):
    """One task instance; keys SWE-bench carries that a run does not need (patch, version,
    created_at, environment_setup_commit, ...) are accepted and ignored."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    instance_id: str = Field(pattern=_ID.pattern)
    """Unique in the file; names the run, the scripted replies and the prediction."""
    repo: str = Field(pattern=_REPO.pattern)
    """owner/name; the local clone is DIR/owner__name."""
    base_commit: str = Field(min_length=4)
    """The commit the run starts from."""
    problem_statement: str = Field(min_length=1)
    """The issue text: the task the model is given."""
    test_patch: str
    """The tests that judge the change, applied over the final tree only to judge it."""
    FAIL_TO_PASS: list[str]
    """Tests that must pass after the change (they fail before it)."""
    PASS_TO_PASS: list[str] = []
    """Tests that passed before the change and must still pass."""
    hints_text: str = ""
    """Comments from the issue thread; given to the model only with --hints."""
    prepare: str | None = None
    """A shell command run once at base_commit before any run (e.g. `npm ci`), unconfined, with
    the network; its node_modules/ is copied into every run's tree and every judged tree."""

    @field_validator("FAIL_TO_PASS", "PASS_TO_PASS", mode="before")
    @classmethod
    def _decoded(cls, value: Any) -> Any:
        if isinstance(value, str):
            try:
                return json.loads(value)
            except json.JSONDecodeError:
                raise ValueError("not a list of test ids (nor a JSON-encoded one)") from None
        return value

    @property
    def language(self) -> str:
        """The language of the runner that grades the instance's ids itself (python: every id
        a node id, `file::test`), else javascript (runner ids, through the project's own test
        command)."""
        grader = grader_for(self.FAIL_TO_PASS + self.PASS_TO_PASS)
        return grader.language if grader else "javascript"

    @property
    def clone_name(self) -> str:
        """The local clone's directory name, as SWE-bench names repositories on disk."""
        return self.repo.replace("/", "__")

    def task(self, hints: bool) -> str:
        if hints and self.hints_text.strip():
            return f"{self.problem_statement.rstrip()}\n\nHints:\n{self.hints_text.strip()}"
        return self.problem_statement


@dataclass(frozen=True)
class BadLine:
    """A line that is not a runnable instance; `instance_id` when the line names one."""

    line: int
    message: str
    instance_id: str | None = None


@dataclass
class InstanceFile:
    instances: list[Instance] = field(default_factory=list)
    problems: list[BadLine] = field(default_factory=list)


class InstanceFileError(Exception):
    """The file cannot be read at all (missing, not UTF-8): one line, exit 2."""


def load_instances(path: Path) -> InstanceFile:
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise InstanceFileError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise InstanceFileError(f"{path}: cannot read it ({exc})") from None
    loaded = InstanceFile()
    entries = _json_list(text, loaded) if text.lstrip().startswith("[") else _json_lines(text)
    first_line: dict[str, int] = {}
    for line, value in entries:
        if isinstance(value, BadLine):
            loaded.problems.append(value)
            continue
        instance = _instance(line, value, loaded)
        if instance is None:
            continue
        seen = first_line.setdefault(instance.instance_id, line)
        if seen != line:
            loaded.problems.append(
                BadLine(
                    line, f"duplicate instance_id {instance.instance_id} (first on line {seen})"
                )
            )
            continue
        loaded.instances.append(instance)
    return loaded


def _json_lines(text: str) -> list[tuple[int, Any]]:
    entries: list[tuple[int, Any]] = []
    for number, raw in enumerate(text.splitlines(), 1):
        if not raw.strip():
            continue
        try:
            entries.append((number, json.loads(raw)))
        except json.JSONDecodeError as exc:
            entries.append((number, BadLine(number, f"not JSON: {exc.msg} (column {exc.colno})")))
    return entries


def _json_list(text: str, loaded: InstanceFile) -> list[tuple[int, Any]]:
    """The elements of a JSON list with the line each starts on, so problems can name it."""
    decoder = json.JSONDecoder()
    entries: list[tuple[int, Any]] = []
    pos = text.index("[") + 1
    while True:
        pos = _skip_space(text, pos)
        if pos < len(text) and text[pos] == "]":
            return entries
        line = text.count("\n", 0, pos) + 1
        try:
            value, pos = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            loaded.problems.append(BadLine(exc.lineno, f"not JSON: {exc.msg} (column {exc.colno})"))
            return entries
        entries.append((line, value))
        pos = _skip_space(text, pos)
        if pos < len(text) and text[pos] == ",":
            pos += 1
        elif pos >= len(text) or text[pos] != "]":
            where = text.count("\n", 0, pos) + 1
            loaded.problems.append(
                BadLine(where, "not JSON: expected ',' or ']' after an instance")
            )
            return entries


def _skip_space(text: str, pos: int) -> int:
    while pos < len(text) and text[pos] in " \t\r\n":
        pos += 1
    return pos


def _instance(line: int, value: Any, loaded: InstanceFile) -> Instance | None:
    if not isinstance(value, dict):
        loaded.problems.append(BadLine(line, f"not an instance (a JSON {type(value).__name__})"))
        return None
    try:
        return Instance.model_validate(value)
    except ValidationError as exc:
        error = exc.errors()[0]
        where = ".".join(str(part) for part in error["loc"]) or "instance"
        ident = value.get("instance_id")
        known = ident if isinstance(ident, str) and _ID.fullmatch(ident) else None
        label = f"{known}: " if known else ""
        loaded.problems.append(BadLine(line, f"{label}{where}: {error['msg']}", known))
        return None
