"""Commands under bubblewrap: the same-path view (sandbox/view.py) with the worktree as the
only writable host path, no network, own PID/IPC/UTS namespaces, and no root privileges
over the host's files (sandbox/privileges.py).

Each command gets a fresh mount list: git configs are scrubbed again (a step may have
changed them) and the host's Unix sockets are looked up again (they come and go); every
connect() the command makes is decided by the harness (sandbox/unix_sockets.py: only the
command's own Unix sockets are reachable). The
scratch files for that live in `/tmp/coder-gitconfig-<pid>-*` for the command's duration; a
harness killed before it could remove them leaves them to the next one (sandbox/scratch.py).
"""

from __future__ import annotations

import os
import shutil
import weakref
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from sandbox.acl import NOBODY_UID, grants
from sandbox.environment import sandbox_environment
from sandbox.homes import credential_files, hidden_homes, tool_dirs
from sandbox.limits import Limits
from sandbox.overlay import Layer, Overlays, choose_overlays
from sandbox.privileges import choose_privileges
from sandbox.pycview import interpreter_roots, overlaps, pyc_view
from sandbox.repo_env import RepoEnvironment, plain_environment
from sandbox.running import CommandResult, inside_root, read_reports, run_limited
from sandbox.scratch import scratch_dir, sweep_stale
from sandbox.sockets import host_sockets
from sandbox.toolconfig import ToolConfig, tool_config
from sandbox.unix_sockets import ConnectSupervisor
from sandbox.view import (
    PRIVATE_HOME,
    PRIVATE_TMP,
    REPORTS_VIEW,
    HostFacts,
    build_view,
    covered_roots,
    git_config_files,
)

SCRATCH_PREFIX = "coder-gitconfig-"
NAMESPACES = ["--unshare-net", "--unshare-pid", "--unshare-ipc", "--unshare-uts"]
_SETUP_RETRIES = 3


class BwrapSandbox:
    """Commands under bubblewrap, seeing the worktree at the checkout's path."""

    name = "bwrap"

    def __init__(
        self,
        root: Path,
        *,
        environment: RepoEnvironment | None = None,
        bwrap: str = "bwrap",
        limits: Limits | None = None,
    ) -> None:
        real = Path(os.path.realpath(root))
        shared = NOBODY_UID if grants(real) else None
        self.env = environment or plain_environment(real, shared_uid=shared)
        self.root = self.env.worktree
        self.view_root = self.env.checkout
        self.limits = limits or Limits()
        self._bwrap = shutil.which(bwrap) or bwrap
        self._bash = shutil.which("bash") or "/bin/bash"
        homes = hidden_homes(os.environ.get("HOME"))
        home_notes: list[str] = []
        tools = tool_dirs(
            os.environ.get("PATH", "").split(os.pathsep), homes, self.env.prefixes, home_notes
        )
        partial = HostFacts(homes=homes)
        git = self.env.git
        readable = [e.source for e in self.env.exposed]
        if git is not None:
            readable += [git.common_dir, git.common_dir / "objects"]
            readable += [git.worktree_dir] if git.worktree_dir else []
        self.privileges = choose_privileges(
            shared_uid=self.env.shared_uid,
            mount_point=self.env.checkout,
            readable=readable,
            covered=covered_roots(partial),
        )
        self.tool_config = _tool_config()
        self.facts = HostFacts(
            homes=homes,
            tools=tools,
            credentials=credential_files(tools),
            privileged_masks=self.privileges.masks(),
            git_configs=git_config_files(self.env),
            home=_home(),
            tool_copies=self.tool_config.copies,
            tool_binds=self.tool_config.binds,
            pycache=_pycache(self.env),
        )
        self.overlays = _writable_dependencies(self.env, self.privileges.kind, self._bwrap)
        self.notes = [*([self.privileges.note] if self.privileges.note else []), *home_notes]
        self.notes += [self.overlays.note] if self.overlays.note else []
        self.notes += [self.tool_config.note] if self.tool_config.note else []
        sweep_stale(SCRATCH_PREFIX)

    def run(
        self,
        command: str,
        *,
        cwd: Path,
        timeout_s: float,
        env: Mapping[str, str] | None = None,
    ) -> CommandResult:
        workdir = inside_root(self.root, cwd)
        environment = sandbox_environment(
            os.environ,
            env,
            home=str(PRIVATE_HOME),
            tmpdir=str(PRIVATE_TMP),
            reports=str(REPORTS_VIEW),
        )
        environment.update(self.privileges.env)
        environment.update(self.tool_config.env)
        scratch = scratch_dir(SCRATCH_PREFIX)
        reports = scratch / "reports"
        reports.mkdir()
        reports.chmod(0o777)
        try:
            for _ in range(_SETUP_RETRIES):
                sockets = host_sockets()
                supervisor = self._connect_supervisor()
                layers = self.overlays.layers()
                try:
                    writable = _merged(self.overlays, layers)
                    argv = self._argv(
                        command, workdir, scratch, sockets, supervisor.prefix, writable
                    )
                    result = run_limited(
                        command,
                        [*self.overlays.prefix(layers), *argv],
                        workdir,
                        environment,
                        timeout_s,
                        self.limits,
                        growth_roots=[self.root, reports],
                        dependency_roots=[layer.upper for layer in layers],
                        pass_fds=supervisor.pass_fds,
                    )
                finally:
                    supervisor.close()
                    self.overlays.release(layers)
                if not _socket_vanished(result, sockets):
                    break
            return replace(result, reports=read_reports(reports))
        finally:
            shutil.rmtree(scratch, ignore_errors=True)

    def _connect_supervisor(self) -> ConnectSupervisor:
        return ConnectSupervisor()

    def _argv(
        self,
        command: str,
        workdir: Path,
        scratch: Path,
        sockets: list[Path],
        launcher: list[str],
        writable: dict[Path, Path | None] | None = None,
    ) -> list[str]:
        plan = build_view(
            self.env,
            self.facts,
            tmp_bytes=self.limits.tmp_bytes,
            scratch=scratch,
            sockets=sockets,
            writable=writable,
        )
        caps = ["--cap-drop", "ALL"] if self.privileges.cap_drop else []
        return [
            self._bwrap,
            "--die-with-parent",
            "--new-session",
            *NAMESPACES,
            *caps,
            *plan.argv(),
            "--chdir",
            str(self.env.view_path(workdir)),
            "--",
            *launcher,
            *self.privileges.prefix,
            self._bash,
            "-c",
            command,
        ]


