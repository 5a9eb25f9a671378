"""The hub process: started in the background, waited for, stopped with everything it started.

JupyterHub runs as root (it starts each user's server as that user), from the course's
environment, in its private folder; its log is `private/hub.log`. `stop` sends SIGTERM (the hub
then stops the users' servers and its proxy: `cleanup_servers`), waits, and kills what is left of
its process group.

    >>> port = free_port()
    >>> 1024 < port < 65536
    True
"""
from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

from ..errors import CourseError
from .layout import HubLayout


def free_port(ip: str = "127.0.0.1") -> int:
    """A port nothing listens on now (the kernel picks it)."""
    with socket.socket() as s:
        s.bind((ip, 0))
        return s.getsockname()[1]


def _answers(url: str) -> bool:
    try:
        with urllib.request.urlopen(url, timeout=3) as resp:
            return resp.status == 200
    except (urllib.error.URLError, OSError):
        return False


def start(layout: HubLayout, url: str, timeout: float = 180) -> int:
    """Start JupyterHub on `layout`'s config and wait until `url`/hub/api answers; its pid."""
    env = dict(os.environ, PATH=f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}")
    env.pop("PYTHONPATH", None)
    with open(layout.log, "ab") as log:
        proc = subprocess.Popen([sys.executable, "-m", "jupyterhub", "-f", str(layout.hub_config)],
                                cwd=layout.private, stdout=log, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    deadline = time.monotonic() + timeout
    while not _answers(f"{url}/hub/api"):
        if proc.poll() is not None:
            tail = layout.log.read_text(errors="replace").strip().splitlines()[-5:]
            raise CourseError("the hub stopped at start (see " + str(layout.log) + "): " + " / ".join(tail)[-600:])
        if time.monotonic() > deadline:
            stop_pid(proc.pid)
            raise CourseError(f"the hub did not answer on {url} within {timeout:.0f} s (see {layout.log})")
        time.sleep(0.5)
    return proc.pid


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie of ours counts as gone.
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(") ")[1][0] != "Z"
    except (OSError, IndexError):
        return False


def terminate(pid: int, wait: float, group: bool = False) -> bool:
    """SIGTERM `pid`, give it `wait` seconds, then SIGKILL it (its whole process group when `group`) and
    wait until it is gone, so that its ports are free when this returns. True if it was running."""
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return False
    _wait_until(lambda: not alive(pid), wait)
    try:
        (os.killpg if group else os.kill)(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        os.waitpid(pid, os.WNOHANG)             # reap it when it is our child (the hub `start` started)
    except ChildProcessError:
        pass
    # A kill is delivered, not waited for: return once nothing of it is left to hold a port.
    _wait_until((lambda: not group_members(pid)) if group else (lambda: not alive(pid)), wait)
    return True


def _wait_until(done, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        time.sleep(0.1)


def stop_pid(pid: int, wait: float = 30.0) -> bool:
    """Stop the hub (`pid` leads its own process group) and anything it left in its group; True if it was running."""
    return bool(pid) and alive(pid) and terminate(pid, wait, group=True)


PROXY_PID_FILE = "jupyterhub-proxy.pid"   # JupyterHub's name for it, written in the hub's working directory


def hub_leftovers(layout: HubLayout) -> list[int]:
    """The processes JupyterHub started in sessions of their own from this hub's folder and that still run.

    JupyterHub starts configurable-http-proxy and its managed services (the idle culler) with
    `start_new_session=True` and stops them only when it shuts down cleanly: a hub killed on a busy
    machine leaves the proxy holding the hub's ports and the culler polling a dead API. Both run in the
    hub's working directory, its private folder; they are told apart from a person's shell there by
    their command (the proxy) or JupyterHub's service variable in their environment (a service).
    """
    private = str(layout.private.resolve())
    found = []
    for proc in Path("/proc").glob("[0-9]*"):
        try:
            if os.readlink(proc / "cwd").removesuffix(" (deleted)") != private:
                continue
            command, environ = (proc / "cmdline").read_bytes(), b"\0" + (proc / "environ").read_bytes()
        except OSError:
            continue                                       # it ended while we looked, or it is not ours to read
        if b"configurable-http-proxy" in command or b"\0JUPYTERHUB_SERVICE_NAME=" in environ:
            found.append(int(proc.name))
    return found


def stop_leftovers(layout: HubLayout, wait: float = 10.0) -> list[int]:
    """Stop what `hub_leftovers` finds (after the hub itself is stopped); the pids stopped."""
    stopped = [pid for pid in hub_leftovers(layout) if pid != os.getpid() and terminate(pid, wait)]
    (layout.private / PROXY_PID_FILE).unlink(missing_ok=True)
    return stopped


def group_members(pgid: int) -> list[int]:
    """The live (not zombie) processes of process group `pgid`, read from /proc.

        >>> group_members(os.getpgid(0)) != []
        True
    """
    members = []
    for stat_file in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat_file.read_text().rsplit(")", 1)[1].split()   # after "pid (comm)": state, ppid, pgrp, ...
        except (OSError, IndexError):
            continue                                                    # the process ended while we looked
        if fields[0] != "Z" and int(fields[2]) == pgid:
            members.append(int(stat_file.parent.name))
    return members
