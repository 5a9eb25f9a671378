"""The files a hub runs from: JupyterHub's configuration, nbgrader's for students and instructor.

`write_all` writes, for a roster and a `HubSettings`:

* `private/jupyterhub_config.py` (root only): the hub, its proxy and every server on `ip`
  (127.0.0.1 unless told otherwise); PAM, JupyterHub's default authenticator, so each person logs
  in with their own Unix password (`start` generates one per user it creates: `users.py`); the
  proxy's token (the cookie secret JupyterHub makes itself in `private/`); servers run by each
  user with the students' Python, each student's in their own memory and CPU limit
  (`limits.py`) and inside bubblewrap, seeing only their home, the exchange and the course
  (`confine.py`), opening on their start page; `jupyterhub-idle-culler` stopping servers idle
  for `idle_timeout` seconds; per user the settings folders below and, for the instructor,
  formgrader on the course directory with a menu entry opening it in its own browser tab;
* `jupyter/student/nbgrader_config.py`: the exchange and the course id (the Assignments tab);
* the instructor's course directory `~instructor/<course>/nbgrader_config.py`: the course's
  grading config (`autograder/grading/nbgrader_config.py`) plus the exchange and course id.

    >>> s = HubSettings(port=8000, hub_port=8081, api_port=8001)
    >>> s.url, s.mem_limit, s.cpu_limit, s.idle_timeout
    ('http://127.0.0.1:8000', '2G', 1.0, 3600)
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import sys
import sysconfig
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import CourseError
from ..paths import NBGRADER_CONFIG, REPO_ROOT, START_PAGE_NAME
from . import confine, limits
from .layout import HubLayout
from .roster import Roster

HUB_CONFIG_DIR = REPO_ROOT / "jupyter_config" / "hub"
COMMON_CONFIG_DIR = REPO_ROOT / "jupyter_config" / "common"


@dataclass(frozen=True)
class HubSettings:
    """Where the hub listens: its public port on `ip`; its API, the proxy's API and every user's
    server on 127.0.0.1 always. Each student's server (kernels included) may use `mem_limit` of
    memory and `cpu_limit` cores; a server idle for `idle_timeout` seconds is stopped (0: never)."""
    port: int
    hub_port: int
    api_port: int
    ip: str = "127.0.0.1"
    mem_limit: str = "2G"
    cpu_limit: float = 1.0
    idle_timeout: int = 3600
    # How often the hub reads each server's last activity from the proxy (JupyterHub's default).
    activity_interval: int = 300

    @property
    def url(self) -> str:
        return f"http://{self.ip}:{self.port}"


def proxy_command() -> str:
    """configurable-http-proxy: the one `./course hub` installed, else one on PATH."""
    local = REPO_ROOT / ".venv" / "hub-proxy" / "node_modules" / ".bin" / "configurable-http-proxy"
    found = str(local) if local.exists() else shutil.which("configurable-http-proxy")
    if not found:
        raise CourseError("configurable-http-proxy is not installed: run ./course hub (it installs it with npm "
                          "into .venv/hub-proxy; Node.js 18 or later needed)")
    return found


def _secret_file(path: Path, nbytes: int) -> str:
    """A generated secret, kept in `path` (mode 600) so a restart keeps the same one."""
    if not path.is_file():
        path.write_text(secrets.token_urlsafe(nbytes), encoding="utf-8")
    os.chmod(path, 0o600)
    return path.read_text(encoding="utf-8").strip()


def server_environment(layout: HubLayout, instructor: bool) -> dict[str, str]:
    """The environment of a user's server: the students' Python first, the course's Jupyter data
    (JupyterLab's app, the extensions) and settings (ours first, then the environment's)."""
    course_prefix = Path(sysconfig.get_paths()["data"])
    role = "instructor" if instructor else "student"
    configs = [layout.instructor_config if instructor else layout.student_config, HUB_CONFIG_DIR / role,
               COMMON_CONFIG_DIR, course_prefix / "etc" / "jupyter"]
    return {
        "PATH": f"{layout.env / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "JUPYTER_CONFIG_PATH": os.pathsep.join(map(str, configs)),
        "JUPYTER_PATH": str(course_prefix / "share" / "jupyter"),
        "JUPYTERLAB_DIR": str(course_prefix / "share" / "jupyter" / "lab"),
        "PYTHONNOUSERSITE": "1",
        "MPLBACKEND": "module://matplotlib_inline.backend_inline",
    }


HUB_TEMPLATE = '''# Written by `python -m autograder hub start` (autograder/hub/config.py); rewritten at every start.
import json
import os
c = get_config()  # noqa: F821
S = json.loads({settings!r})
c.JupyterHub.ip = S["ip"]
c.JupyterHub.port = S["port"]
c.JupyterHub.hub_ip = "127.0.0.1"
c.JupyterHub.hub_port = S["hub_port"]
c.ConfigurableHTTPProxy.api_url = "http://127.0.0.1:%d" % S["api_port"]
c.ConfigurableHTTPProxy.command = [S["proxy"]]
c.ConfigurableHTTPProxy.auth_token = S["proxy_token"]
c.JupyterHub.cookie_secret_file = S["private"] + "/jupyterhub_cookie_secret"
c.JupyterHub.db_url = "sqlite:///" + S["private"] + "/jupyterhub.sqlite"
c.JupyterHub.pid_file = S["private"] + "/jupyterhub.pid"
c.JupyterHub.cleanup_servers = True
c.JupyterHub.last_activity_interval = S["activity_interval"]
c.JupyterHub.authenticator_class = "pam"      # each person's own Unix password (JupyterHub's default)
c.Authenticator.allowed_users = set(S["students"]) | {{S["instructor"]}}
c.Authenticator.admin_users = {{S["instructor"]}}

from jupyterhub.spawner import LocalProcessSpawner  # noqa: E402


class LimitedSpawner(LocalProcessSpawner):
    """A student's server joins their cgroups (memory and CPU limit) before it becomes them:
    LocalProcessSpawner does not enforce mem_limit or cpu_limit itself. The instructor's starts in
    the course directory: formgrader reads nbgrader_config.py from its working folder, which
    LocalProcessSpawner sets to the home."""

    def make_preexec_fn(self, name):
        become_user = super().make_preexec_fn(name)
        procs = S["cgroups"].get(name, [])

        def preexec():
            for path in procs:
                with open(path, "w") as f:
                    f.write(str(os.getpid()))
            become_user()
            if name == S["instructor"] and os.path.isdir(S["course_dir"]):
                os.chdir(S["course_dir"])
        return preexec


c.JupyterHub.spawner_class = LimitedSpawner
c.Spawner.mem_limit = S["mem_limit"]            # MEM_LIMIT / CPU_LIMIT in the server's environment too
c.Spawner.cpu_limit = S["cpu_limit"]
SERVER = [S["python"], "-m", "jupyterhub.singleuser"]
c.Spawner.cmd = SERVER
c.Spawner.ip = "127.0.0.1"                     # servers are reached through the proxy only
c.Spawner.default_url = "/lab"
if S["idle_timeout"] > 0:
    c.JupyterHub.services = [{{"name": "idle-culler", "command": [
        S["hub_python"], "-m", "jupyterhub_idle_culler", "--timeout=%d" % S["idle_timeout"],
        "--cull-every=%d" % max(1, min(300, S["idle_timeout"] // 2))]}}]
    c.JupyterHub.load_roles = [{{"name": "idle-culler", "services": ["idle-culler"],
                                "scopes": ["list:users", "read:users:activity", "read:servers", "delete:servers"]}}]
c.Spawner.env_keep = ["LANG", "LC_ALL"]        # not the hub's PATH or PYTHONPATH (the repository)
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180


def _per_user(spawner):
    """Students: their home, the learner settings with the Assignments tab, the start page, the server
    inside bubblewrap (their home, the exchange, the course: autograder/hub/confine.py). The
    instructor: formgrader on the course directory, no limit."""
    import pwd
    instructor = spawner.user.name == S["instructor"]
    spawner.environment.update(S["instructor_env" if instructor else "student_env"])
    # The learner's folder (progress log, start page) is their home, not the shared course code.
    spawner.environment["COURSE_LAB_DIR"] = pwd.getpwnam(spawner.user.name).pw_dir
    if instructor:
        spawner.notebook_dir = S["course_dir"]
        spawner.mem_limit = spawner.cpu_limit = None
    else:
        spawner.default_url = "/lab/tree/" + S["start_page"]
        home = pwd.getpwnam(spawner.user.name).pw_dir
        spawner.cmd = [home if a == S["home"] else os.path.realpath(home) if a == S["home_real"] else a
                       for a in S["confine"]] + SERVER


c.Spawner.pre_spawn_hook = _per_user
'''


def student_nbgrader_config(roster: Roster, layout: HubLayout) -> str:
    return (f"# Written by `python -m autograder hub start`: the class's exchange and course.\n"
            f"c = get_config()  # noqa: F821\n"
            f"c.CourseDirectory.course_id = {roster.course!r}\n"
            f"c.Exchange.root = {str(layout.exchange)!r}\n")


def formgrader_menu(instructor: str) -> dict:
    """JupyterLab settings overrides adding a Grading menu whose entry opens formgrader in its own
    browser tab: JupyterHub (4.1 and later) forbids framing a user's server (`frame-ancestors
    'none'`), so nbgrader's own Formgrader entry, an iframe inside JupyterLab, stays blank; nbgrader's
    documentation says to open formgrader in a tab of its own. `help:open` is JupyterLab's command
    that opens a URL, in a new browser tab with `newBrowserTab`."""
    item = {"command": "help:open", "args": {"url": f"/user/{instructor}/formgrader", "newBrowserTab": True,
                                              "text": "Formgrader (opens in a new browser tab)"}}
    return {"@jupyterlab/mainmenu-extension:plugin": {
        "menus": [{"id": "jp-mainmenu-grading", "label": "Grading", "rank": 1000, "items": [item]}]}}


def write_instructor_lab_settings(roster: Roster, layout: HubLayout) -> None:
    """The instructor's JupyterLab settings folder (`LabApp.app_settings_dir`) with the Grading menu."""
    settings_dir = layout.root / "jupyter" / "instructor-lab" / "settings"
    settings_dir.mkdir(parents=True, exist_ok=True)
    (settings_dir / "overrides.json").write_text(json.dumps(formgrader_menu(roster.instructor), indent=1),
                                                 encoding="utf-8")
    (layout.instructor_config / "jupyter_server_config.json").write_text(
        json.dumps({"LabApp": {"app_settings_dir": str(settings_dir)}}, indent=1), encoding="utf-8")
    for path in (settings_dir.parent, settings_dir):
        os.chmod(path, 0o755)
    for path in (settings_dir / "overrides.json", layout.instructor_config / "jupyter_server_config.json"):
        os.chmod(path, 0o644)


def write_all(roster: Roster, layout: HubLayout, settings: HubSettings,
              cgroups: dict[str, list[str]] | None = None) -> None:
    """Write the hub's, the students' and the instructor's configuration (see the module);
    `cgroups`: the `cgroup.procs` files of each student's limits (`limits.make`)."""
    layout.private.mkdir(parents=True, exist_ok=True)
    os.chmod(layout.private, 0o700)
    course_dir = layout.course_dir(roster.instructor, roster.course)
    values = {**asdict(settings), "proxy": proxy_command(), "private": str(layout.private),
              "proxy_token": _secret_file(layout.private / "proxy_token", 32),
              "students": list(roster.students), "instructor": roster.instructor,
              "python": str(layout.python), "course_dir": str(course_dir), "hub_python": sys.executable,
              "cgroups": dict(cgroups or {}), "start_page": START_PAGE_NAME,
              "mem_limit": limits.parse_bytes(settings.mem_limit),
              "student_env": server_environment(layout, instructor=False),
              "instructor_env": server_environment(layout, instructor=True)}
    nbgrader = student_nbgrader_config(roster, layout)
    for folder in (layout.student_config, layout.instructor_config):
        folder.mkdir(parents=True, exist_ok=True)
        # The instructor's nbgrader (formgrader included) works on the course directory, its one gradebook.
        root = f"c.CourseDirectory.root = {str(course_dir)!r}\n" if folder == layout.instructor_config else ""
        (folder / "nbgrader_config.py").write_text(nbgrader + root, encoding="utf-8")
        os.chmod(folder, 0o755)
        os.chmod(folder / "nbgrader_config.py", 0o644)
    write_instructor_lab_settings(roster, layout)
    os.chmod(layout.root / "jupyter", 0o755)
    # After the students' settings folder exists: the sandbox binds only folders that exist.
    values.update(confine=confine.arguments(layout, values["student_env"]), home=confine.HOME,
                  home_real=confine.HOME_REAL)
    layout.hub_config.write_text(HUB_TEMPLATE.format(settings=json.dumps(values)), encoding="utf-8")
    os.chmod(layout.hub_config, 0o600)


def write_course_dir(roster: Roster, layout: HubLayout) -> Path:
    """The instructor's nbgrader course directory: the course's grading config plus the exchange;
    owned by the instructor (formgrader writes its gradebook there)."""
    import pwd

    course_dir = layout.course_dir(roster.instructor, roster.course)
    course_dir.mkdir(parents=True, exist_ok=True)
    text = NBGRADER_CONFIG.read_text(encoding="utf-8") + "\n# The class on the hub:\n" + \
        student_nbgrader_config(roster, layout).split("\n", 2)[2]
    (course_dir / "nbgrader_config.py").write_text(text, encoding="utf-8")
    entry = pwd.getpwnam(roster.instructor)
    for path in [course_dir, *course_dir.rglob("*")]:
        os.chown(path, entry.pw_uid, entry.pw_gid)
    return course_dir
