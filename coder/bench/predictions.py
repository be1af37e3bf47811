"""SWE-bench predictions in the official format, one line per instance and mode.

`model_name_or_path` is `coder-<mode>__<model>` (the model spec with anything but letters,
digits, `.`, `_` and `-` turned into `-`; a scripted model is `script-<directory name>`), so
the modes of one bench never mix in the harness's reports. The official harness keeps one
prediction per instance_id, so with several modes each also gets a file of its own,
`OUT.<mode>.jsonl`, to evaluate one at a time. An instance that did not run still gets a line,
with an empty patch; why it did not run is in `OUT.errors.jsonl`.

Lines are appended as runs finish (a long bench that dies keeps what it did), then every file
is rewritten in instance order at the end.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import IO, Any

from coder.bench.jobs import Row
from coder.bench.swebench import BadLine

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def model_name(mode: str, model: str | None) -> str:
    spec = model or "default"
    if spec.startswith("script:"):
        path = Path(spec.removeprefix("script:"))
        spec = f"script-{path.stem if path.suffix else path.name}"
    return f"coder-{mode}__{_UNSAFE.sub('-', spec).strip('-')}"


def errors_path(out: Path) -> Path:
    return out.with_name(f"{out.stem}.errors.jsonl")


def mode_path(out: Path, mode: str) -> Path:
    return out.with_name(f"{out.stem}.{mode}.jsonl")


class PredictionsWriter:
    def __init__(self, out: Path, modes: tuple[str, ...], model: str | None) -> None:
        self.out = out
        self.modes = modes
        self.model = model
        self._predictions: list[dict[str, Any]] = []
        self._errors: list[dict[str, Any]] = []
        out.parent.mkdir(parents=True, exist_ok=True)
        self._stream: IO[str] = out.open("w", encoding="utf-8")
        self._error_stream: IO[str] = errors_path(out).open("w", encoding="utf-8")

    def add(self, row: Row) -> None:
        name = model_name(row["mode"], self.model)
        self._prediction(row["fixture"], name, row.get("model_patch") or "")
        if row.get("error"):
            self._error(
                {
                    "instance_id": row["fixture"],
                    "mode": row["mode"],
                    "model_name_or_path": name,
                    "error": row["error"],
                }
            )

    def add_bad_line(self, bad: BadLine, ran: set[str]) -> None:
        """A line of the instances file that did not run; a prediction line for each mode when
        it names an instance that is not run under the same id by another line."""
        self._error({"line": bad.line, "instance_id": bad.instance_id, "error": bad.message})
        if bad.instance_id is None or bad.instance_id in ran:
            return
        for mode in self.modes:
            self._prediction(bad.instance_id, model_name(mode, self.model), "")

    def close(self, order: list[str]) -> None:
        """Rewrite every file in instance order (then mode order)."""
        self._stream.close()
        self._error_stream.close()
        rank = {ident: i for i, ident in enumerate(order)}
        modes = {model_name(m, self.model): i for i, m in enumerate(self.modes)}

        def key(line: dict[str, Any]) -> tuple[int, int]:
            ident = line.get("instance_id")
            return (
                rank.get(ident, len(rank)) if isinstance(ident, str) else len(rank),
                modes.get(line.get("model_name_or_path", ""), 0),
            )

        predictions = sorted(self._predictions, key=key)
        _write(self.out, predictions)
        _write(errors_path(self.out), sorted(self._errors, key=key))
        if len(self.modes) > 1:
            for mode in self.modes:
                name = model_name(mode, self.model)
                _write(
                    mode_path(self.out, mode),
                    [p for p in predictions if p["model_name_or_path"] == name],
                )

    def paths(self) -> list[Path]:
        extra = [mode_path(self.out, m) for m in self.modes] if len(self.modes) > 1 else []
        return [self.out, *extra, errors_path(self.out)]

    def _prediction(self, instance_id: str, name: str, patch: str) -> None:
        line = {"instance_id": instance_id, "model_name_or_path": name, "model_patch": patch}
        self._predictions.append(line)
        self._stream.write(json.dumps(line) + "\n")
        self._stream.flush()

    def _error(self, line: dict[str, Any]) -> None:
        self._errors.append(line)
        self._error_stream.write(json.dumps(line) + "\n")
        self._error_stream.flush()


def _write(path: Path, lines: list[dict[str, Any]]) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    tmp.replace(path)
