"""Defence in depth: secret values from the harness's environment never reach the model or
the run directory, even when a command runs unconfined (`--sandbox none`) and reads them.

Exact matches are not enough: `base64 <<<"$KEY"` or `xxd -p` would carry the key past a
plain search. Each secret is also looked for in the forms a command can cheaply turn it into:
base64 in the standard and URL-safe alphabets at each of the three alignments the secret can
have inside a longer stream (the characters that depend on its bytes alone), hex in either
case, and percent-encoding. Encoders wrap lines (`base64` at 76 columns, `xxd -p` at 60), so
a line break may sit between any two characters of an encoded form, raw or JSON-escaped as
the trace writes it.
"""

from __future__ import annotations

import base64
import json
import os
import re
from collections.abc import Mapping
from urllib.parse import quote

from sandbox.environment import is_secret_name
from sandbox.secrets import WITHHELD, SecretScan

MIN_SECRET_LEN = 8
_BREAK = r"(?:\r?\n|\\r\\n|\\n)?"


class Redactor:
    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        values = {v for k, v in env.items() if is_secret_name(k) and len(v) >= MIN_SECRET_LEN}
        self.secrets = sorted(values, key=len, reverse=True)
        exact = {s for s in self.secrets}
        encoded = {f for s in self.secrets for f in encoded_forms(s)} - exact
        pieces = [re.escape(s) for s in sorted(exact, key=len, reverse=True)]
        pieces += [_breakable(f) for f in sorted(encoded, key=len, reverse=True)]
        self._pattern = re.compile("|".join(pieces)) if pieces else None
        self.scan = SecretScan(self.secrets)
        """The forms redaction cannot locate exactly (reversed, spaced, split, base32, …)."""

    def __call__(self, text: str) -> str:
        if self._pattern is None:
            return text
        return self._pattern.sub("[redacted]", text)

    def whole(self, text: str) -> str:
        """`text` redacted, or withheld whole when a secret is still in it in another form."""
        redacted = self(text)
        return WITHHELD if self.scan.holds(redacted) else redacted

    def record(self, line: str) -> str:
        """A JSON line redacted; a string in it that still holds a secret is withheld (each
        string judged as itself, its line breaks as line breaks, not as JSON escapes)."""
        redacted = self(line)
        if not self.scan:
            return redacted
        data = json.loads(redacted)
        kept = self.scan.withhold(data)
        return redacted if kept == data else json.dumps(kept, ensure_ascii=False)


def encoded_forms(secret: str) -> set[str]:
    """The encodings of `secret`, each cut to the characters every occurrence must contain."""
    raw = secret.encode("utf-8")
    forms = {raw.hex(), raw.hex().upper(), quote(secret, safe="")}
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw).decode()
        start = -(-8 * shift // 6)  # the first character free of the bytes before the secret
        end = 8 * (shift + len(raw)) // 6  # past the last one free of the bytes after it
        core = encoded[start:end]
        forms.add(core)
        forms.add(core.replace("+", "-").replace("/", "_"))
    return {f for f in forms if len(f) >= MIN_SECRET_LEN}


def _breakable(form: str) -> str:
    return _BREAK.join(re.escape(ch) for ch in form)
