"""Environment failures named from real output (tests/summarizers/data/env_failures/README.md
says how each was provoked), and one provoked here, under bwrap, as the test runs."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from summarizers.sandbox_failures import (
    HOME_CONFIG,
    NETWORK,
    READ_ONLY,
    EnvironmentFailure,
    environment_failures,
)

DATA = Path(__file__).parent / "data"
W = "/tmp/runners-work/env"

CASES = {
    "tsc_ts5033_erofs.log": (READ_ONLY, f"{W}/ro/app.tsbuildinfo"),
    "sh_read_only.log": (READ_ONLY, f"{W}/ro/file"),
    "node_erofs.log": (READ_ONLY, f"{W}/ro/x.json"),
    "node_eacces.log": (READ_ONLY, f"{W}/acc/node_modules/.vite"),
    "npm_eacces.log": (READ_ONLY, f"{W}/acc/.npm"),
    "mkdir_read_only_home.log": (READ_ONLY, "/root/.npm/x"),
    "corepack_erofs_cache.log": (READ_ONLY, None),
    "npm_eai_again.log": (NETWORK, "https://registry.npmjs.org/left-pad"),
    "npm_econnrefused.log": (NETWORK, "http://127.0.0.1:9/left-pad"),
    "node_enetunreach.log": (NETWORK, "104.16.0.1:443"),
    "pnpm_meta_fetch_fail.log": (NETWORK, "https://registry.npmjs.org/left-pad"),
    "corepack_download.log": (NETWORK, "https://registry.npmjs.org/pnpm/-/pnpm-8.15.9.tgz"),
    "pip_no_connection.log": (NETWORK, "/simple/six/"),
    "git_identity.log": (HOME_CONFIG, "~/.gitconfig"),
}


@pytest.mark.parametrize(("log", "expected"), sorted(CASES.items()))
def test_real_output_is_named(log, expected):
    kind, path = expected
    got = environment_failures((DATA / "env_failures" / log).read_text().splitlines())
    assert got, log
    assert got[0].kind == kind
    if path is not None:
        assert got[0].path == path
    assert got[0].line


def test_corepack_cache_under_home_names_the_path():
    text = (DATA / "env_failures" / "corepack_erofs_cache.log").read_text()
    (first,) = environment_failures(text.splitlines())
    assert first.path is not None and first.path.startswith("/root/.cache/node/corepack/")


def test_the_npm_network_failure_is_said_once_with_its_address():
    text = (DATA / "env_failures" / "npm_eai_again.log").read_text()
    got = environment_failures(text.splitlines())
    assert [f.kind for f in got].count(NETWORK) == 1
    # npm could not write its own logs into the read-only home either
    assert EnvironmentFailure(READ_ONLY, "/root/.npm/_logs", got[-1].line) in got


def test_test_logs_are_not_environment_failures():
    """Nothing in the real test-runner logs (failing tests, TypeErrors, tracebacks) counts."""
    for log in DATA.rglob("*.log"):
        if log.parent.name != "env_failures" and "erofs" not in log.name:
            assert environment_failures(log.read_text(errors="replace").splitlines()) == [], log
    local = ["Error: connect ECONNREFUSED 127.0.0.1:3000", "    at TCPConnectWrap.afterConnect"]
    assert environment_failures(local) == []  # a test's own server, not the sandbox


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_a_write_refused_under_bwrap_now(tmp_path):
    ro = tmp_path / "node_modules"
    ro.mkdir()
    done = subprocess.run(
        ["bwrap", "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
         "sh", "-c", f"echo x > {ro}/.tsbuildinfo"],
        capture_output=True, text=True, timeout=30,
    )  # fmt: skip
    if "Read-only" not in done.stderr:
        pytest.skip(f"bwrap cannot run here: {done.stderr.strip()[:200]}")
    (got,) = environment_failures(done.stderr.splitlines())
    assert (got.kind, got.path) == (READ_ONLY, f"{ro}/.tsbuildinfo")