def _home() -> Path | None:
    home = os.environ.get("HOME")
    return Path(os.path.realpath(home)) if home and os.path.isabs(home) else None


def _tool_config() -> ToolConfig:
    """The harness user's tool configuration, scrubbed, once per sandbox."""
    found = tool_config(_home())
    if found.scratch is not None:
        weakref.finalize(found, shutil.rmtree, found.scratch, True)
    return found


def _writable_dependencies(env: RepoEnvironment, kind: str, bwrap: str) -> Overlays:
    """How the exposed dependency directories become writable for this sandbox's commands."""
    uid = NOBODY_UID if kind == "nobody" else os.geteuid()
    return choose_overlays([e.source for e in env.exposed], command_uid=uid, bwrap=bwrap)


def _merged(overlays: Overlays, layers: list[Layer]) -> dict[Path, Path | None]:
    """Exposed source -> what the view binds writable there (None: bwrap's tmp-overlay)."""
    if overlays.kind == "bwrap":
        return dict.fromkeys(overlays.sources)
    return {layer.source: layer.merged for layer in layers}


def _pycache(env: RepoEnvironment) -> Path | None:
    """The interpreter's bytecode view, unless the checkout lies among the directories it
    mirrors (its own bytecode would be in it)."""
    roots = interpreter_roots()
    if overlaps(roots, env.checkout) or overlaps(roots, env.worktree):
        return None
    return pyc_view()


def probe_argv(bwrap: str) -> list[str]:
    """The smallest command line that needs what every confined command needs."""
    return [
        bwrap,
        "--die-with-parent",
        *NAMESPACES,
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--perms",
        "1777",
        "--tmpfs",
        "/tmp",
        "--",
        "true",
    ]


def _socket_vanished(result: CommandResult, sockets: list[Path]) -> bool:
    """bwrap could not mask a socket that went away between the lookup and the mount."""
    return (
        result.exit_code == 1
        and result.output.startswith("bwrap: ")
        and any(not os.path.lexists(s) for s in sockets)
    )
