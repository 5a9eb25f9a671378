"""Start the learner's JupyterLab (`./course lab`) on a copy of the chapters, and stop it.

The server runs exactly as a learner starts it, with what a test needs on top: localhost, a free
port, a random token, no browser, and its own temporary config, data, runtime, settings and
workspace folders (so nothing in the home directory changes it and nothing is left behind).
`--LabApp.expose_app_in_browser` gives the tests `window.jupyterapp` to read cell models.
"""
from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[2]
COURSE = REPO_ROOT / "course"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class LabServer:
    root: Path                      # the folder JupyterLab serves (a copy of chapters/)
    port: int
    token: str
    tmp: Path                       # everything the server writes lives under here
    process: subprocess.Popen | None = None
    log_path: Path = field(default=None)
    extra_args: list[str] = field(default_factory=list)
    course: Path = COURSE           # the `course` script to run (a student bundle's, in test_bundle.py)
    extra_env: dict = field(default_factory=dict)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str = "lab") -> str:
        return f"{self.base_url}/{path}?token={self.token}"

    def api(self, path: str, method: str = "GET", timeout: float = 5.0):
        """(status, parsed JSON or text) of a REST call with the token."""
        request = urllib.request.Request(f"{self.base_url}/{path}", method=method,
                                         headers={"Authorization": f"token {self.token}"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:
                body = response.read().decode()
                status = response.status
        except urllib.error.HTTPError as exc:
            return exc.code, exc.read().decode(errors="replace")
        try:
            return status, json.loads(body)
        except json.JSONDecodeError:
            return status, body

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def start(self, timeout: float = 90.0) -> "LabServer":
        dirs = {name: self.tmp / name for name in ("config", "data", "runtime", "settings", "workspaces", "ipython")}
        for d in dirs.values():
            d.mkdir(parents=True, exist_ok=True)
        env = dict(os.environ)
        for var in ("JUPYTER_CONFIG_PATH", "JUPYTER_PATH", "MPLBACKEND", "PYTHONSTARTUP"):
            env.pop(var, None)
        env.update(JUPYTER_CONFIG_DIR=str(dirs["config"]), JUPYTER_DATA_DIR=str(dirs["data"]),
                   JUPYTER_RUNTIME_DIR=str(dirs["runtime"]), IPYTHONDIR=str(dirs["ipython"]),
                   COURSE_LAB_DIR=str(self.root), JUPYTER_PLATFORM_DIRS="1", PYTHONUNBUFFERED="1")
        # Chapter 12's full CPU lab takes minutes; these tests check that every cell runs and every
        # figure and widget shows, which its short preset exercises as well (as the suite's runs do).
        env.setdefault("SPECDEC_LAB_PRESET", "test")
        env.update(self.extra_env)
        args = [str(self.course), "lab", "--no-browser", "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={self.port}",
                "--ServerApp.port_retries=0", f"--IdentityProvider.token={self.token}",
                f"--LabApp.user_settings_dir={dirs['settings']}", f"--LabApp.workspaces_dir={dirs['workspaces']}",
                "--LabApp.expose_app_in_browser=True", "--ServerApp.shutdown_no_activity_timeout=900",
                "--MappingKernelManager.cull_idle_timeout=0", *self.extra_args]
        self.log_path = self.tmp / "server.log"
        with open(self.log_path, "wb") as log:
            # Its own process group: stop() can end the server, its kernels and terminals together.
            self.process = subprocess.Popen(args, cwd=self.course.parent, env=env, stdout=log, stderr=subprocess.STDOUT,
                                            stdin=subprocess.DEVNULL, start_new_session=True)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"./course lab exited with {self.process.returncode}:\n{self.log()[-4000:]}")
            try:
                status, _ = self.api("api/status", timeout=2)
                if status == 200:
                    return self
            except OSError:
                pass
            time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"./course lab did not answer within {timeout:.0f} s:\n{self.log()[-4000:]}")

    def stop(self, timeout: float = 15.0) -> None:
        """Shut the server down through its API (kernels and terminals first), then make sure:
        SIGTERM, then SIGKILL, to the server's own process group."""
        process = self.process
        if process is None:
            return
        if process.poll() is None:
            try:
                self.api("api/shutdown", method="POST", timeout=5)
            except OSError:
                pass
            try:
                process.wait(timeout)
            except subprocess.TimeoutExpired:
                pass
        for sig in (signal.SIGTERM, signal.SIGKILL):      # whatever is left of the group it leads
            if not _group_alive(process.pid):
                break
            try:
                os.killpg(process.pid, sig)
            except ProcessLookupError:
                break
            deadline = time.monotonic() + 5
            while _group_alive(process.pid) and time.monotonic() < deadline:
                process.poll()                                # reap the leader (a zombie counts)
                time.sleep(0.1)
        if process.poll() is None:
            process.wait(5)
        self.process = None


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def start_lab(chapters: list[Path], tmp: Path | None = None, extra_args: list[str] = (),
              course: Path = COURSE, extra_env: dict | None = None) -> LabServer:
    """Copy `chapters` into a fresh folder as `learn` copies them into learner/ (ready to open: the
    kernel's language information stamped) and start `./course lab` on it (`extra_args` after `lab`;
    `course`: another course script, e.g. a student bundle's)."""
    from autograder.learner.learn import copy_for_learner

    tmp = Path(tempfile.mkdtemp(prefix="course-lab-")) if tmp is None else tmp
    root = tmp / "chapters"
    root.mkdir(parents=True, exist_ok=True)
    for path in chapters:
        copy_for_learner(path, root / path.name)
    return LabServer(root=root, port=free_port(), token=secrets.token_hex(16), tmp=tmp,
                     extra_args=list(extra_args), course=Path(course), extra_env=dict(extra_env or {})).start()


if __name__ == "__main__":                 # manual use: python -m tests.browser.labserver
    server = start_lab(sorted((REPO_ROOT / "chapters").glob("*.ipynb")))
    print(server.url(), file=sys.stderr)
    try:
        signal.pause()
    finally:
        server.stop()
