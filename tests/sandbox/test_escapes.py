"""Escapes a hostile command tries under bubblewrap, each closed: host Unix sockets, the real
home directories, root's power over host files, /etc/shadow. Real bubblewrap, real sockets."""

from __future__ import annotations

import os
import shutil
import socket
import textwrap
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from sandbox.confine import make_sandbox
from tests.sandbox.confined import confined, needs_bwrap
from tests.sandbox.gitrepos import make_repo
from tests.sandbox.nobody import readable_site, run_as_nobody, system_python_matches

pytestmark = needs_bwrap
REPO_ROOT = Path(__file__).resolve().parents[2]
as_root = pytest.mark.skipif(os.geteuid() != 0, reason="the harness is not root here")

_CONNECT = textwrap.dedent(
    """\
    python3 - <<'EOF'
    import socket, sys
    for path in sys.argv[1:] or {paths!r}:
        s = socket.socket(socket.AF_UNIX)
        s.settimeout(2)
        try:
            s.connect(path)
            print("CONNECTED", path)
        except OSError as error:
            print("refused", path, type(error).__name__)
    EOF
    """
)


def _listen(path: Path) -> socket.socket:
    path.parent.mkdir(parents=True, exist_ok=True)
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(path))
    path.chmod(0o777)
    server.listen(4)
    server.setblocking(False)
    return server


@pytest.fixture
def run_dir_listener() -> Iterator[Path]:
    """A service socket the way docker's sits in /var/run: in a directory under /run."""
    directory = Path("/run") / f"coder-test-{uuid.uuid4().hex[:8]}"
    server = _listen(directory / "docker.sock")
    yield directory / "docker.sock"
    server.close()
    shutil.rmtree(directory, ignore_errors=True)


def test_host_unix_sockets_cannot_be_reached(visible_base: Path, run_dir_listener: Path) -> None:
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    in_git = _listen(repo / ".git" / "s.sock")
    visible = _listen(visible_base / "elsewhere" / "agent.sock")
    abstract = socket.socket(socket.AF_UNIX)
    abstract.bind(f"\0coder-test-{uuid.uuid4().hex[:8]}")
    abstract.listen(4)
    abstract.setblocking(False)
    abstract_name = "@" + abstract.getsockname()[1:].decode()
    targets = [
        str(repo / ".git" / "s.sock"),
        "/run/coder/git/s.sock",
        str(run_dir_listener),
        str(visible_base / "elsewhere" / "agent.sock"),
    ]
    try:
        with confined(repo) as c:
            confined_try = c.run(_CONNECT.format(paths=targets))
            abstract_try = c.run(
                'python3 -c "import socket; s = socket.socket(socket.AF_UNIX); '
                f"s.connect('\\0{abstract_name[1:]}'); print('CONNECTED')\""
            )
        for server in (in_git, visible, abstract):
            with pytest.raises(BlockingIOError):
                server.accept()  # nothing got through to the host's listeners
        control = make_sandbox("none", visible_base).run(
            _CONNECT.format(paths=[targets[0], targets[3]]), cwd=visible_base, timeout_s=30
        )
    finally:
        for server in (in_git, visible, abstract):
            server.close()
    assert "CONNECTED" not in confined_try.output, confined_try.output
    assert confined_try.output.count("refused") == len(targets)
    assert "CONNECTED" not in abstract_try.output
    assert control.output.count("CONNECTED") == 2  # the probe does reach them unconfined


def test_a_commands_own_sockets_work(visible_base: Path) -> None:
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    server = textwrap.dedent(
        """\
        python3 - <<'EOF'
        import os, socket, threading
        a, b = socket.socketpair()
        a.sendall(b"pair"); print(b.recv(4).decode())
        for path in ("own.sock", "/tmp/own.sock"):
            srv = socket.socket(socket.AF_UNIX); srv.bind(path); srv.listen(1)
            cli = socket.socket(socket.AF_UNIX); cli.connect(path)
            conn, _ = srv.accept(); cli.sendall(path.encode()); print(conn.recv(64).decode())
            os.unlink(path)
        EOF
        """
    )
    with confined(repo) as c:
        result = c.run(server)
    assert result.output.split() == ["pair", "own.sock", "/tmp/own.sock"], result.output


