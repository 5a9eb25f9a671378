"""Kernels for student code, each in a bubblewrap sandbox that shows only what the kernel needs.

`SandboxedKernelManager` starts every grading (and self-check) kernel through `bwrap_command`: an
empty root with the allow-list bound read-only (`allowlist`, which says why each entry is there), a
bounded scratch as its only room to write, no network, its own PIDs, rlimits (`limited`) and, where
the grader may create one, a cgroup (`cgroups.KernelCgroup`). Without bubblewrap it falls back to an
ordinary kernel with the same limits and says loudly that student code is NOT isolated. What the
kernel sees and may do, the limits' defaults and the container alternative are the threat model
(docs/threat-model.md).

    >>> policy = GradingSettings(scratch_bytes=2**20, cpu_seconds=60)
    >>> cmd = bwrap_command(["python", "-m", "ipykernel_launcher"], "/tmp/w", policy, bwrap="bwrap")
    >>> cmd[:5], "--unshare-all" in cmd
    (['bwrap', '--size', '1048576', '--tmpfs', '/tmp'], True)
    >>> [cmd[i + 1] for i, a in enumerate(cmd) if a == "--ro-bind"][0]       # the allow-list's first entry
    '/usr'
"""
from __future__ import annotations

import functools
import glob
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jupyter_client import AsyncKernelManager

from ..errors import CourseError
from ..paths import hidden_from_student_code
from ..progress import log as progress_log
from . import allowlist
from .cgroups import KernelCgroup, available as cgroups_available
from .settings import GradingSettings
NOT_ISOLATED = ("WARNING: bubblewrap (bwrap) is not available, so student code runs with the grader's own "
                "permissions: it could read or change the gradebook, other submissions and the grading "
                "output. Install it (apt-get install bubblewrap) or grade inside a throwaway container; "
                "see docs/threat-model.md.")

# rlimits are set in the kernel's own process just before it starts (inside the sandbox).
# Memory is limited by RLIMIT_DATA (heap and private writable mappings: every NumPy array),
# not RLIMIT_AS, so the large read-only or PROT_NONE reservations of CUDA and PyTorch still work.
# RLIMIT_FSIZE caps any one file just above the scratch size (the connection folder is on disk).
_LIMITS = ("import os, resource, sys\n"
           "mem, cpu, fsize = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])\n"
           "if mem > 0: resource.setrlimit(resource.RLIMIT_DATA, (mem, mem))\n"
           "if cpu > 0: resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))\n"
           "if fsize > 0: resource.setrlimit(resource.RLIMIT_FSIZE, (fsize, fsize))\n"
           "os.execv(sys.argv[4], sys.argv[4:])\n")


# What a sandboxed kernel may see and use is the grading settings themselves (hide, memory_bytes,
# cpu_seconds, require_isolation, warn_unisolated): the sandbox reads no other configuration.


def default_hidden() -> list[str]:
    """Folders no student code needs: the instructor's solutions, the git history, the home folder.
    Outside the allow-list they do not exist in the sandbox anyway; should one lie inside an allowed
    folder (a course inside its environment's folder), it is emptied there."""
    out = [str(p) for p in hidden_from_student_code()]
    home = os.path.expanduser("~")
    if home not in ("/", "") and Path(home).is_dir():
        out.append(home)
    return out


@functools.lru_cache(maxsize=None)
def bwrap_path() -> str | None:
    """The bwrap executable if it exists and can build a sandbox here, else None.
    AUTOGRADER_SANDBOX=off in the environment forces the (loud) unsandboxed fallback."""
    if os.environ.get("AUTOGRADER_SANDBOX", "").lower() in ("off", "0", "no"):
        return None
    exe = shutil.which("bwrap")
    if exe is None:
        return None
    for _ in range(2):          # a busy machine can be slow to start even `true`
        try:
            probe = subprocess.run([exe, "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc",
                                    "--unshare-all", "--die-with-parent", "--new-session", "true"],
                                   capture_output=True, timeout=60)
        except subprocess.TimeoutExpired:
            continue
        except OSError:
            return None
        return exe if probe.returncode == 0 else None
    return None


def isolation_available() -> bool:
    return bwrap_path() is not None


_warned = False


def warn_not_isolated() -> None:
    """Say once per process, on stderr, that grading is not isolated."""
    global _warned
    if not _warned:
        _warned = True
        print("\n" + "!" * 78 + "\n" + NOT_ISOLATED + "\n" + "!" * 78 + "\n", file=sys.stderr, flush=True)


SHM_BYTES = 64 * 2**20      # the kernel's /dev/shm (Docker's default size), at most its scratch
IDENTITY = ".identity"       # in the working folder: the kernel's /etc/passwd and /etc/group


def write_identity(work: Path) -> None:
    """The files that name the kernel's user (`student`, home /tmp): `getpass.getuser()` and
    `~user` work inside without the machine's list of users."""
    folder = Path(work) / IDENTITY
    folder.mkdir(exist_ok=True)
    for name, text in allowlist.identity_files().items():
        (folder / name).write_text(text)


