"""What a grading kernel can see: an allow-list, each entry with the reason it is there.

A sandboxed kernel (`sandbox.bwrap_command`) starts from an empty root and gets, read-only, exactly
`allowed_paths()`, with the folders of `masked_paths()` shown empty, and the environment variables
`visible_environment` keeps; nothing else on the machine exists inside it. Each constant and
function below says why its entries are there. What this defends against, and the summary a
grader reads, is the threat model (docs/threat-model.md).

    >>> visible_environment({"PATH": "/usr/bin", "SPECDEC_LAB_PRESET": "test", "AWS_SECRET_ACCESS_KEY": "x"})
    {'PATH': '/usr/bin', 'SPECDEC_LAB_PRESET': 'test'}
    >>> [str(p) for p in SYSTEM][:1]
    ['/usr']
    >>> all(p.is_absolute() for p in allowed_paths())
    True
    >>> from ..paths import REPO_ROOT
    >>> any(p == REPO_ROOT or p == REPO_ROOT / "solutions" for p in allowed_paths())
    False
"""
from __future__ import annotations

import glob
import os
import site
import sys
from pathlib import Path

from ..paths import LAB12_RECORD, PACKAGE_DIR, REPO_ROOT

# The system's runtime: `/usr` holds the programs, the C library and every shared library the Python
# extensions load (BLAS, libstdc++, libgomp), locales and time zones; `/bin`, `/sbin`, `/lib*` are, on
# a merged-/usr system, links into it (recreated as links). Parts of it are shown empty: `masked_paths`.
SYSTEM = (Path("/usr"), Path("/bin"), Path("/sbin"), Path("/lib"), Path("/lib32"), Path("/lib64"), Path("/libx32"))

