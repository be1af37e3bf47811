"""ToolBox: turns one tool call into one typed observation. It never raises.

Every failure (bad arguments, a path outside the step, no unique match, a timeout) becomes an
observation that says what would have worked, because a model can only recover from what it
is told.
"""

from __future__ import annotations

import hashlib
import json
import shlex
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import regex
from pydantic import ValidationError

from coder.tools.command_view import GIT_READ_ONLY, GIT_WRITES, command_gist, render_command
from coder.tools.editing import apply_edit
from coder.tools.regions import changed_span, numbered, region, restored_view
from coder.tools.specs import TOOL_ARGS, bad_arguments
from coder.tools.textfile import NEW_FILE, NotText, decode_file, printable, with_newlines
from sandbox.attempts import Attempt, restore_files
from sandbox.changes import worktree_files
from sandbox.confine import CommandResult, Sandbox
from sandbox.globs import GlobError, expand_braces, glob_match
from sandbox.nofollow import read_beneath
from sandbox.pipestatus import with_pipeline_status
from sandbox.policy import PathPolicy

ObservationStatus = Literal["ok", "error", "denied"]

READ_LINES_DEFAULT = 400
READ_LINE_CHARS = 2000  # one line of read_file's answer at most (a minified file is one line)
READ_TOTAL_CHARS = 40_000  # all of it (about 10k tokens): the model and the trace see no more
READ_MAX_BYTES = 64 << 20  # a file past this is not loaded into the harness at all
LIST_LIMIT = 400
SEARCH_LIMIT = 100
SEARCH_SECONDS = 10.0
SEARCH_LINE_CHARS = 200
RUN_BUDGET_TOKENS = 1500
_CHANGE_WORDS = {"A": "created", "M": "modified", "D": "deleted"}


@dataclass(frozen=True)
class Observation:
    status: ObservationStatus
    text: str
    raw_chars: int = 0
    """Characters of the tool's whole result before it was cut or compacted (for a read, the
    file's text; for a command, its output); the trace's summarized_chars is len(text)."""
    fingerprint: str | None = None
    """Identifies the new information (a file's new content, a command's output); the loop
    counts a turn as progress only when it sees a fingerprint it has not seen before."""
    duration_s: float = 0.0
    gist: str = ""
    """What the output established, in one line: what the model sees in its place once the
    context masks it. Empty for outputs that are never masked (edits, errors, short answers)."""

    @staticmethod
    def ok(text: str, fingerprint: str | None = None) -> Observation:
        return Observation("ok", text, len(text), fingerprint)

    @staticmethod
    def error(text: str) -> Observation:
        return Observation("error", text, len(text))

    @staticmethod
    def denied(text: str) -> Observation:
        return Observation("denied", text, len(text))


