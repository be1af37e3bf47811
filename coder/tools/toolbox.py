"""ToolBox: turns one tool call into one typed observation. It never raises.

Every failure (bad arguments, a path outside the step, no unique match, a timeout) becomes an
observation that says what would have worked, because a model can only recover from what it
is told.
"""

from __future__ import annotations

import hashlib
import time
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import regex
from pydantic import ValidationError

from coder.tools.editing import apply_edit
from coder.tools.specs import TOOL_ARGS, usage_line
from coder.tools.textfile import NEW_FILE, NotText, decode_file, printable, with_newlines
from sandbox.changes import worktree_files
from sandbox.confine import Sandbox
from sandbox.globs import glob_match
from sandbox.policy import PathPolicy
from summarizers.logs import compact_log
from summarizers.tokens import estimate_tokens

ObservationStatus = Literal["ok", "error", "denied"]

READ_LINES_DEFAULT = 400
LIST_LIMIT = 400
SEARCH_LIMIT = 100
SEARCH_SECONDS = 10.0
RUN_BUDGET_TOKENS = 1500


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
        end = a.end_line or min(len(lines), start + READ_LINES_DEFAULT)
        shown = [f"{n:>5}| {line}" for n, line in enumerate(lines[start:end], start + 1)]
        text = "\n".join(shown)
        if file.note():
            text = f"{file.note()}\n{text}"
        if end < len(lines):
            text += f"\n… {len(lines) - end} more lines; read_file with start_line={end + 1}"
        return Observation("ok", text, len(view))

    def _list_files(self, a: Any) -> Observation:
        files = worktree_files(self.root)
        if a.glob:
            files = [f for f in files if glob_match(f, a.glob)]
        text = "\n".join(files[:LIST_LIMIT]) or f"no files match {a.glob!r}"
        if len(files) > LIST_LIMIT:
            text += f"\n… {len(files) - LIST_LIMIT} more; narrow the glob"
        return Observation("ok", text, len(text))

    def _search(self, a: Any) -> Observation:
        """A model-written pattern over files the policy lets it read, under a deadline."""
        try:
            pattern = regex.compile(a.pattern)
        except regex.error as exc:
            return Observation.error(
                f"invalid regular expression: {exc}; escape special characters"
            )
        hits: list[str] = []
        total = skipped = raw = 0
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
                raw += len(rel) + len(str(n)) + len(line) + 3  # as `rel:n: line`, uncut
                if len(hits) < SEARCH_LIMIT:
                    hits.append(f"{rel}:{n}: {line.strip()[:200]}")
        unread = (
            f"\n({skipped} file(s) skipped: binary or not decodable as text)" if skipped else ""
        )
        if not hits:
            return Observation.ok(f"no matches for {a.pattern!r}{unread}")
        more = f"\n… {total - len(hits)} more matches" if total > len(hits) else ""
        raw += total - 1  # the newlines between hits
        return Observation("ok", "\n".join(hits) + more + unread, raw + len(unread))

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
        return Observation.ok(f"edited {a.path}", _digest(a.path, outcome.content))

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
        return Observation.ok(
            f"{verb} {a.path} ({len(a.content)} chars)", _digest(a.path, a.content)
        )

    def _delete_file(self, a: Any) -> Observation:
        decision = self.policy.check(a.path, write=True)
        if not decision.allowed:
            return Observation.denied(decision.reason)
        target = self.root / decision.path
        if not target.is_file():
            return Observation.error(f"{a.path}: no such file. {self._similar(a.path)}")
        target.unlink()
        return Observation.ok(f"deleted {a.path}", _digest(a.path, "\0deleted"))

    def _run(self, a: Any) -> Observation:
        result = self.sandbox.run(a.command, cwd=self.root, timeout_s=self.cmd_timeout_s)
        text, raw = render_command(result, budget=RUN_BUDGET_TOKENS)
        status: ObservationStatus = (
            "ok" if result.exit_code == 0 and not result.timed_out else "error"
        )
        fingerprint = _digest(a.command, f"{result.exit_code}\0{result.output}")
        return Observation(status, text, raw, fingerprint, duration_s=result.duration_s)

    def _similar(self, wanted: str) -> str:
        name = Path(wanted).name
        close = [f for f in worktree_files(self.root) if Path(f).name == name][:5]
        return (
            f"Files with that name: {', '.join(close)}" if close else "Use list_files to see paths."
        )


def render_command(result: Any, *, budget: int) -> tuple[str, int]:
    """What the model sees of a command: its status line, then the output compacted to budget."""
    output = result.output
    if result.timed_out:
        head = f"$ {result.command}\ntimed out after {result.duration_s:.1f}s and was killed"
    else:
        head = f"$ {result.command}\nexit code {result.exit_code} ({result.duration_s:.1f}s)"
    if result.dropped_bytes:
        head += f"; {result.dropped_bytes} bytes of output dropped from the middle"
    if estimate_tokens(output) > budget:
        compact = compact_log(output, budget=budget, exit_code=result.exit_code)
        body = compact.text
    else:
        body = output.rstrip()
    return (f"{head}\n{body}" if body else head), len(output)


def _digest(*parts: str) -> str:
    return hashlib.sha1("\0".join(parts).encode("utf-8", "surrogateescape")).hexdigest()


def bad_arguments(tool: str, exc: ValidationError) -> str:
    problems = "; ".join(
        f"{'.'.join(str(p) for p in e['loc']) or '(arguments)'}: {e['msg']}" for e in exc.errors()
    )
    return f"bad arguments for {tool}: {problems}. Use: {usage_line(tool)}"
