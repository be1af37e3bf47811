"""Which homes are hidden and what of them is bound back for the toolchains."""

from __future__ import annotations

from pathlib import Path

from sandbox.homes import credential_files, hidden_homes, tool_dirs


def _home(tmp_path: Path) -> Path:
    home = tmp_path / "home" / "dev"
    for rel in (
        ".pyenv/shims",
        ".pyenv/plugins/pyenv-virtualenv/shims",
        ".cargo/bin",
        ".rustup/toolchains",
        ".nvm/versions/node/v20/bin",
        ".local/bin",
        ".local/lib",
        ".local/share/keyrings",
        "work/bin",
        "bin",
    ):
        (home / rel).mkdir(parents=True)
    return home


def test_tool_dirs_bind_back_what_path_needs_and_no_more(tmp_path: Path) -> None:
    home = _home(tmp_path)
    path = [
        str(home / ".pyenv/plugins/pyenv-virtualenv/shims"),
        str(home / ".pyenv/shims"),
        str(home / ".cargo/bin"),
        str(home / ".nvm/versions/node/v20/bin"),
        str(home / ".local/bin"),
        str(home / "work/bin"),
        str(home / "bin"),
        "/usr/bin",
        "relative/bin",
    ]
    found = tool_dirs(path, [home], extra=[home / ".pyenv/versions/3.11", tmp_path / "outside"])
    assert found == sorted(
        [
            home / ".pyenv",
            home / ".cargo",
            home / ".rustup",
            home / ".nvm/versions/node/v20",
            home / ".local/bin",
            home / ".local/lib",
            home / "work/bin",
            home / "bin",
        ],
        key=lambda p: (len(p.parts), str(p)),
    )


def test_credentials_inside_tool_dirs_are_found(tmp_path: Path) -> None:
    cargo = tmp_path / ".cargo"
    cargo.mkdir()
    for name in ("credentials.toml", "credentials", "config.toml", "env", "api.TOKEN", "bin"):
        (cargo / name).mkdir() if name == "bin" else (cargo / name).write_text("")
    assert [p.name for p in credential_files([cargo])] == [
        "api.TOKEN",
        "credentials",
        "credentials.toml",
    ]


def test_hidden_homes_cover_root_home_and_home(tmp_path: Path) -> None:
    homes = hidden_homes(str(tmp_path))
    assert Path("/root") in homes
    assert tmp_path.resolve() in homes or any(tmp_path.resolve().is_relative_to(h) for h in homes)
    assert Path("/") not in homes and Path("/usr") not in homes and Path("/var") not in homes
    assert all(not a.is_relative_to(b) for a in homes for b in homes if a != b)  # outermost only


def test_token_files_nested_in_tool_directories_are_masked(tmp_path: Path) -> None:
    home = tmp_path / "home" / "dev"
    for rel in (
        ".cargo/bin/cargo",
        ".cargo/credentials.toml",
        ".config/gh/hosts.yml",
        ".config/gh/config.yml",
        ".docker/config.json",
        ".docker/cli-plugins/docker-compose",
        ".nvm/etc/auth.json",
    ):
        (home / rel).parent.mkdir(parents=True, exist_ok=True)
        (home / rel).write_text("x")
    masks = credential_files([home / ".cargo", home / ".config", home / ".docker", home / ".nvm"])
    assert sorted(p.relative_to(home).as_posix() for p in masks) == [
        ".cargo/credentials.toml",
        ".config/gh/hosts.yml",
        ".docker/config.json",
        ".nvm/etc/auth.json",
    ]
