# The course's JupyterLab server (`./course lab`): its terminals reach the course's Python.
# Jupyter starts a terminal as a login shell when the server is not attached to a terminal, and a
# login shell reads /etc/profile, which puts the system's Python before the course's `.venv/bin`:
# `python -m autograder check ...` then fails with ModuleNotFoundError. Instead the terminal runs an
# interactive bash (or sh) that reads the user's usual start-up files and then
# `course_terminal_rc.sh`, which puts the folder of the Python that runs this server (the course's
# environment) first on PATH.
import os
import shutil
import sys

c = get_config()  # noqa: F821 (Jupyter runs this file with get_config defined)
_rc = os.path.join(os.path.dirname(os.path.abspath(__file__)), "course_terminal_rc.sh")
os.environ["COURSE_PYTHON_BIN"] = os.path.dirname(os.path.abspath(sys.executable))
if shutil.which("bash"):
    _shell = [shutil.which("bash"), "--rcfile", _rc, "-i"]
else:                                     # POSIX sh reads the file named by $ENV when interactive
    os.environ["ENV"] = _rc
    _shell = [shutil.which("sh") or "/bin/sh", "-i"]
c.ServerApp.terminado_settings.update({"shell_command": _shell})   # merged with any other settings
