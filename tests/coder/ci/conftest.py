from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

from ci_fake_github import FakeGitHub, serve  # noqa: E402


@pytest.fixture
def github() -> Iterator[FakeGitHub]:
    fake = FakeGitHub()
    server, thread = serve(fake)
    try:
        yield fake
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)
