# Start-up file of a terminal in the course's JupyterLab (see jupyter_server_config.py next to it):
# the user's usual settings, then the course's Python first on PATH.
if [ -n "${BASH_VERSION:-}" ]; then
  [ -f /etc/bash.bashrc ] && . /etc/bash.bashrc
  [ -f "$HOME/.bashrc" ] && . "$HOME/.bashrc"
fi
if [ -n "${COURSE_PYTHON_BIN:-}" ]; then
  PATH="$COURSE_PYTHON_BIN:$PATH"
  export PATH
fi
