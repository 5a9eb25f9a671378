"""Start, stop and clean up a class on one machine.

`start(roster, layout, settings)`:
 1. preflight: the hub's packages installed at their pins, the proxy installed, bubblewrap able to
    confine an unprivileged user's server (`confine.py`; without it the hub refuses to start);
 2. users created or reused (homes 700), each created one with a generated password of their own
    (`private/passwords.txt`, root only; a reused user keeps theirs), the students' Python and
    code (read-only for them), `solutions/` and the repository's history closed to everyone but
    their owner (group bits too: a student in the checkout's group must not read them either);
 3. the exchange (mode 777), each student's memory and CPU limit (`limits.py`) and start page
    (written by their Python inside the sandbox their server runs in), the configs, the
    instructor's course directory;
 4. the course config checked as the instructor, with the students' Python (it must import
    `autograder`, or nbgrader would fall back to its defaults), then the hub started.
`stop` stops the hub and every server it started and removes the limits' cgroups; `cleanup` gives the machine back: it also removes
the users the hub created (killing their processes first: `userdel` refuses otherwise), the
instructor's course directory and the state folder, and puts back every mode `start` changed.
Users that existed before are kept.

Every mode `start` changes (`solutions/`, `.git`, a reused user's home) is recorded first, in the
state file's `modes` (path: original mode, octal), before the change; a second `start` keeps the
first record, so `cleanup` restores the modes from before the first start.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import stat
from dataclasses import asdict
from pathlib import Path

from ..errors import CourseError
from ..grading.preflight import EXTRAS_OF, config_problem, environment_problem
from ..paths import GIT_DIR, SOLUTIONS_DIR
from . import config, confine, exchange, limits, runtime, server, users
from .config import HubSettings
from .layout import HubLayout
from .roster import Roster


def _say(line: str) -> None:
    print(line, flush=True)


def read_state(layout: HubLayout) -> dict:
    try:
        return json.loads(layout.state.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def _write_state(layout: HubLayout, state: dict) -> None:
    layout.state.write_text(json.dumps(state, indent=1), encoding="utf-8")
    os.chmod(layout.state, 0o600)


def _mode(path: Path) -> int | None:
    try:
        return stat.S_IMODE(os.lstat(path).st_mode)
    except OSError:
        return None


def remember_mode(state: dict, path: Path) -> None:
    """Record `path`'s mode in `state["modes"]` unless an earlier start recorded it (the original)."""
    mode = _mode(path)
    if mode is not None:
        state.setdefault("modes", {}).setdefault(str(path), format(mode, "04o"))


def close_to_others(path: Path) -> bool:
    """Remove every permission of the group and of other users on `path` (a folder of
    instructor-only files): only its owner (and root) may enter it. True if it was open."""
    mode = _mode(path)
    if mode is None or stat.S_ISLNK(os.lstat(path).st_mode) or not mode & 0o077:
        return False
    os.chmod(path, mode & ~0o077)
    return True


def restore_modes(state: dict) -> list[str]:
    """Put back every mode recorded by `start`; the paths restored."""
    done = []
    for path, mode in state.get("modes", {}).items():
        current = _mode(Path(path))
        if current is None or stat.S_ISLNK(os.lstat(path).st_mode):
            continue
        if current != int(mode, 8):
            os.chmod(path, int(mode, 8))
        done.append(path)
    return done


def read_passwords(layout: HubLayout) -> dict[str, str]:
    """The generated passwords of `layout.passwords` ("user password" lines; # comments)."""
    try:
        lines = layout.passwords.read_text(encoding="utf-8").splitlines()
    except OSError:
        return {}
    return dict(line.split(None, 1) for line in lines if line.strip() and not line.startswith("#"))


