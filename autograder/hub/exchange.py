"""nbgrader's exchange: one folder every user may write, exactly mode 777.

nbgrader checks the root's mode and refuses anything else ("Unwritable directory, please
contact your instructor"); `mkdir` alone leaves 755 after the umask, so the mode is set after.
Inside it, `release_assignment` run by the instructor lays out the course's own folders
(outbound 755, inbound 733 with set-gid).
"""
from __future__ import annotations

import os
from pathlib import Path


def lay_out(root: Path) -> Path:
    """Create the exchange root at `root` (or fix its mode) and return it."""
    root = Path(root)
    root.mkdir(parents=True, exist_ok=True)
    os.chown(root, 0, 0)
    os.chmod(root, 0o777)
    return root


def is_laid_out(root: Path) -> bool:
    return Path(root).is_dir() and (os.stat(root).st_mode & 0o7777) == 0o777
