"""Unix users of a class: created (or reused), homes closed to others, removed with their processes.

`useradd` makes homes mode 755 on Debian, so classmates could read each other's work: every home
is set to 700. Each user the hub creates gets a generated password of their own (`set_password`,
through `chpasswd`, so PAM, JupyterHub's default authenticator, checks it); a user who existed
before keeps theirs. `userdel` refuses a user who still runs processes (a server, a kernel), so
`remove_user` kills them first and waits until they are gone.
"""
from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import time
from pathlib import Path

from ..errors import CourseError


def exists(user: str) -> bool:
    try:
        pwd.getpwnam(user)
        return True
    except KeyError:
        return False


def ensure_user(user: str) -> bool:
    """Create `user` (home, bash) unless it exists; close the home to others. True if created."""
    created = False
    if not exists(user):
        proc = subprocess.run(["useradd", "--create-home", "--shell", "/bin/bash", user],
                              capture_output=True, text=True)
        if proc.returncode != 0:
            raise CourseError(f"could not create the user {user}: {proc.stderr.strip() or proc.returncode}")
        created = True
    entry = pwd.getpwnam(user)
    home = Path(entry.pw_dir)
    home.mkdir(parents=True, exist_ok=True)
    os.chown(home, entry.pw_uid, entry.pw_gid)
    os.chmod(home, 0o700)
    return created


def set_password(user: str, password: str) -> None:
    """Set `user`'s Unix password (chpasswd reads "user:password" on its standard input)."""
    chpasswd = shutil.which("chpasswd") or shutil.which("chpasswd", path="/usr/sbin:/sbin") or "chpasswd"
    proc = subprocess.run([chpasswd], input=f"{user}:{password}\n", capture_output=True, text=True)
    if proc.returncode != 0:
        raise CourseError(f"could not set the password of {user}: {proc.stderr.strip() or proc.returncode}")


def runuser() -> str:
    """`runuser` by its full path: the environments handed to it hold no sbin folder."""
    return shutil.which("runuser") or shutil.which("runuser", path="/usr/sbin:/sbin") or "runuser"


def run_as(user: str, cmd: list[str], *, env: dict | None = None, cwd: Path | None = None,
           timeout: float = 600) -> subprocess.CompletedProcess:
    """Run `cmd` as `user` (runuser, no login shell: `env` is passed as is), capturing its output."""
    entry = pwd.getpwnam(user)
    env = dict(env or os.environ)
    env.update(HOME=entry.pw_dir, USER=user, LOGNAME=user)
    return subprocess.run([runuser(), "-u", user, "--"] + cmd, capture_output=True, text=True,
                          env=env, cwd=str(cwd or entry.pw_dir), timeout=timeout)


def processes(user: str, zombies: bool = False) -> list[int]:
    """The pids of `user`'s processes. Zombies (already dead, waiting for their parent to collect
    their exit status) are left out unless asked for: no signal removes them, so waiting for them
    to go would wait on a parent that is not the user's."""
    import psutil

    found = []
    for proc in psutil.process_iter(["pid", "username", "status"]):
        if proc.info["username"] == user and (zombies or proc.info["status"] != psutil.STATUS_ZOMBIE):
            found.append(proc.info["pid"])
    return sorted(found)


def kill_processes(user: str, wait: float = 15.0) -> int:
    """Kill every process of `user` (SIGKILL) and wait until none is left; how many there were."""
    if not exists(user):
        return 0
    found = processes(user)
    deadline = time.monotonic() + wait
    while processes(user):
        subprocess.run(["pkill", "-KILL", "-u", user], capture_output=True)
        if time.monotonic() > deadline:
            raise CourseError(f"the processes of {user} did not stop: {processes(user)}")
        time.sleep(0.2)
    return len(found)


def remove_user(user: str) -> None:
    """Kill `user`'s processes, then delete the user and their home."""
    if not exists(user):
        return
    kill_processes(user)
    # Only zombies can be left: userdel counts them as running, and --force is safe with nothing alive.
    force = ["--force"] if processes(user, zombies=True) else []
    proc = subprocess.run(["userdel", *force, "--remove", user], capture_output=True, text=True)
    if proc.returncode not in (0, 12):        # 12: home or mail spool already gone
        raise CourseError(f"could not remove the user {user}: {proc.stderr.strip() or proc.returncode}")