class ToolBox:
    """The execute-phase tools over one worktree, with a path policy the loop swaps per step."""

    def __init__(
        self, root: Path, sandbox: Sandbox, policy: PathPolicy, cmd_timeout_s: float
    ) -> None:
        self.root = root
        self.sandbox = sandbox
        self.policy = policy
        self.cmd_timeout_s = cmd_timeout_s
        self.attempt: Attempt | None = None
        """The rolled-back attempt `restore_attempt` brings back (set by the loop per step)."""
        self.known_red: Callable[[CommandResult], str | None] | None = None
        """One line when every failure of a `run` was already there before any change (set
        by the loop from the baseline: coder.loop.conversation.known_red); the line stands for their
        tracebacks."""

    def execute(self, tool: str, args: dict[str, Any]) -> Observation:
        handler = getattr(self, f"_{tool}", None)
        if tool not in TOOL_ARGS or handler is None:
            return Observation.error(f"unknown tool {tool!r}")
        try:
            parsed = TOOL_ARGS[tool].model_validate(args)
        except ValidationError as exc:
            return Observation.error(bad_arguments(tool, exc))
        try:
            obs = handler(parsed)
        except OSError as exc:
            obs = Observation.error(f"{tool} failed: {exc.strerror or exc}")
        except ValueError as exc:
            obs = Observation.error(f"{tool} failed: {exc}; use plain UTF-8 text without NUL bytes")
        return replace(obs, text=printable(obs.text))

    def _read_file(self, a: Any) -> Observation:
        decision = self.policy.check(a.path, write=False)
        if not decision.allowed:
            return Observation.denied(decision.reason)
        path = self.root / decision.path
        if not path.is_file():
            return Observation.error(f"{a.path}: no such file. {self._similar(a.path)}")
        size = path.stat().st_size
        if size > READ_MAX_BYTES:
            return Observation.error(
                f"{a.path} is {size} bytes, more than read_file loads ({READ_MAX_BYTES}); "
                f"read parts of it with run: `sed -n '1,50p' {shlex.quote(a.path)} | cut -c1-{READ_LINE_CHARS}`"
            )
        file = decode_file(path.read_bytes())
        if isinstance(file, NotText):
            return Observation.error(f"{a.path} {file.reason}; read_file shows text files only")
        view = file.view
        lines = view.split("\n")
        if lines[-1] == "":
            lines.pop()
        if not lines:
            return Observation("ok", "(empty file)", 0)
        start = (a.start_line or 1) - 1
        if start >= len(lines) or (a.end_line is not None and a.end_line < start + 1):
            return Observation.error(
                f"{a.path} has {len(lines)} lines; ask for a range within 1-{len(lines)}"
            )
        end = min(len(lines), a.end_line or start + READ_LINES_DEFAULT)
        shown, end = _capped_lines(lines, start, end, a.path)
        text = "\n".join(numbered(shown, start + 1))
        if file.note():
            text = f"{file.note()}\n{text}"
        if end < len(lines):
            cut = " (cut at the answer's size bound)" if a.end_line and end < a.end_line else ""
            text += f"\n… {len(lines) - end} more lines{cut}; read_file with start_line={end + 1}"
        gist = masked(f"{a.path} lines {start + 1}-{end} of {len(lines)}; read it again if needed")
        return Observation("ok", text, len(view), gist=gist)

    def _list_files(self, a: Any) -> Observation:
        if a.glob and (problem := _glob_problem(a.glob)):
            return Observation.error(problem)
        files = worktree_files(self.root)
        if a.glob:
            files = [f for f in files if glob_match(f, a.glob)]
        text = "\n".join(map(shown_path, files[:LIST_LIMIT])) or f"no files match {a.glob!r}"
        if len(files) > LIST_LIMIT:
            text += f"\n… {len(files) - LIST_LIMIT} more; narrow the glob"
        gist = masked(f"list_files {a.glob or '(all)'}: {_count(len(files), 'file', 'files')}")
        return Observation("ok", text, len(text), gist=gist)

    def _search(self, a: Any) -> Observation:
        """A model-written pattern over files the policy lets it read, under a deadline."""
        try:
            pattern = regex.compile(a.pattern)
        except regex.error as exc:
            return Observation.error(
                f"invalid regular expression: {exc}; escape special characters"
            )
        if a.glob and (problem := _glob_problem(a.glob)):
            return Observation.error(problem)
        hits: list[str] = []
        total = skipped = raw = 0
        files: set[str] = set()
        deadline = time.monotonic() + SEARCH_SECONDS
        for rel in worktree_files(self.root):
            if a.glob and not glob_match(rel, a.glob):
                continue
            text = self._readable_text(rel)
            if text is None:
                skipped += 1
                continue
            for n, line in enumerate(text.split("\n"), 1):
                try:
                    found = pattern.search(line, timeout=max(0.0, deadline - time.monotonic()))
                except TimeoutError:
                    return Observation.error(
                        f"search took over {SEARCH_SECONDS:.0f}s; use a simpler pattern or a glob"
                    )
                if not found:
                    continue
                total += 1
                files.add(rel)
                raw += len(rel) + len(str(n)) + len(line) + 3  # as `rel:n: line`, uncut
                if len(hits) < SEARCH_LIMIT:
                    hits.append(f"{shown_path(rel)}:{n}: {_hit_text(line)}")
        unread = (
            f"\n({skipped} file(s) skipped: binary or not decodable as text)" if skipped else ""
        )
        if not hits:
            return Observation.ok(f"no matches for {a.pattern!r}{unread}")
        more = f"\n… {total - len(hits)} more matches" if total > len(hits) else ""
        raw += total - 1  # the newlines between hits
        where = f" in {a.glob}" if a.glob else ""
        counted = f"{_count(total, 'match', 'matches')} in {_count(len(files), 'file', 'files')}"
        gist = masked(f"search {a.pattern!r}{where}: {counted}")
        return Observation("ok", "\n".join(hits) + more + unread, raw + len(unread), gist=gist)

    def _readable_text(self, rel: str) -> str | None:
        """A file's text (line ends as LF) if the policy lets the model read it (no symlink out
        of the worktree); None for a file that is not text, "" for one it may not read."""
        if not self.policy.check(rel, write=False).allowed:
            return ""
        try:
            file = decode_file((self.root / rel).read_bytes())
        except OSError:
            return ""
        return None if isinstance(file, NotText) else file.view

    def _edit_file(self, a: Any) -> Observation:
        decision = self.policy.check(a.path, write=True)
        if not decision.allowed:
            return Observation.denied(decision.reason)
        target = self.root / decision.path
        if not target.is_file():
            return Observation.error(
                f"{a.path}: no such file; use write_file to create it. {self._similar(a.path)}"
            )
        data = target.read_bytes()
        file = decode_file(data)
        if isinstance(file, NotText):
            return Observation.error(f"{a.path} {file.reason}; edit_file changes text files only")
        outcome = apply_edit(file.text, a.old_text, a.new_text, file.newline)
        if not outcome.ok:
            return Observation.error(f"{a.path}: {outcome.message}")
        encoded = file.encode(outcome.content)
        if isinstance(encoded, str):
            return Observation.error(f"{a.path}: new_text {encoded}")
        if encoded != data:
            target.write_bytes(encoded)
        first, last = changed_span(outcome.first_line, a.old_text, a.new_text)
        span = f"line {first}" if first == last else f"lines {first}-{last}"
        text = f"edited {a.path} ({span} changed); it now reads:\n"
        text += region(outcome.content.replace("\r\n", "\n"), first, last)
        return Observation.ok(text, _digest(a.path, outcome.content))

    def _write_file(self, a: Any) -> Observation:
        """A new file is UTF-8 as written; an existing text file keeps its encoding and line
        ends, and a binary file is not overwritten by text."""
        decision = self.policy.check(a.path, write=True)
        if not decision.allowed:
            return Observation.denied(decision.reason)
        target = self.root / decision.path
        existed = target.exists()
        content, file = a.content, decode_file(target.read_bytes()) if target.is_file() else None
        if isinstance(file, NotText):
            return Observation.error(
                f"{a.path} {file.reason}; write_file does not overwrite binary files "
                "(delete_file it first to replace it)"
            )
        if file is not None:
            content = with_newlines(content, file.newline)
        encoded = (file or NEW_FILE).encode(content)
        if isinstance(encoded, str):
            return Observation.error(f"{a.path}: content {encoded}")
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(encoded)
        verb = "overwrote" if existed else "created"
        view = content.replace("\r\n", "\n")
        lines = len(view.splitlines())
        text = f"{verb} {a.path} ({lines} lines, {len(a.content)} chars); it now reads:\n"
        text += region(view, 1, lines)
        return Observation.ok(text, _digest(a.path, a.content))

    def _delete_file(self, a: Any) -> Observation:
        decision = self.policy.check(a.path, write=True)
        if not decision.allowed:
            return Observation.denied(decision.reason)
        target = self.root / decision.path
        if not target.is_file():
            return Observation.error(f"{a.path}: no such file. {self._similar(a.path)}")
        target.unlink()
        return Observation.ok(f"deleted {a.path}", _digest(a.path, "\0deleted"))

    def _restore_attempt(self, a: Any) -> Observation:
        attempt = self.attempt
        if attempt is None:
            return Observation.error(
                "there is no rolled-back attempt to restore in this step; make the change with "
                "edit_file or write_file"
            )
        if attempt.refused:
            return Observation.error(
                f"the rolled-back attempt of {attempt.step_id} was not kept: {attempt.refused}; "
                "make the change with edit_file or write_file"
            )
        wanted = list(dict.fromkeys(a.paths or [*attempt.changes, *attempt.not_kept]))
        unknown = [p for p in wanted if p not in attempt.changes and p not in attempt.not_kept]
        if unknown:
            return Observation.error(
                f"the attempt did not change {', '.join(unknown)}; it changed: "
                f"{', '.join([*attempt.changes, *attempt.not_kept])}"
            )
        dropped = "; ".join(f"{p} ({attempt.not_kept[p]})" for p in wanted if p in attempt.not_kept)
        wanted = [p for p in wanted if p in attempt.changes]
        allowed = [p for p in wanted if self.policy.check(p, write=True).allowed]
        outside = [p for p in wanted if p not in allowed]
        if not allowed and dropped and not outside:
            return Observation.error(f"nothing restored: not kept from the attempt: {dropped}")
        if not allowed:
            return Observation.denied(
                f"none of {', '.join(wanted)} is among this step's files; nothing restored"
            )
        before = {p: self._text_of(p) for p in allowed}
        restore_files(self.root, attempt, allowed)
        said = [f"{p} ({_CHANGE_WORDS[attempt.changes[p]]})" for p in allowed]
        text = f"restored from the attempt of {attempt.step_id}: {', '.join(said)}"
        if outside:
            text += f"\nnot restored, outside this step's files: {', '.join(outside)}"
        if dropped:
            text += f"\nnot restored, not kept from the attempt: {dropped}"
        for path in allowed:
            if attempt.changes[path] != "D":
                text += f"\n{restored_view(path, before[path], self._text_of(path))}"
        return Observation.ok(text)

    def _text_of(self, rel: str) -> str | None:
        """A file's text as read_file shows it (line ends as LF), read without following a
        link; None when it is absent, not a file, or not text."""
        data = read_beneath(self.root, rel, READ_MAX_BYTES)
        if data is None or len(data) > READ_MAX_BYTES:
            return None
        file = decode_file(data)
        return None if isinstance(file, NotText) else file.view

    def _run(self, a: Any) -> Observation:
        result = self.sandbox.run(
            with_pipeline_status(a.command), cwd=self.root, timeout_s=self.cmd_timeout_s
        )
        result = replace(result, command=a.command)
        known = self.known_red(result) if self.known_red is not None else None
        text, raw = render_command(result, budget=RUN_BUDGET_TOKENS, known=known)
        if GIT_WRITES.search(a.command):
            text += f"\n{GIT_READ_ONLY}"
        status: ObservationStatus = (
            "ok" if result.exit_code == 0 and not result.timed_out else "error"
        )
        fingerprint = _digest(a.command, f"{result.exit_code}\0{result.output}")
        return Observation(
            status, text, raw, fingerprint, result.duration_s, masked(command_gist(result))
        )

    def _similar(self, wanted: str) -> str:
        name = Path(wanted).name
        close = [f for f in worktree_files(self.root) if Path(f).name == name][:5]
        return (
            f"Files with that name: {', '.join(close)}" if close else "Use list_files to see paths."
        )


