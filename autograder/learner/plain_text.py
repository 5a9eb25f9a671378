r"""Math for a terminal: the inline LaTeX of a drill's statement as readable plain text.

A terminal cannot typeset `$\gamma$` or `$\chi^2$`; `python -m autograder drill NAME` prints the
statement with Greek letters, relations, superscripts and fractions written out in Unicode.
"""
from __future__ import annotations

import re

_LATEX = {r"\gamma": "γ", r"\alpha": "α", r"\beta": "β", r"\chi": "χ", r"\pi": "π", r"\sigma": "σ",
          r"\mu": "μ", r"\theta": "θ", r"\lambda": "λ", r"\epsilon": "ε", r"\varepsilon": "ε", r"\tau": "τ",
          r"\Pr": "Pr", r"\le": "≤", r"\leq": "≤", r"\ge": "≥", r"\geq": "≥", r"\ne": "≠", r"\neq": "≠",
          r"\times": "×", r"\cdot": "·", r"\cdots": "…", r"\ldots": "…", r"\dots": "…", r"\sum": "Σ",
          r"\prod": "Π", r"\infty": "∞", r"\to": "→", r"\rightarrow": "→", r"\approx": "≈", r"\in": "∈",
          r"\min": "min", r"\max": "max", r"\log": "log", r"\exp": "exp", r"\mid": "|", r"\star": "*",
          r"\quad": " ", r"\qquad": "  ", r"\,": " ", r"\;": " ", r"\!": "", r"\ ": " ",
          r"\left": "", r"\right": "", r"\lceil": "⌈", r"\rceil": "⌉", r"\lfloor": "⌊",
          r"\rfloor": "⌋", r"\top": "ᵀ", r"\prime": "′", r"\sim": "~", r"\propto": "∝", r"\bar": "", r"\hat": "", r"\tilde": ""}
_SUPERSCRIPT = str.maketrans("0123456789+-()n", "⁰¹²³⁴⁵⁶⁷⁸⁹⁺⁻⁽⁾ⁿ")


def latex_to_text(math: str) -> str:
    r"""Readable plain text for the inline math of a statement (a terminal shows no LaTeX).

    >>> latex_to_text(r"\gamma + 1")
    'γ + 1'
    >>> latex_to_text(r"\chi^2 test, \min(1, p/q), \frac{a}{b}, \text{ms}, x_{i}")
    'χ² test, min(1, p/q), (a)/(b), ms, x_i'
    >>> latex_to_text(r"\begin{aligned}a &= b + c \\ &= d\end{aligned}")
    'a = b + c\n= d'
    """
    # A displayed formula split over lines (aligned, gathered): one line of text per line of math.
    math = re.sub(r"\\(?:begin|end)\{(?:aligned|gathered|split)\}", "", math)
    math = re.sub(r"\s*\\\\\s*", "\n", math).replace("&", "")
    text = re.sub(r"\\(?:text|mathrm|mathbf|operatorname|mathit|boldsymbol)\{([^{}]*)\}", r"\1", math)
    text = re.sub(r"\\frac\{([^{}]*)\}\{([^{}]*)\}", r"(\1)/(\2)", text)
    text = re.sub(r"\\sqrt\{([^{}]*)\}", r"√(\1)", text)
    for command in sorted(_LATEX, key=len, reverse=True):
        text = re.sub(re.escape(command) + r"(?![A-Za-z])", lambda _m, c=command: _LATEX[c], text)
    text = re.sub(r"\^\{([0-9+\-()n]+)\}|\^([0-9n])", lambda m: (m.group(1) or m.group(2)).translate(_SUPERSCRIPT), text)
    text = re.sub(r"_\{([^{}]*)\}", r"_\1", text)
    return text.replace("^ᵀ", "ᵀ").replace("{", "").replace("}", "")