def give_passwords(layout: HubLayout, roster: Roster, created: set[str]) -> dict[str, str]:
    """A generated password for each user this hub created (kept across restarts), set with
    chpasswd and written to `layout.passwords` (root only); users who existed before keep their own."""
    known = read_passwords(layout)
    for user in roster.users:
        if user in created and user not in known:
            known[user] = secrets.token_urlsafe(9)
            users.set_password(user, known[user])
    lines = ["# Written by `hub start`: each person's login to the hub; hand each their own line."]
    lines += [f"{u} {known[u]}" for u in roster.users if u in known]
    lines += [f"# {u}: an existing user, logs in with their own Unix password" for u in roster.users
              if u not in known]
    layout.passwords.write_text("\n".join(lines) + "\n", encoding="utf-8")
    os.chmod(layout.passwords, 0o600)
    return known


START_PAGE_SCRIPT = """import re, sys
from pathlib import Path
from autograder.learner.learn import write_for_learner
from autograder.learner.start import start_notebook
home = Path(sys.argv[1])
nb = start_notebook(home)
for cell in nb.cells:   # nbgrader fetches a chapter into a folder of its name
    if cell.cell_type == "markdown":
        cell.source = re.sub(r"\\]\\(([0-9]{2}_\\w+)\\.ipynb\\)", r"](\\1/\\1.ipynb)", cell.source)
        cell.source = cell.source.replace("(`./course lab`)", "(each time the hub starts)")
write_for_learner(nb, home / sys.argv[2])
"""


def write_start_page(layout: HubLayout, student: str) -> str | None:
    """The start page in `student`'s home, written as them with their server's Python inside the
    sandbox their server runs in (`confine.py`; its links go to the chapters where nbgrader fetches
    them: `02_greedy_speculation/02_greedy_speculation.ipynb`); None, or why it could not be written."""
    from ..paths import START_PAGE_NAME

    home = str(layout.home(student))
    env = dict(config.server_environment(layout, instructor=False), COURSE_LAB_DIR=home)
    sandbox = confine.for_home(confine.arguments(layout, env), home)
    proc = users.run_as(student, [*sandbox, str(layout.python), "-c", START_PAGE_SCRIPT, home, START_PAGE_NAME],
                        env=env, timeout=300)
    return None if proc.returncode == 0 else (proc.stderr.strip().splitlines() or ["?"])[-1]