def _same_file(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _bound_trees(args: list[str]) -> list[Path]:
    return [Path(args[i + 1]) for i, a in enumerate(args) if a == "--ro-bind"]


def bwrap_command(cmd: list[str], work: str, policy: GradingSettings, bwrap: str) -> list[str]:
    """The bwrap command line that runs `cmd` in a sandbox that shows only the allow-list (read-only),
    its scratch and `work` (its only writable folder on disk):

        bwrap --size <scratch_bytes> --tmpfs /tmp                          private, bounded scratch (HOME, cwd)
              --ro-bind <path> <path>...  --symlink <target> <link>...     the allow-list, read-only
              --tmpfs <masked>... --ro-bind <path inside> <path inside>    /usr/src, /usr/local/src, checkouts: empty
              --dev /dev --proc /proc --size <64 MiB> --tmpfs /dev/shm      devices, own processes, shared memory
              --bind <work> <work>                                         a private writable working copy
              --ro-bind <work>/.identity/passwd /etc/passwd ...            who the kernel is (user "student")
              --remount-ro <emptied>... --remount-ro /dev --remount-ro /   nothing else can be created
              --unshare-all --die-with-parent --new-session                no network, own PIDs
              python -c <set rlimits> python -m ipykernel_launcher -f <work>/kernel.json

    The last line is `limited(cmd)`, which the caller passes in. Besides the allow-list's masks,
    `policy.hide` still empties a folder that lies inside an allowed one (each such tmpfs read-only)."""
    scratch = ["--size", str(policy.scratch_bytes)] if policy.scratch_bytes > 0 else []
    # The private /tmp first: a course or an environment under /tmp (as CI may clone it) is bound on top.
    args = [bwrap, *scratch, "--tmpfs", "/tmp"]
    # Folders inside an allowed tree that must look empty (sources and checkouts under /usr, this
    # course's checkout): a tmpfs each, the allowed paths inside them bound again on top.
    masks = allowlist.masked_paths()
    allowed = allowlist.mounts(allowlist.allowed_paths(masks), masks)
    args += allowed
    emptied = [Path(allowed[i + 1]) for i, a in enumerate(allowed) if a == "--tmpfs"]
    # POSIX shared memory and semaphores (multiprocessing, torch) live in /dev/shm: bounded too.
    shm = min(policy.scratch_bytes, SHM_BYTES) if policy.scratch_bytes > 0 else SHM_BYTES
    args += ["--dev", "/dev", "--proc", "/proc", "--size", str(shm), "--tmpfs", "/dev/shm"]
    # A hidden folder that an allowed one shows is emptied (outside them nothing exists to hide).
    trees, masked = _bound_trees(allowed), list(emptied)
    if os.path.isabs(cmd[0]) and not allowlist.shown(Path(os.path.dirname(cmd[0])), trees, masked):
        raise CourseError(
            f"The grading kernel cannot start in the sandbox: its Python, {cmd[0]}, lies in a folder the "
            f"sandbox does not show (it shows this Python's environment, {', '.join(map(str, allowlist.python_trees()))}); "
            f"run the course's Python by that environment's own path.")
    for h in dict.fromkeys(Path(os.path.realpath(h)) for h in policy.hide if os.path.isdir(h)):
        if allowlist.shown(h, trees, masked) and not any(h == t or h in t.parents for t in trees):
            args += ["--tmpfs", str(h)]
            emptied.append(h)
    for device in sorted(glob.glob("/dev/nvidia*")) + (["/dev/dri"] if os.path.exists("/dev/dri") else []):
        args += ["--dev-bind", device, device]         # a GPU chapter can still use the GPU
    args += ["--bind", work, work]
    for name in ("passwd", "group"):
        source = os.path.join(work, IDENTITY, name)
        if os.path.exists(source):
            args += ["--ro-bind", source, f"/etc/{name}"]
    # Nothing can be created in the root, in /dev or in an emptied folder: the scratch folders are
    # the only room to write.
    for folder in emptied:
        args += ["--remount-ro", str(folder)]
    args += ["--remount-ro", "/dev", "--remount-ro", "/", "--chdir", "/tmp",
             "--unshare-all", "--die-with-parent", "--new-session",
             "--unsetenv", "JPY_PARENT_PID",
             "--setenv", "HOME", "/tmp", "--setenv", "TMPDIR", "/tmp",
             "--setenv", "IPYTHONDIR", os.path.join(work, ".ipython"),
             "--setenv", "MPLCONFIGDIR", os.path.join(work, ".matplotlib")]
    return args + ["--"] + cmd


def limited(cmd: list[str], policy: GradingSettings) -> list[str]:
    """`cmd` started through a tiny launcher that sets the memory and CPU-time limits."""
    return [allowlist.interpreter(), "-c", _LIMITS, str(policy.memory_bytes), str(policy.cpu_seconds),
            str(policy.scratch_bytes + 2**20 if policy.scratch_bytes > 0 else 0)] + cmd


def _seed_matplotlib_cache(work: Path) -> None:
    """Copy matplotlib's font cache into the sandbox, so it is not rebuilt (or warned about) every run."""
    try:
        import matplotlib
        cache = Path(matplotlib.get_cachedir())
    except Exception:   # no matplotlib, or no cache yet: matplotlib builds one
        return
    dest = work / ".matplotlib"
    dest.mkdir(exist_ok=True)
    for f in cache.glob("fontlist-*.json"):
        shutil.copyfile(f, dest / f.name)


class SandboxedKernelManager(AsyncKernelManager):
    """A kernel manager whose kernels run in a bubblewrap sandbox (`bwrap_command`), or, where
    bubblewrap is missing, in an ordinary process with the same limits and a warning, once per run,
    that student code is NOT isolated (an error with `policy.require_isolation`).

    `policy` is set by the executor before the kernel starts. The working folder is private
    to this kernel and removed by `cleanup_resources`. A sandboxed kernel has no network, so it
    talks to the grader over Unix sockets (`ipc` transport) in that folder, and, being in its own
    session, out of reach of signals to the grader's group, it is interrupted over the control
    channel."""

    policy: GradingSettings = GradingSettings()

    def __init__(self, *args, **kwargs):
        self.work = Path(tempfile.mkdtemp(prefix="course-sandbox-")).resolve()
        (self.work / ".ipython").mkdir()
        _seed_matplotlib_cache(self.work)
        write_identity(self.work)
        self.isolated = bwrap_path() is not None
        # Its scratch is memory, so the cgroup's memory limit counts both.
        self.cgroup = KernelCgroup.create(self.policy.max_processes,
                                          self.policy.memory_bytes + self.policy.scratch_bytes)
        if self.isolated:
            kwargs.setdefault("transport", "ipc")
            kwargs.setdefault("ip", str(self.work / "k"))
        kwargs.setdefault("connection_file", str(self.work / "kernel.json"))
        super().__init__(*args, **kwargs)

    @property
    def kernel_spec(self):
        spec = super().kernel_spec
        if spec is not None and self.isolated:
            spec.interrupt_mode = "message"     # signals cannot cross into the sandbox's session
        return spec

    def format_kernel_cmd(self, extra_arguments=None):
        # The kernel spec names this Python as it was called (maybe `../.venv/bin/python`): name it
        # by a path the sandbox shows (`allowlist.interpreter`).
        cmd = [allowlist.interpreter(a) if _same_file(a, sys.executable) else a
               for a in super().format_kernel_cmd(extra_arguments)]
        cmd = limited(cmd, self.policy)
        if not self.isolated:
            if self.policy.require_isolation:
                raise RuntimeError("isolation required but bubblewrap is not available: " + NOT_ISOLATED)
            if self.policy.warn_unisolated:
                warn_not_isolated()
            return self.cgroup.enter_command(cmd)
        return self.cgroup.enter_command(bwrap_command(cmd, str(self.work), self.policy, bwrap_path()))

    async def _async_launch_kernel(self, kernel_cmd, **kw):
        kw["cwd"] = str(self.work)
        env = dict(kw.get("env") or os.environ)
        # One BLAS thread per kernel: parallel grading runs one kernel per core.
        for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
            env.setdefault(var, "1")
        if not self.isolated:
            env["IPYTHONDIR"] = str(self.work / ".ipython")
        else:           # only the variables on the allow-list: no token or key of the grader's shell
            env = allowlist.visible_environment(env)
        # A graded or self-checked copy is no learner's session, whatever the grader's shell says:
        # its drill clocks record nothing (the course's folder is read-only in here anyway).
        env[progress_log.ENV_VAR] = progress_log.OFF
        kw["env"] = env
        # The kernel's own start-up chatter would go to the grader's terminal.
        kw["stdout"] = kw["stderr"] = subprocess.DEVNULL
        return await super()._async_launch_kernel(kernel_cmd, **kw)

    async def cleanup_resources(self, restart: bool = False) -> None:
        await AsyncKernelManager.cleanup_resources(self, restart=restart)
        if not restart:
            self.cgroup.remove()
            shutil.rmtree(self.work, ignore_errors=True)


def check_sandbox() -> str:
    """One line for the grade command's header: isolated or not, and how."""
    limits = cgroups_available()
    procs = ("processes per kernel limited (cgroup pids.max)" if "pids" in limits else
             "the number of processes per kernel is NOT limited (no cgroup can be created here)")
    if isolation_available():
        return (f"student code runs in a bubblewrap sandbox ({bwrap_path()}) that shows it only the course "
                f"library, its Python environment and the system's runtime; {procs}")
    return f"student code is NOT isolated (bubblewrap missing); {procs}"


if __name__ == "__main__":    # pragma: no cover - a manual probe
    print(check_sandbox())
