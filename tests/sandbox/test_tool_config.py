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


_SHAPES = [
    (
        "npmrc-key",
        "registry=https://r.example/\nkey=S3CRET-PEM\notp=S3CRET-OTP\n",
        "registry=https://r.example/\n",
        ["key", "otp"],
    ),
    (
        "npmrc-array",
        "//r.example/:_authToken[]=S3CRET\nstrict-ssl=true\n",
        "strict-ssl=true\n",
        ["//r.example/:_authToken[]"],
    ),
    (
        "yarnrc-spaced",
        '"//registry.npmjs.org/:_authToken" "S3CRET"\n_password S3CRET\nregistry "https://r"\n',
        'registry "https://r"\n',
        ["//registry.npmjs.org/:_authToken", "_password"],
    ),
    (
        "toml-inline-table",
        'registries = { corp = { index = "https://c", token = "S3CRET" } }\njobs = 2\n',
        'registries = { corp = { index = "https://c" } }\njobs = 2\n',
        ["token"],
    ),
    (
        "toml-inline-first",
        'corp = { token = "S3CRET", index = "https://c" }\n',
        'corp = { index = "https://c" }\n',
        ["token"],
    ),
    (
        "toml-inline-whole",
        'x = { auth = { user = "u", password = "S3CRET" }, y = 1 }\n',
        "x = { y = 1 }\n",
        ["auth"],
    ),
    (
        "toml-multiline-basic",
        'token = """\nS3CRET-1\nS3CRET-2\n"""\njobs = 2\n',
        "jobs = 2\n",
        ["token"],
    ),
    (
        "toml-multiline-literal",
        "[registry]\ntoken = '''S3CRET-1\nS3CRET-2'''\ndefault = \"corp\"\n",
        '[registry]\ndefault = "corp"\n',
        ["token"],
    ),
    (
        "toml-array",
        'password = [\n  "S3CRET",\n  { a = "]" },\n]\njobs = 2\n',
        "jobs = 2\n",
        ["password"],
    ),
    (
        "yaml-flow-mapping",
        'npmScopes: {corp: {npmAuthToken: S3 CRET, npmRegistryServer: "https://c"}}\n',
        'npmScopes: {corp: {npmRegistryServer: "https://c"}}\n',
        ["npmAuthToken"],
    ),
    (
        "yaml-flow-top",
        '{npmAuthToken: S3CRET}\nnpmRegistryServer: "https://y"\n',
        '{}\nnpmRegistryServer: "https://y"\n',
        ["npmAuthToken"],
    ),
    (
        "yaml-flow-json",
        'x: {"npmAuthIdent":"S3CRET", "a": 1}\n',
        'x: {"a": 1}\n',
        ["npmAuthIdent"],
    ),
    (
        "quoted-comma-kept",
        'note = { text = "a,token = b" }\n',
        'note = { text = "a,token = b" }\n',
        [],
    ),
]


@pytest.mark.parametrize(("shape", "text", "kept", "dropped"), _SHAPES, ids=[s[0] for s in _SHAPES])
def test_every_shape_of_a_credential_is_taken_out(
    shape: str, text: str, kept: str, dropped: list[str]
) -> None:
    scrubbed, said = scrub_lines(text)
    assert (scrubbed, said) == (kept, dropped)
    assert "S3CRET" not in scrubbed and all("S3CRET" not in d for d in said)


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