def _hit_text(line: str) -> str:
    """The line as it is in the file, indentation kept, so old_text copied from it matches;
    a long line is cut, and says so."""
    line = line.rstrip()
    if len(line) <= SEARCH_LINE_CHARS:
        return line
    return f"{line[:SEARCH_LINE_CHARS]} [… {len(line) - SEARCH_LINE_CHARS} more characters]"


def _glob_problem(glob: str) -> str | None:
    try:
        expand_braces(glob)
    except GlobError as exc:
        return str(exc)
    return None


def _count(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def masked(gist: str) -> str:
    return f"[output masked to save context: {gist}]"


def _digest(*parts: str) -> str:
    return hashlib.sha1("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def _capped_lines(lines: list[str], start: int, end: int, path: str) -> tuple[list[str], int]:
    """Lines start..end as read_file shows them: each at most READ_LINE_CHARS (the cut said,
    with the command that reads the rest), and no more lines than fit READ_TOTAL_CHARS (at
    least one). Returns the lines and where they really end."""
    shown: list[str] = []
    total = 0
    for number in range(start, end):
        line = lines[number]
        if len(line) > READ_LINE_CHARS:
            more = len(line) - READ_LINE_CHARS
            line = (
                f"{line[:READ_LINE_CHARS]} … [{more} more characters on this line; read them "
                f"with run: `sed -n '{number + 1}p' {shlex.quote(path)} | cut -c{READ_LINE_CHARS + 1}-"
                f"{2 * READ_LINE_CHARS}`]"
            )
        if shown and total + len(line) > READ_TOTAL_CHARS:
            return shown, number
        shown.append(line)
        total += len(line) + 1
    return shown, end


def shown_path(rel: str) -> str:
    """A path as the model sees it in a listing: as it is, or, when it holds a line break or
    another unprintable character (a name can, and would read as two entries), quoted as a
    JSON string, which is also how the model passes it back."""
    return rel if rel.isprintable() else json.dumps(rel)
