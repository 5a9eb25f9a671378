"""What a student's server can see: their home, the exchange and the course's environment, nothing else.

Each student's single-user server, and so every kernel and terminal it starts, runs inside
bubblewrap with the allow-list idea of the grading sandbox (`autograder/grading/allowlist.py`): an
empty root in which exist, read-only, the system's runtime (`allowlist.SYSTEM`, with sources and
course checkouts inside it shown empty: `allowlist.masked_paths`), the files of `/etc` a server and a
terminal read (`ETC`), the students' Python, the student copy of the course code and the Jupyter
settings and app the server runs with (`course_paths`); read-write, the student's home and the
exchange (their Unix modes still apply); a private `/tmp`, a `/proc` of its own processes and a
minimal `/dev`. Another checkout of the course, a copy of `solutions/` under /tmp or /opt, the
instructor's home and classmates' homes do not exist inside.

The network is the machine's (the proxy reaches the server on 127.0.0.1 and the server talks to the
hub); its PIDs are its own, so no process outside can be reached through `/proc`. bubblewrap runs as
the student (after the spawner joined their cgroups, so the limits hold inside), in a user namespace
of its own; Check my work's sandbox (`autograder/grading/sandbox.py`) nests in it: bubblewrap makes
its own user namespace inside this one, which this one does not forbid (no `--disable-userns`).
Stopping the server (the hub, the culler) stops bubblewrap, and with it everything inside
(`--die-with-parent`; the PID namespace ends with its first process).

    >>> args = arguments(HubLayout(Path("/srv/hub")), {"JUPYTER_PATH": "/srv/share"}, bwrap="bwrap")
    >>> args[:3], args[-1], "--unshare-net" in args
    (['bwrap', '--tmpfs', '/tmp'], '--', False)
    >>> cmd = for_home(args, "/home/ann")
    >>> cmd[cmd.index("--chdir") + 1], HOME in cmd or HOME_REAL in cmd
    ('/home/ann', False)
"""
from __future__ import annotations

import glob
import os
import pwd
import shutil
import subprocess
from pathlib import Path

from ..grading import allowlist
from .layout import HubLayout

# Stand for the student's home in `arguments` (its name, and its real folder that is bound there);
# the spawner puts each student's own in their place.
HOME, HOME_REAL = "@HOME@", "@HOME_REAL@"

# The files of /etc a server and its terminals read, besides the loader's, the time zone's and the
# user lookup's (`allowlist.ETC`): who the users are (`passwd`, `group`: the prompt, `getpass`), how
# names resolve (`hosts`, `host.conf`, `resolv.conf`, `gai.conf`), file types the server sends
# (`mime.types`), the shell's and the terminal's start-up (`bash.bashrc`, `profile*`, `inputrc`,
# `terminfo`, `environment`, `shells`), the locale (`locale.alias`, `default/locale`), certificates,
# the system's name (`os-release`, `debian_version`) and the editors' and git's settings.
ETC = tuple(Path("/etc") / name for name in (
    "passwd", "group", "hosts", "host.conf", "resolv.conf", "gai.conf", "mime.types", "bash.bashrc",
    "profile", "profile.d", "inputrc", "terminfo", "environment", "shells", "locale.alias",
    "default/locale", "ssl", "ca-certificates", "os-release", "debian_version", "vim", "nanorc", "gitconfig",
    "magic", "fonts"))

MISSING = ("bubblewrap (bwrap) is not installed: each student's server runs inside it, seeing only their home, "
           "the exchange and the course (apt-get install bubblewrap)")


def python_prefixes(python: Path) -> list[Path]:
    """The installation the students' Python runs from (`sys.base_prefix`, its real folder): a venv's
    interpreter and standard library live there. Empty when that Python cannot be run (not built yet)."""
    try:
        out = subprocess.run([str(python), "-c", "import sys; print(sys.base_prefix); print(sys.base_exec_prefix)"],
                             capture_output=True, text=True, timeout=60).stdout.split()
    except (OSError, subprocess.TimeoutExpired):
        return []
    return [Path(os.path.realpath(p)) for p in dict.fromkeys(out)]


