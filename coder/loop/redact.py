"""Defence in depth: secret values from the harness's environment never reach the model or
the run directory, even when a command runs unconfined (`--sandbox none`) and reads them."""

from __future__ import annotations

import os
from collections.abc import Mapping

from sandbox.environment import is_secret_name

MIN_SECRET_LEN = 8


class Redactor:
    def __init__(self, environ: Mapping[str, str] | None = None) -> None:
        env = os.environ if environ is None else environ
        values = {v for k, v in env.items() if is_secret_name(k) and len(v) >= MIN_SECRET_LEN}
        self.secrets = sorted(values, key=len, reverse=True)

    def __call__(self, text: str) -> str:
        for secret in self.secrets:
            if secret in text:
                text = text.replace(secret, "[redacted]")
        return text
