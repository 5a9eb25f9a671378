"""What every live widget shares: its ES module as one string, and Python handles for its controls.

A live widget is an `anywidget.AnyWidget` whose front end (a `.js` file beside this one) draws in
SVG and computes in the browser. Its pure maths sits in its own module (`*_math.js`) so Node can
test it against `specdec`; the front end imports it with `import ... from "./x_math.js"`.
anywidget loads a module from a string (in JupyterLab, and in the book from the saved widget
state), where a relative import cannot resolve, so `es_module` inlines each imported sibling file
in front of the importer. No build step, no CDN.

    >>> src = es_module("batch_speedup.js")
    >>> "export default" in src and "./batch_speedup_math.js" not in src
    True
"""
from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).parent
_IMPORT = re.compile(r'^import\s*\{[^}]*\}\s*from\s*"\./([\w.]+\.js)";\s*$', re.M)


def es_module(name: str) -> str:
    """The module `widgets/<name>` with its `./sibling.js` imports inlined (each once, in order)."""
    seen: list[str] = []

    def source(file: str) -> str:
        text = (HERE / file).read_text(encoding="utf-8")
        parts = []
        for dep in _IMPORT.findall(text):
            if dep not in seen:
                seen.append(dep)
                parts.append(source(dep).replace("export default", "const _unused_default ="))
        return "\n".join(parts + [_IMPORT.sub("", text)])

    return source(name)


class Control:
    """A control of a live widget, seen from Python: `.value` reads and writes one synced trait,
    as moving the control in the page does; `options`, `min`, `max`, `step` say what it offers.

    >>> class W: gamma = 3
    >>> c = Control(W(), "gamma", "γ", min=1, max=12, step=1)
    >>> c.value = 5; c.value, c.description
    (5, 'γ')
    """

    def __init__(self, owner, trait: str, description: str, **meta):
        self._owner, self.trait, self.description = owner, trait, description
        self.options = meta.pop("options", None)
        for key, value in meta.items():
            setattr(self, key, value)

    @property
    def value(self):
        return getattr(self._owner, self.trait)

    @value.setter
    def value(self, new) -> None:
        setattr(self._owner, self.trait, new)


class Text:
    """A readout or message computed in Python (the reference the page's text is tested against).

    >>> Text("⚠ no").value
    '⚠ no'
    """

    def __init__(self, value: str = ""):
        self.value = value


class Action:
    """A button of a live widget, seen from Python: `.click()` does what pressing it in the page does
    and returns what the action returns.

    >>> pressed = []
    >>> b = Action("reset", lambda: pressed.append(1) or True, tooltip="start over")
    >>> b.click(), pressed, b.description
    (True, [1], 'reset')
    """

    def __init__(self, description: str, callback, tooltip: str = ""):
        self.description, self.tooltip, self._callback = description, tooltip, callback

    def click(self):
        return self._callback()
