"""The user's tool configuration inside the sandbox: read-only, at its own path and under the
private HOME, with every credential taken out and the run told which keys, never the values.
Real files, real git, real bubblewrap."""

from __future__ import annotations

from pathlib import Path

import pytest

from sandbox.toolconfig import scrub_lines
from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import make_repo

_FILES = {
    ".npmrc": (
        "registry=https://npm.example.com/\n"
        "//npm.example.com/:_authToken=S3CRET-A\n"
        "//npm.example.com/:_auth=S3CRET-B\n"
        "strict-ssl=true\n"
    ),
    ".config/pnpm/rc": "store-dir=/srv/pnpm-store\n//r.example/:_authToken=S3CRET-C\n",
    ".yarnrc.yml": (
        "npmRegistryServer: https://y.example.com\n"
        'npmAuthToken: "S3CRET-D"\n'
        "npmScopes:\n  corp:\n    npmAuthIdent: S3CRET-E\n    npmRegistryServer: https://c\n"
    ),
    ".config/pip/pip.conf": (
        "[global]\nindex-url = https://user:S3CRET-F@pypi.example.com/simple\ntimeout = 60\n"
    ),
    ".config/uv/uv.toml": 'native-tls = true\n[[index]]\nurl = "https://u:S3CRET-G@x.example/"\n',
    ".cargo/config.toml": ('[registry]\ndefault = "corp"\ntoken = "S3CRET-H"\n[build]\njobs = 2\n'),
    ".gitconfig": (
        "[user]\n\tname = Dev\n[credential]\n\thelper = store\n"
        "[sendemail]\n\tsmtpPass = S3CRET-I\n[github]\n\ttoken = S3CRET-J\n"
        "[include]\n\tpath = ~/.private.inc\n"
    ),
}


def test_each_format_keeps_settings_and_drops_credentials() -> None:
    for rel, text in _FILES.items():
        if rel == ".gitconfig":
            continue
        kept, dropped = scrub_lines(text)
        assert "S3CRET" not in kept, (rel, kept)
        assert dropped and all("S3CRET" not in d for d in dropped), (rel, dropped)
    kept, _ = scrub_lines(_FILES[".npmrc"])
    assert kept == "registry=https://npm.example.com/\nstrict-ssl=true\n"
    kept, _ = scrub_lines(_FILES[".yarnrc.yml"])
    assert "npmRegistryServer: https://c" in kept and "corp:" in kept


@needs_bwrap
def test_commands_see_the_configuration_without_its_credentials(
    visible_base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = visible_base / "home" / "dev"
    for rel, text in _FILES.items():
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text(text)
    (home / ".private.inc").write_text("[user]\n\tsigningkey = S3CRET-K\n")
    (home / ".cache" / "node" / "corepack" / "pnpm" / "9.0.0").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    with confined(repo) as box:
        reads = box.run(
            "for f in .npmrc .config/pnpm/rc .yarnrc.yml .config/pip/pip.conf "
            ".config/uv/uv.toml .cargo/config.toml .gitconfig; do "
            f'cat "$HOME/$f" "{home}/$f"; done; cat {home}/.private.inc; '
            'echo "home=$HOME corepack=$COREPACK_HOME net=$COREPACK_ENABLE_NETWORK"; '
            "ls $COREPACK_HOME/pnpm; git config --global user.name; "
            "mkdir -p $HOME/.config/other && echo writable; "
            f"echo x > {home}/.npmrc; echo rc=$?"
        )
        notes = box.sandbox.notes
    out = reads.output
    assert "S3CRET" not in out, out
    assert out.count("registry=https://npm.example.com/") == 2
    assert "index-url = https://pypi.example.com/simple" in out
    assert "jobs = 2" in out and "store-dir=/srv/pnpm-store" in out
    assert f"corepack={home}/.cache/node/corepack net=0" in out
    assert "9.0.0" in out.split() and "Dev" in out.split() and "writable" in out.split()
    assert out.rstrip().endswith("rc=1")
    said = [n for n in notes if n.startswith("withheld")]
    assert len(said) == 1 and "S3CRET" not in said[0]
    for key in (
        "~/.npmrc (//npm.example.com/:_authToken, //npm.example.com/:_auth)",
        "npmAuthToken",
        "npmAuthIdent",
        "~/.cargo/config.toml (token)",
        "credential.helper",
        "sendemail.smtppass",
        "github.token",
        "include.path",
    ):
        assert key in said[0], said[0]
