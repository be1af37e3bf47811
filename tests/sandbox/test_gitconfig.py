"""The scrubbed config copy: git must read back exactly what was kept, and nothing else."""

from __future__ import annotations

from pathlib import Path

from sandbox.gitconfig import ConfigEntry, read_entries, render, scrub, write_scrubbed
from tests.sandbox.gitrepos import run_git

_ORIGINAL = r"""
[core]
	bare = false
	filemode
[remote "origin"]
	url = https://x-access-token:T0KEN1@github.com/o/r.git
	pushurl = ssh://git@github.com/o/r.git
	fetch = +refs/heads/*:refs/remotes/origin/*
[http "https://github.com/"]
	extraheader = AUTHORIZATION: basic T0KEN2
	sslVerify = true
[credential]
	helper = store
[credential "https://github.com"]
	username = T0KEN3
[url "https://u:T0KEN4@example.com/"]
	insteadOf = https://example.com/
[alias]
	odd = "!echo \"quoted\" \\ back\ttab" ; comment
	multi = one \
two
[branch "we\"ird\\name"]
	merge = refs/heads/main
"""


def test_round_trip_keeps_everything_but_credentials(tmp_path: Path) -> None:
    source = tmp_path / "config"
    source.write_text(_ORIGINAL)
    original = read_entries(source)
    assert original is not None
    target = tmp_path / "clean"
    write_scrubbed(source, target)
    text = target.read_text()
    for token in ("T0KEN1", "T0KEN2", "T0KEN3", "T0KEN4"):
        assert token not in text
    clean = read_entries(target)
    assert clean == scrub(original)
    kept = {entry.key: entry.value for entry in clean}
    assert kept["remote.origin.url"] == "https://github.com/o/r.git"
    assert kept["remote.origin.pushurl"] == "ssh://github.com/o/r.git"
    assert kept["alias.odd"] == '!echo "quoted" \\ back\ttab'
    assert kept["alias.multi"] == "one two"
    assert kept['branch.we"ird\\name.merge'] == "refs/heads/main"
    assert kept["core.filemode"] is None
    assert run_git(tmp_path, "config", "--file", str(target), "--bool", "core.filemode") == (
        "true\n"
    )
    assert "http.https://github.com/.sslverify" in kept
    assert not any(key.startswith(("credential", "url.")) for key in kept)


def test_an_unreadable_config_becomes_empty(tmp_path: Path) -> None:
    source = tmp_path / "config"
    source.write_text("[broken\n\tpassword = T0KEN5\n")
    target = tmp_path / "clean"
    write_scrubbed(source, target)
    assert target.read_text() == ""


def test_render_groups_consecutive_keys_of_one_section() -> None:
    entries = [ConfigEntry("core.bare", "false"), ConfigEntry("core.filemode", None)]
    assert render(entries) == '[core]\n\tbare = "false"\n\tfilemode\n'


def test_secret_keys_and_includes_are_withheld(tmp_path: Path) -> None:
    included = tmp_path / "private.inc"
    included.write_text("[user]\n\tsigningkey = T0KEN9\n")
    source = tmp_path / "config"
    source.write_text(
        "[sendemail]\n\tsmtpPass = T0KEN5\n\tsmtpServer = mail.example.com\n"
        "[github]\n\ttoken = T0KEN6\n\tuser = octo\n"
        "[hub]\n\toauthtoken = T0KEN7\n"
        f"[include]\n\tpath = {included}\n"
        f'[includeIf "gitdir:/"]\n\tpath = {included}\n'
        "[svn]\n\tpassword = T0KEN8\n"
    )
    target = tmp_path / "scrubbed"
    write_scrubbed(source, target)
    text = target.read_text()
    assert "T0KEN" not in text and "private.inc" not in text, text
    kept = read_entries(target)
    assert kept is not None
    assert [e.key for e in kept] == ["sendemail.smtpserver", "github.user"]
    listed = run_git(tmp_path, "config", "--file", str(target), "--includes", "--list")
    assert "T0KEN" not in listed