def test_home_directories_are_hidden_and_toolchains_still_run(
    visible_base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = visible_base / "home"
    (home / ".cargo" / "bin").mkdir(parents=True)
    tool = home / ".cargo" / "bin" / "mytool"
    tool.write_text("#!/bin/sh\necho tool ran\n")
    tool.chmod(0o755)
    (home / ".cargo" / "credentials.toml").write_text('token = "CARGO-T0KEN"\n')
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text("PRIVATE-KEY\n")
    (home / ".bash_history").write_text("export SECRET=HISTORY-LEAK\n")
    (home / "notes.txt").write_text("ordinary NOTE\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("PATH", f"{home / '.cargo' / 'bin'}:{os.environ['PATH']}")
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    with confined(repo) as c:
        result = c.run(
            f"mytool; cat {home}/.cargo/credentials.toml {home}/.ssh/id_ed25519 "
            f"{home}/.bash_history {home}/notes.txt; ls -A {home} /root; "
            "cat /root/.npmrc /root/.gitconfig; python3 -c 'print(6 * 7)'"
        )
    out = result.output
    assert out.splitlines()[0] == "tool ran"
    for leak in ("CARGO-T0KEN", "PRIVATE-KEY", "HISTORY-LEAK", "NOTE"):
        assert leak not in out, leak
    listed = {line for line in out.splitlines() if line and " " not in line and ":" not in line}
    assert ".cargo" in listed and not {".ssh", ".bash_history", "notes.txt", ".bashrc"} & listed
    assert "42" in out.split()  # pyenv's python, bound back from the hidden /root


@as_root
def test_commands_do_not_run_with_roots_power(visible_base: Path) -> None:
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    with confined(repo) as c:
        result = c.run(
            "id -u; grep -E '^(CapEff|CapPrm|CapBnd|CapAmb|NoNewPrivs)' /proc/self/status; "
            "cat /etc/shadow; echo shadow=$?; touch made-inside; echo x >> /etc/passwd; echo passwd=$?"
        )
        owner = (c.worktree / "made-inside").stat().st_uid
    lines = result.output.splitlines()
    assert lines[0] == "65534"
    caps = dict(line.split(":\t") for line in lines[1:6])
    assert caps == {
        "CapEff": "0000000000000000",
        "CapPrm": "0000000000000000",
        "CapBnd": "0000000000000000",
        "CapAmb": "0000000000000000",
        "NoNewPrivs": "1",
    }
    assert "shadow=1" in lines and "passwd=1" in lines
    assert owner == 65534


@as_root
def test_without_a_reachable_checkout_root_loses_its_capabilities(visible_base: Path) -> None:
    """A checkout `nobody` cannot reach: root without capabilities, shadow files masked."""
    private = visible_base / "private"
    private.mkdir(mode=0o700)
    repo = make_repo(private / "repo", {"README.md": "hi\n"})
    notes: list[str] = []
    with confined(repo) as c:
        notes += c.sandbox.notes  # type: ignore[attr-defined]
        result = c.run(
            "id -u; grep CapEff /proc/self/status; cat /etc/shadow 2>/dev/null | wc -c; echo ok > f"
        )
        written = (c.worktree / "f").read_text()
    assert result.output.split() == ["0", "CapEff:", "0000000000000000", "0"]
    assert written == "ok\n"
    assert len(notes) == 1 and "not searchable by other users" in notes[0]


_NON_ROOT_HARNESS = textwrap.dedent(
    """\
    import sys
    from pathlib import Path
    from sandbox.confine import make_sandbox
    root = Path(sys.argv[1])
    box = make_sandbox("bwrap", root)
    own = ("import socket; s = socket.socket(socket.AF_UNIX); s.bind('/tmp/o.sock'); "
           "s.listen(1); socket.socket(socket.AF_UNIX).connect('/tmp/o.sock'); print('own')")
    r = box.run("id -u; grep CapEff /proc/self/status; ls -A /root | wc -l; echo hi > f; cat f; "
                f'python3 -c "{own}"', cwd=root, timeout_s=30)
    print(r.output, end="")
    """
)


@as_root
def test_a_non_root_harness_keeps_its_own_uid(tmp_path: Path, visible_base: Path) -> None:
    """bwrap's user namespace: the user's uid, no capabilities, homes hidden all the same.
    Run by `nobody` with the system python, given copies of the pure-Python dependencies."""
    if not system_python_matches():
        pytest.skip("needs /usr/bin/python3 of this version and setpriv")
    site = readable_site(visible_base)
    root = visible_base / "root"
    root.mkdir()
    root.chmod(0o777)
    done = run_as_nobody(_NON_ROOT_HARNESS, [str(root)], site, home=visible_base)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [
        "65534",
        "CapEff:",
        "0000000000000000",
        "0",
        "hi",
        "own",
    ]


def test_a_socket_that_vanishes_before_the_mount_does_not_fail_the_command(
    visible_base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Sockets come and go (other processes' tests): a lookup that is stale by the time
    bwrap mounts is retried with a fresh one. The race is forced by a stale first lookup."""
    import sandbox.bwrap as bwrap_module

    real = bwrap_module.host_sockets
    lookups: list[int] = []

    def stale_first() -> list[Path]:
        lookups.append(1)
        return [visible_base / "gone.sock"] if len(lookups) == 1 else real()

    monkeypatch.setattr(bwrap_module, "host_sockets", stale_first)
    repo = make_repo(visible_base / "repo", {"README.md": "hi\n"})
    with confined(repo) as c:
        result = c.run("echo ran")
    assert result.exit_code == 0 and result.output == "ran\n"
    assert len(lookups) == 2


_UNSEARCHABLE_PATH = textwrap.dedent(
    """\
    import sys
    from pathlib import Path
    from sandbox.confine import make_sandbox
    root = Path(sys.argv[1])
    box = make_sandbox("bwrap", root, warn=lambda note: print("warning:", note))
    print(box.run("echo ran", cwd=root, timeout_s=30).output, end="")
    """
)


@as_root
def test_a_non_root_harness_with_an_unsearchable_path_entry_warns_once(
    visible_base: Path,
) -> None:
    """A PATH entry under a directory the user may not enter (root's 0700 home) is left
    out with one warning, not a PermissionError traceback."""
    if not system_python_matches():
        pytest.skip("needs /usr/bin/python3 of this version and setpriv")
    closed = visible_base / "closed"
    (closed / ".tool" / "bin").mkdir(parents=True)
    closed.chmod(0o700)
    site = readable_site(visible_base)
    root = visible_base / "root"
    root.mkdir()
    root.chmod(0o777)
    entry = str(closed / ".tool" / "bin")
    done = run_as_nobody(
        _UNSEARCHABLE_PATH,
        [str(root)],
        site,
        home=closed,
        path=f"{entry}:/usr/bin:/bin",
    )
    assert "Traceback" not in done.stderr, done.stderr
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stdout.splitlines() if line.startswith("warning:")]
    assert len(warnings) == 1 and entry in warnings[0], done.stdout
    assert done.stdout.splitlines()[-1] == "ran"
