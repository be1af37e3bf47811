"""The bench's prepare (`npm ci`) runs the instance's own lifecycle scripts outside the sandbox:
they must see none of the harness's secrets or the user's credentials, and, when the harness
is root, not run as root. Real npm, real git, a planted key and a planted ~/.npmrc token."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from coder.bench.prepare import prepare_all
from coder.bench.swebench import load_instances

TINY = Path(__file__).resolve().parents[2] / "data" / "swebench_tiny"
KEY = "sk-ant-api03-PLANTED-key-0123456789abcdef"
NPM_TOKEN = "npm_PLANTEDtoken0123456789abcdefghijklmn"
SPY = (
    "env > seen-env.txt; id -u > seen-uid.txt; "
    'cat "$HOME/.npmrc" > seen-npmrc.txt 2>&1; cat {home}/.npmrc >> seen-npmrc.txt 2>&1; '
    "cat {home}/.config/coder-secret >> seen-npmrc.txt 2>&1; true"
)
"""What a hostile `preinstall` script does: print its environment and the credentials it can
reach (the npmrc HOME points at, the user's real one, a root-only file of the user's)."""


def _instance_repo(clones: Path, home: Path) -> str:
    repo = clones / "tinyjs__clamp"
    repo.mkdir(parents=True)
    package = {
        "name": "spy",
        "version": "1.0.0",
        "private": True,
        "scripts": {"preinstall": SPY.format(home=home)},
    }
    lock = {
        "name": "spy",
        "version": "1.0.0",
        "lockfileVersion": 3,
        "requires": True,
        "packages": {"": {"name": "spy", "version": "1.0.0"}},
    }
    (repo / "package.json").write_text(json.dumps(package, indent=2) + "\n")
    (repo / "package-lock.json").write_text(json.dumps(lock, indent=2) + "\n")
    for args in (
        ["init", "-q", "-b", "main"],
        ["-c", "user.email=t@e.x", "-c", "user.name=T", "add", "-A"],
        ["-c", "user.email=t@e.x", "-c", "user.name=T", "commit", "-qm", "spy"],
    ):
        subprocess.run(["git", *args], cwd=repo, check=True)
    return subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=repo, capture_output=True, text=True, check=True
    ).stdout.strip()


@pytest.mark.skipif(shutil.which("npm") is None, reason="needs npm")
def test_a_lifecycle_script_sees_no_key_no_token_and_is_not_root(tmp_path, monkeypatch):
    home = tmp_path / "home"
    (home / ".config").mkdir(parents=True)
    (home / ".npmrc").write_text(
        f"registry=https://registry.npmjs.org/\n//registry.npmjs.org/:_authToken={NPM_TOKEN}\n"
    )
    (home / ".config" / "coder-secret").write_text(f"{NPM_TOKEN}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_PLANTED0123456789abcdefghij")
    monkeypatch.setenv("npm_config__authtoken", NPM_TOKEN)
    monkeypatch.setenv("npm_config_fund", "false")
    monkeypatch.setenv("HTTPS_PROXY", f"http://me:{NPM_TOKEN}@proxy.invalid:3128")
    head = _instance_repo(tmp_path / "clones", home)
    found = {i.instance_id: i for i in load_instances(TINY / "instances.jsonl").instances}
    instance = found["tinyjs__clamp-1"].model_copy(
        update={"base_commit": head, "prepare": "npm ci --no-audit"}
    )
    said: list[str] = []
    prepared = prepare_all([instance], tmp_path / "clones", tmp_path / "cache", said.append)
    assert prepared.errors == {}, said
    tree = prepared.deps["tinyjs__clamp-1"]
    seen = {name: (tree / f"seen-{name}.txt").read_text() for name in ("env", "uid", "npmrc")}
    everything = "".join(seen.values())
    assert KEY not in everything and NPM_TOKEN not in everything
    assert "ghp_PLANTED" not in everything and "proxy.invalid" not in everything
    assert "registry=https://registry.npmjs.org/" in seen["npmrc"]  # the settings came through
    assert "npm_config_fund=false" in seen["env"]
    assert f"HOME={home}" not in seen["env"]
    if os.geteuid() == 0:
        assert seen["uid"].strip() == "65534"
        assert all(p.lstat().st_uid == 0 for p in [tree, *tree.rglob("*")])
    assert any(
        "withheld from its environment as credentials: " in line and "HTTPS_PROXY" in line
        for line in said
    )
    assert not list(Path(os.environ.get("TMPDIR", "/tmp")).glob("coder-prepare-*/seen-env.txt"))
