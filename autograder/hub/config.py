"""The files a hub runs from: JupyterHub's configuration, nbgrader's for students and instructor.

`write_all` writes, for a roster and a `HubSettings`:

* `private/jupyterhub_config.py` (root only): the hub, its proxy and every server on `ip`
  (127.0.0.1 unless told otherwise); generated secrets (the proxy's token, the passwords; the
  cookie secret JupyterHub makes itself in `private/`); `localprocess` servers run by each
  user with the students' Python; per user the settings folders below and, for the
  instructor, formgrader on the course directory;
* `jupyter/student/nbgrader_config.py`: the exchange and the course id (the Assignments tab);
* the instructor's course directory `~instructor/<course>/nbgrader_config.py`: the course's
  grading config (`autograder/grading/nbgrader_config.py`) plus the exchange and course id.

    >>> s = HubSettings(port=8000, hub_port=8081, api_port=8001)
    >>> s.url
    'http://127.0.0.1:8000'
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import sysconfig
from dataclasses import asdict, dataclass
from pathlib import Path

from ..errors import CourseError
from ..paths import NBGRADER_CONFIG, REPO_ROOT
from .layout import HubLayout
from .roster import Roster

HUB_CONFIG_DIR = REPO_ROOT / "jupyter_config" / "hub"
COMMON_CONFIG_DIR = REPO_ROOT / "jupyter_config" / "common"


@dataclass(frozen=True)
class HubSettings:
    """Where the hub listens: its public port on `ip`; its API, the proxy's API and every user's
    server on 127.0.0.1 always."""
    port: int
    hub_port: int
    api_port: int
    ip: str = "127.0.0.1"

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


def passwords(layout: HubLayout) -> tuple[str, str]:
    """(students' password, instructor's password): generated once, root-readable only."""
    return _secret_file(layout.password, 12), _secret_file(layout.private / "instructor_password", 32)


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
c.JupyterHub.authenticator_class = "shared-password"
c.SharedPasswordAuthenticator.user_password = S["student_password"]
c.SharedPasswordAuthenticator.admin_password = S["instructor_password"]
c.Authenticator.allowed_users = set(S["students"]) | {{S["instructor"]}}
c.Authenticator.admin_users = {{S["instructor"]}}
c.JupyterHub.spawner_class = "localprocess"
c.Spawner.cmd = [S["python"], "-m", "jupyterhub.singleuser"]
c.Spawner.ip = "127.0.0.1"                     # servers are reached through the proxy only
c.Spawner.default_url = "/lab"
c.Spawner.env_keep = ["LANG", "LC_ALL"]        # not the hub's PATH or PYTHONPATH (the repository)
c.Spawner.start_timeout = 180
c.Spawner.http_timeout = 180


def _per_user(spawner):
    """Students: their home, the learner settings with the Assignments tab. The instructor:
    formgrader on the course directory."""
    import pwd
    instructor = spawner.user.name == S["instructor"]
    spawner.environment.update(S["instructor_env" if instructor else "student_env"])
    # The learner's folder (progress log, start page) is their home, not the shared course code.
    spawner.environment["COURSE_LAB_DIR"] = pwd.getpwnam(spawner.user.name).pw_dir
    if instructor:
        spawner.notebook_dir = S["course_dir"]


c.Spawner.pre_spawn_hook = _per_user
'''


def student_nbgrader_config(roster: Roster, layout: HubLayout) -> str:
    return (f"# Written by `python -m autograder hub start`: the class's exchange and course.\n"
            f"c = get_config()  # noqa: F821\n"
            f"c.CourseDirectory.course_id = {roster.course!r}\n"
            f"c.Exchange.root = {str(layout.exchange)!r}\n")


def write_all(roster: Roster, layout: HubLayout, settings: HubSettings) -> None:
    """Write the hub's, the students' and the instructor's configuration (see the module)."""
    layout.private.mkdir(parents=True, exist_ok=True)
    os.chmod(layout.private, 0o700)
    student_pw, instructor_pw = passwords(layout)
    course_dir = layout.course_dir(roster.instructor, roster.course)
    values = {**asdict(settings), "proxy": proxy_command(), "private": str(layout.private),
              "proxy_token": _secret_file(layout.private / "proxy_token", 32),
              "student_password": student_pw, "instructor_password": instructor_pw,
              "students": list(roster.students), "instructor": roster.instructor,
              "python": str(layout.python), "course_dir": str(course_dir),
              "student_env": server_environment(layout, instructor=False),
              "instructor_env": server_environment(layout, instructor=True)}
    layout.hub_config.write_text(HUB_TEMPLATE.format(settings=json.dumps(values)), encoding="utf-8")
    os.chmod(layout.hub_config, 0o600)
    nbgrader = student_nbgrader_config(roster, layout)
    for folder in (layout.student_config, layout.instructor_config):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "nbgrader_config.py").write_text(nbgrader, encoding="utf-8")
        os.chmod(folder, 0o755)
        os.chmod(folder / "nbgrader_config.py", 0o644)
    os.chmod(layout.root / "jupyter", 0o755)


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