def start(roster: Roster, layout: HubLayout, settings: HubSettings) -> dict:
    if os.geteuid() != 0:
        raise CourseError("the hub must be started as root (it creates users and starts their servers as them)")
    problem = environment_problem(extras=EXTRAS_OF["hub"])     # the hub's packages, its grading's too
    if problem:
        raise CourseError(f"the hub refused to start: {problem}.")
    config.proxy_command()
    problem = confine.problem()
    if problem:
        raise CourseError(f"the hub refused to start: {problem}.")
    old = read_state(layout)
    if old.get("pid") and server.alive(old["pid"]):
        raise CourseError(f"a hub is already running from {layout.root} (pid {old['pid']}): "
                          f"python -m autograder hub stop --state {layout.root}")
    layout.root.mkdir(parents=True, exist_ok=True)
    os.chmod(layout.root, 0o755)
    layout.private.mkdir(exist_ok=True)
    os.chmod(layout.private, 0o700)
    created = set(old.get("created", []))
    state = {"roster": asdict(roster), "settings": asdict(settings), "created": sorted(created),
             "root": str(layout.root), "modes": dict(old.get("modes", {}))}
    # Every mode this start changes, recorded before it is changed (cleanup puts them back).
    for user in roster.users:
        if users.exists(user) and user not in created:
            remember_mode(state, layout.home(user))
    for private in (SOLUTIONS_DIR, GIT_DIR):
        remember_mode(state, private)
    _write_state(layout, state)
    for user in roster.users:
        if users.ensure_user(user):
            created.add(user)
            _say(f"{user}: user created (home {layout.home(user)}, mode 700)")
        elif user in created:
            _say(f"{user}: user already created by this hub (home mode 700)")
        else:
            _say(f"{user}: existing user reused, kept at cleanup (home {layout.home(user)} set to mode 700, "
                 f"its mode put back at cleanup)")
    state["created"] = sorted(created)
    _write_state(layout, state)
    give_passwords(layout, roster, created)
    for private in (SOLUTIONS_DIR, GIT_DIR):
        if close_to_others(private):
            _say(f"{private}: closed to everyone but its owner, group included (students must not read the "
                 f"solutions; cleanup puts its mode back)")
    note = runtime.build(layout)
    if note:
        _say(note[0].upper() + note[1:])
    exchange.lay_out(layout.exchange)
    _say(f"exchange: {layout.exchange} (mode 777)")
    cgroups = {s: limits.make(s, limits.parse_bytes(settings.mem_limit), settings.cpu_limit) for s in roster.students}
    state["cgroups"] = cgroups
    _write_state(layout, state)
    if all(cgroups.values()):
        _say(f"limits: each student's server and kernels at most {settings.mem_limit} of memory and "
             f"{settings.cpu_limit:g} CPU(s); idle servers stopped after {settings.idle_timeout} s"
             + (" (never: --idle-timeout 0)" if settings.idle_timeout <= 0 else ""))
    else:
        _say("limits: NOT enforced: no control group could be made here (root with cgroup v1, or a "
             "delegated cgroup v2 subtree, needed); one student's runaway cell can take the machine")
    _say("sandbox: each student's server, its kernels and terminals run in bubblewrap, seeing only their home, "
         "the exchange and the course's environment (read-only); nothing else on the machine exists there")
    for student in roster.students:
        problem = write_start_page(layout, student)
        if problem:
            _say(f"{student}: no start page ({problem}); their server opens on JupyterLab's launcher")
    config.write_all(roster, layout, settings, cgroups)
    course_dir = config.write_course_dir(roster, layout)
    env = dict(config.server_environment(layout, instructor=True))
    problem = config_problem(course_dir / "nbgrader_config.py", python=str(layout.python), env=env,
                             user=roster.instructor)
    if problem:
        raise CourseError(f"the hub refused to start: {problem}.")
    state["pid"] = server.start(layout, f"http://127.0.0.1:{settings.port}" if settings.ip == "0.0.0.0"
                                else settings.url)
    _write_state(layout, state)
    _say(f"hub: {settings.url} (pid {state['pid']}); each person logs in with their own password: "
         f"{layout.passwords} (root only) lists them, one line each to hand out")
    return state


def stop(layout: HubLayout) -> None:
    state = read_state(layout)
    if server.stop_pid(state.get("pid", 0)):
        _say(f"hub stopped (pid {state['pid']})")
    else:
        _say("no hub was running")
    for pid in server.stop_leftovers(layout):
        _say(f"pid {pid}, which the hub started (its proxy or a service) and left running, stopped")
    for user in state.get("created", []):
        n = users.kill_processes(user)
        if n:
            _say(f"{user}: {n} process(es) stopped")
    for procs in state.pop("cgroups", {}).values():
        limits.remove(procs)
    state.pop("pid", None)
    if layout.private.is_dir():
        _write_state(layout, state)


def cleanup(layout: HubLayout) -> None:
    state = read_state(layout)
    if not state:
        raise CourseError(f"no hub state in {layout.root} (nothing to clean up)")
    stop(layout)
    roster = state.get("roster", {})
    instructor, course = roster.get("instructor"), roster.get("course")
    for user in state.get("created", []):
        users.remove_user(user)
        _say(f"{user}: user and home removed")
    if instructor and course and instructor not in state.get("created", []):
        shutil.rmtree(layout.course_dir(instructor, course), ignore_errors=True)
        _say(f"{instructor}: course directory {layout.course_dir(instructor, course)} removed")
    for path in restore_modes(state):
        _say(f"{path}: mode {state['modes'][path]} put back")
    shutil.rmtree(layout.root, ignore_errors=True)
    _say(f"{layout.root}: removed")