# A few files of `/etc`: the dynamic loader's cache and configuration (`ld.so.*`: where shared
# libraries are; `ctypes.util.find_library`, used by torch, reads it through `ldconfig`), the time zone
# (`localtime`, `timezone`: `time.localtime`, datetime), how users are looked up (`nsswitch.conf`, read
# by the C library with the generated `passwd`/`group`, `identity_files`), and Debian's `alternatives`
# (links into `/usr` naming the chosen BLAS/LAPACK).
ETC = tuple(Path("/etc") / name for name in (
    "ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "timezone", "nsswitch.conf", "alternatives"))

# The parts of a Python environment (venv or conda) that the interpreter and its packages use,
# bound one by one when the environment's folder also holds the course.
ENVIRONMENT_PARTS = ("bin", "lib", "lib64", "include", "share", "etc", "ssl", "libexec", "conda-meta",
                     "pyvenv.cfg", "x86_64-conda-linux-gnu", "aarch64-conda-linux-gnu")

COURSE_PACKAGES = ("specdec", "widgets")

# Chapter 12's recorded full run, relative to the course's root (autograder.paths): the one file of
# `benchmarks/` that `specdec.engine.lab_record` reads, printing it beside a short run, so a graded or
# self-checked chapter 12 shows it as a learner's does; the hub's copy of the code carries it too.
LAB_RECORD = LAB12_RECORD

# Where sources (and so checkouts of a course) are kept inside `/usr`: shown empty.
SOURCE_TREES = (Path("/usr/src"), Path("/usr/local/src"))
# What makes a folder a course checkout or a grading folder (shown empty wherever it is found).
CHECKOUT_MARKS = ("solutions", "gradebook.db")

# The modules of `autograder` that run inside the kernel: what the notebooks' setup and test cells
# import (stats, recording_rng, calls, delegation, progress), what the grader's guard runs there
# (integrity, graded_output), the Check my work cell (learner.notebook_check) and what these import.
KERNEL_MODULES = ("__init__.py", "calls.py", "delegation.py", "errors.py", "graded_output.py", "integrity.py",
                  "paths.py", "recording_rng.py", "stats.py", "progress", "learner/__init__.py",
                  "learner/notebook_check.py")


# The variables a kernel gets: where Python, its packages and libraries are, how many threads to use,
# the locale, the GPU and the course's own settings; not the grader's others (a token, a password, a
# cloud key a shell may hold).
ENVIRONMENT = (
    "PATH", "PYTHONPATH", "PYTHONWARNINGS", "PYTHONHASHSEED", "PYTHONIOENCODING", "PYTHONUTF8",
    "PYTHONDONTWRITEBYTECODE", "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV", "LD_LIBRARY_PATH",
    "MPLBACKEND", "LANG", "LANGUAGE", "TZ", "TERM",
    "OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS",
    "CUDA_VISIBLE_DEVICES", "CUDA_DEVICE_ORDER", "NVIDIA_VISIBLE_DEVICES", "NVIDIA_DRIVER_CAPABILITIES",
    "HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE")
ENVIRONMENT_PREFIXES = ("LC_", "SPECDEC_", "PYTORCH_")


def visible_environment(env: dict) -> dict:
    """The variables of `env` a kernel gets: those named in `ENVIRONMENT` or starting with one of
    `ENVIRONMENT_PREFIXES`."""
    return {k: v for k, v in env.items() if k in ENVIRONMENT or k.startswith(ENVIRONMENT_PREFIXES)}


def _inside(path: Path, tree: Path) -> bool:
    return path == tree or tree in path.parents


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def interpreter(executable: str | None = None) -> str:
    """The path by which a sandboxed kernel can start this Python: absolute, without `..`, each
    folder on the way resolved (a `.venv` that is a link to an environment elsewhere), the file name
    kept. The sandbox binds real folders only, so `learner/../.venv/bin/python` (a relative path) or
    `.venv/bin/python` through a linked `.venv` names nothing inside it. The file itself is not
    resolved: a venv's `bin/python` is a link to the base interpreter, and starting that by its real
    path would leave the venv.

    >>> interpreter("/usr/bin/../bin/python3") == os.path.join(os.path.realpath("/usr/bin"), "python3")
    True
    """
    exe = os.path.abspath(executable or sys.executable)
    return os.path.join(os.path.realpath(os.path.dirname(exe)), os.path.basename(exe))


def python_trees() -> list[Path]:
    """This interpreter's installation and environment (their real folders), plus its user site.

    The interpreter's prefixes (a venv, a conda environment or pyenv's Python, wherever they live, even
    under a home folder or inside the checkout: exactly that folder, not its parent), and a user
    site-packages folder when this Python uses one. Where an environment folder holds the course
    itself, only its environment parts are given (`ENVIRONMENT_PARTS`), never the course beside them."""
    prefixes = {sys.prefix, sys.exec_prefix, sys.base_prefix, sys.base_exec_prefix,
                str(Path(os.path.realpath(sys.executable)).parent.parent)}
    trees = [_real(Path(p)) for p in sorted(prefixes)]
    if site.ENABLE_USER_SITE:
        user = Path(site.getusersitepackages())
        if str(user) in sys.path and user.is_dir():
            trees.append(_real(user))
    out = []
    for tree in trees:
        if _inside(REPO_ROOT, tree):          # an environment folder that holds the course
            out += [tree / part for part in ENVIRONMENT_PARTS if (tree / part).exists()]
        else:
            out.append(tree)
    return out


def course_library(root: Path | None = None, package: Path | None = None) -> list[Path]:
    """The course's own code that notebooks import: `specdec/`, `widgets/`, the kernel's `autograder`
    (`KERNEL_MODULES`), and chapter 12's recorded run (`LAB_RECORD`). Not the rest of the checkout:
    not `solutions/`, `tests/`, `chapters/`, `.git`, the grading code, the rest of `benchmarks/`."""
    root, package = root or REPO_ROOT, package or PACKAGE_DIR
    return ([root / name for name in COURSE_PACKAGES] + [package / name for name in KERNEL_MODULES]
            + [root / LAB_RECORD])


def _is_checkout(folder: Path) -> bool:
    try:
        return folder.is_dir() and not folder.is_symlink() and any(
            os.path.lexists(folder / mark) for mark in CHECKOUT_MARKS)
    except OSError:
        return False


def _children(folder: Path) -> list[Path]:
    try:
        return [Path(e.path) for e in os.scandir(folder) if e.is_dir(follow_symlinks=False)]
    except OSError:
        return []


def masked_paths(root: Path | None = None, local: Path = Path("/usr/local")) -> list[Path]:
    """Folders that lie inside an allowed tree (`/usr`) yet must look empty to a kernel (their real
    paths, those that exist): `SOURCE_TREES`, the course's own checkout, and every folder up to two
    levels below `local` that holds `solutions/` or a `gradebook.db`. `mounts` lays an empty
    tmpfs over each that an allowed tree shows, then binds again what is allowed inside it."""
    root = root or REPO_ROOT
    found = [*SOURCE_TREES, root]
    for child in _children(local):
        found += [child] if _is_checkout(child) else [g for g in _children(child) if _is_checkout(g)]
    out: list[Path] = []
    for path in found:
        path = _real(path)
        if path.is_dir() and path not in out:
            out.append(path)
    return out


def _deepest(path: Path, trees) -> Path | None:
    inside = [t for t in trees if _inside(path, t)]
    return max(inside, key=lambda t: len(t.parts)) if inside else None


def shown(path: Path, bound, masks) -> bool:
    """True if `path` is visible in a sandbox that binds `bound` and lays `masks` over them: the
    deepest of them that holds it is a bound tree."""
    tree, mask = _deepest(path, bound), _deepest(path, masks)
    return tree is not None and (mask is None or len(tree.parts) > len(mask.parts))


def model_trees() -> list[Path]:
    """Model weights named by the instructor: `$SPECDEC_GPT2_DIR`, where chapter 12 looks for GPT-2 on
    a GPU, when it is set."""
    where = os.environ.get("SPECDEC_GPT2_DIR")
    return [Path(where)] if where else []


def gpu_trees() -> list[Path]:
    """`/sys`, where the CUDA driver reads the devices' topology, only where `/dev/nvidia*` exists (the
    device files themselves are bound by the sandbox)."""
    return [Path("/sys")] if glob.glob("/dev/nvidia*") else []


def allowed_paths(masks: list[Path] | None = None) -> list[Path]:
    """Every path the kernel sees read-only (by that name), in the order they are bound; those that do
    not exist here are left out, and so is a path inside an earlier one, unless it lies in one of
    `masks` (default `masked_paths()`) inside that one: it is bound again over the mask."""
    masks = masked_paths() if masks is None else masks
    out: list[Path] = []
    for path in [*SYSTEM, *ETC, *python_trees(), *course_library(), *model_trees(), *gpu_trees()]:
        path = Path(os.path.abspath(path))
        if not os.path.lexists(path):
            continue
        if shown(path, out, masks):
            continue
        out.append(path)
    return out


def mounts(paths: list[Path], masks: list[Path] = ()) -> list[str]:
    """bubblewrap arguments that make each of `paths` visible read-only at its own name: each link on
    the way to it is recreated as a link (`/lib -> usr/lib`, a home folder that is a link), and the
    real folder or file it leads to is bound there, unless an earlier path already shows it.

    Each of `masks` (real paths) that a bound tree shows is then covered by an empty tmpfs
    (`--tmpfs`; the sandbox makes it read-only last), and the paths that lie inside it are bound on top."""
    args: list[str] = []
    bound: list[Path] = []
    laid: list[Path] = []
    made: set[Path] = set()

    def bind(path: Path) -> None:
        here = Path("/")
        for part in path.parts[1:]:
            step = here / part
            if shown(step, bound, laid):       # inside what is already visible
                here = step
                continue
            if step.is_symlink():
                if step not in made:
                    made.add(step)
                    args.extend(["--symlink", os.readlink(step), str(step)])
                here = _real(step)
            else:
                here = step
        if not here.exists() or shown(here, bound, laid):
            return
        bound.append(here)
        args.extend(["--ro-bind", str(here), str(here)])

    masks = [Path(m) for m in masks]
    under = [p for p in paths if _deepest(_real(p), masks) is not None]
    for path in paths:
        if path not in under:
            bind(path)
    for mask in masks:
        if shown(mask, bound, laid) and not any(_inside(b, mask) for b in bound):
            laid.append(mask)
            args += ["--tmpfs", str(mask)]
    for path in under:
        bind(path)
    return args


def identity_files(uid: int | None = None, gid: int | None = None) -> dict[str, str]:
    """`/etc/passwd` and `/etc/group` of the kernel: one user (its own uid, home /tmp), one group."""
    uid = os.getuid() if uid is None else uid
    gid = os.getgid() if gid is None else gid
    return {"passwd": f"student:x:{uid}:{gid}:student:/tmp:/bin/sh\n", "group": f"student:x:{gid}:\n"}
