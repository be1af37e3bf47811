"""Finding a secret the harness holds in whatever a run writes out: a file it would commit, the
patch, result.json, a trace line.

Redaction (sandbox/redact.py) replaces the forms it can locate exactly. A command can do
more to a key than encode it: reverse it, put spaces or dashes between its characters, split it
over lines, base32 it, gzip it into a file. So the search here works on a squashed view of the
text: percent-decoded, lower-cased, every character that is not a letter or a digit dropped,
and compressed file content (gzip, zlib) inflated first. Each secret is looked for in the same
squashed view of its own forms: as it is, reversed, hex, and the base64 and base32 characters
that any encoding of it must contain, at every alignment. What is found is never shown: only
that a secret is there, and where.
"""

from __future__ import annotations

import base64
import os
import re
import zlib
from collections.abc import Iterable, Mapping
from pathlib import Path
from urllib.parse import unquote

from sandbox.environment import is_secret_name
from summarizers.repofiles import read_beneath

MIN_SECRET_LEN = 8
MIN_FORM_LEN = 8
MAX_SCAN_BYTES = 64 * 1024 * 1024
"""What is read of a file, and the most its compressed content is inflated to."""
WITHHELD = "[withheld: it held a secret the harness holds]"
_NOT_ALNUM = re.compile(r"[^a-z0-9]+")


def harness_secrets(environ: Mapping[str, str] | None = None) -> list[str]:
    """The secret values of the harness's environment (API keys, tokens, passwords)."""
    env = os.environ if environ is None else environ
    values = {v for k, v in env.items() if is_secret_name(k) and len(v) >= MIN_SECRET_LEN}
    return sorted(values, key=len, reverse=True)


def squash(text: str) -> str:
    """The view both sides are compared in: no separators, no case, no percent-encoding."""
    return _NOT_ALNUM.sub("", unquote(text).lower())


def squashed_forms(secret: str) -> set[str]:
    raw = secret.encode("utf-8")
    forms = {squash(secret), squash(secret[::-1]), raw.hex()}
    forms |= _cores(raw, base64.b64encode, bits=6, group=3)
    forms |= _cores(raw, base64.b32encode, bits=5, group=5)
    return {f for f in forms if len(f) >= MIN_FORM_LEN}


def _cores(raw: bytes, encode: object, bits: int, group: int) -> set[str]:
    """The characters of an encoding that depend on the secret's bytes alone, at each of the
    alignments it can have inside a longer stream."""
    cores = set()
    for shift in range(group):
        encoded = encode(b"\0" * shift + raw).decode()  # type: ignore[operator]
        start = -(-8 * shift // bits)
        end = 8 * (shift + len(raw)) // bits
        cores.add(squash(encoded[start:end]))
    return cores


class SecretScan:
    """Whether text or a file holds one of `secrets` in a form this module recognises."""

    def __init__(self, secrets: Iterable[str]) -> None:
        forms = {f for s in secrets for f in squashed_forms(s)}
        ordered = sorted(forms, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, ordered))) if ordered else None

    @classmethod
    def of_environment(cls, environ: Mapping[str, str] | None = None) -> SecretScan:
        return cls(harness_secrets(environ))

    def __bool__(self) -> bool:
        return self._pattern is not None

    def holds(self, text: str | bytes) -> bool:
        if self._pattern is None:
            return False
        if isinstance(text, bytes):
            text = text.decode("utf-8", errors="replace")
        return self._pattern.search(squash(text)) is not None

    def file_holds(self, root: Path, rel: str) -> bool:
        """A regular file's bytes, and its content inflated when it is gzip or zlib data; read
        without following a link (a link's target is not the step's file)."""
        if self._pattern is None:
            return False
        data = read_beneath(root, rel, MAX_SCAN_BYTES)
        if data is None:
            return False
        data = data[:MAX_SCAN_BYTES]
        return self.holds(data) or self.holds(_inflated(data))

    def files_holding(self, root: Path, paths: Iterable[str]) -> list[str]:
        return [p for p in paths if self.file_holds(root, p)]

    def withhold(self, value: object) -> object:
        """A JSON-like value with every string that holds a secret replaced by a note."""
        if isinstance(value, str):
            return WITHHELD if self.holds(value) else value
        if isinstance(value, list):
            return [self.withhold(v) for v in value]
        if isinstance(value, dict):
            return {k: self.withhold(v) for k, v in value.items()}
        return value


def _inflated(data: bytes) -> bytes:
    """gzip or zlib content, inflated (bounded); b"" when it is neither."""
    gzip = data[:2] == b"\x1f\x8b"
    zlib_header = (
        len(data) > 1 and data[0] & 0x0F == 8 and int.from_bytes(data[:2], "big") % 31 == 0
    )
    if not (gzip or zlib_header):
        return b""
    try:
        return zlib.decompressobj(wbits=47).decompress(data, MAX_SCAN_BYTES)
    except zlib.error:
        return b""
