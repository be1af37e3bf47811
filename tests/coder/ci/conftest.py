from __future__ import annotations

from collections.abc import Iterator

import pytest
from fake_github import FakeGitHub, serve


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
