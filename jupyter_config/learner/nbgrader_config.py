# nbgrader settings of the learner's JupyterLab (`./course lab`), read by its Assignment List.
# The list needs an exchange folder. A classroom sets its own (in ~/.jupyter or /etc/jupyter);
# when none is set and nbgrader's default does not exist, a private empty one is used, so the
# list opens empty (chapters are in the file browser) instead of with an error.
import os

from jupyter_core.paths import jupyter_data_dir

c = get_config()  # noqa: F821 (nbgrader runs this file with get_config defined)
if "root" not in c.Exchange and not os.path.isdir("/usr/local/share/nbgrader/exchange"):
    c.Exchange.root = os.path.join(jupyter_data_dir(), "nbgrader", "exchange")
    os.makedirs(c.Exchange.root, exist_ok=True)