def course_paths(layout: HubLayout, env: dict[str, str]) -> list[Path]:
    """What the server runs, read-only: the students' Python and the installation it comes from, the
    student copy of the course code (`runtime.py`), and every Jupyter settings and data folder of the
    server's environment `env` (`config.server_environment`: the class's nbgrader settings, the hub's
    and the course's Jupyter settings, JupyterLab's app and extensions)."""
    jupyter = [p for key in ("JUPYTER_CONFIG_PATH", "JUPYTER_PATH") for p in env.get(key, "").split(os.pathsep)]
    jupyter.append(env.get("JUPYTERLAB_DIR", ""))
    return [layout.env, *python_prefixes(layout.python), layout.code, *(Path(p) for p in jupyter if p)]


def arguments(layout: HubLayout, env: dict[str, str], bwrap: str | None = None) -> list[str]:
    """The bubblewrap command line, up to and including `--`, that a student's server starts under,
    with `HOME` where their home goes (`for_home`):

        bwrap --tmpfs /tmp                                        a private /tmp
              --ro-bind <path> <path>... --symlink <t> <link>...  the system, /etc's files, the course: read-only
              --tmpfs <masked>... --ro-bind <inside> <inside>     sources and checkouts inside /usr: empty
              --dev /dev --proc /proc --tmpfs /dev/shm             devices, its own processes, shared memory
              --bind <exchange> <exchange>                        nbgrader's exchange (mode 777)
              --bind <home> <home> --chdir <home>                 the student's files
              --remount-ro <masked>... --remount-ro /             nothing else can be created
              --unshare-user --unshare-pid --unshare-ipc --unshare-uts --die-with-parent --new-session --
    """
    bwrap = bwrap or shutil.which("bwrap") or "bwrap"
    readable: list[Path] = []
    for path in [*allowlist.SYSTEM, *allowlist.ETC, *ETC, *course_paths(layout, env), *allowlist.gpu_trees()]:
        path = Path(os.path.abspath(path))
        if os.path.lexists(path) and path not in readable:
            readable.append(path)
    masks = allowlist.masked_paths()
    bound = allowlist.mounts(readable, masks)
    emptied = [bound[i + 1] for i, a in enumerate(bound) if a == "--tmpfs"]
    args = [bwrap, "--tmpfs", "/tmp", *bound, "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/dev/shm"]
    for device in sorted(glob.glob("/dev/nvidia*")) + (["/dev/dri"] if os.path.exists("/dev/dri") else []):
        args += ["--dev-bind", device, device]       # a GPU chapter can still use the GPU
    args += ["--bind", os.path.realpath(layout.exchange), str(layout.exchange),
             "--bind", HOME_REAL, HOME, "--chdir", HOME]
    for folder in emptied:
        args += ["--remount-ro", folder]
    return args + ["--remount-ro", "/", "--unshare-user", "--unshare-pid", "--unshare-ipc", "--unshare-uts",
                   "--die-with-parent", "--new-session", "--"]


def for_home(args: list[str], home: str) -> list[str]:
    """`arguments` for one student: their home's real folder bound at the name their server uses."""
    return [home if a == HOME else os.path.realpath(home) if a == HOME_REAL else a for a in args]


def problem() -> str | None:
    """Why students' servers cannot be confined here (bubblewrap missing, or unable to build a sandbox
    as an unprivileged user: user namespaces turned off), or None."""
    exe = shutil.which("bwrap")
    if exe is None:
        return MISSING
    run_as = {}
    if os.geteuid() == 0:           # as the students will run it: an unprivileged user
        try:
            nobody = pwd.getpwnam("nobody")
            run_as = {"user": nobody.pw_uid, "group": nobody.pw_gid, "extra_groups": []}
        except KeyError:
            pass
    try:
        probe = subprocess.run([exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--unshare-user",
                                "--unshare-pid", "--die-with-parent", "--new-session", "true"],
                               capture_output=True, text=True, timeout=60, cwd="/", **run_as)
    except (OSError, subprocess.TimeoutExpired) as err:
        return f"bubblewrap ({exe}) could not be run: {err}"
    if probe.returncode != 0:
        why = (probe.stderr.strip().splitlines() or [f"exit status {probe.returncode}"])[-1]
        return (f"bubblewrap cannot build a sandbox for an unprivileged user here ({why}); students' servers run "
                f"inside it: allow unprivileged user namespaces (sysctl user.max_user_namespaces, "
                f"kernel.unprivileged_userns_clone)")
    return None
