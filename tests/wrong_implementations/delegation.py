"""The three ways to hand an exercise to the course library, as wrong implementations.

Every exercise's hidden tests must give them no points (autograder.delegation). Each
chapter's WRONG table adds them with one line:

    >>> forms = delegation_forms("def tv(p, q):", "specdec.distributions", "total_variation")
    >>> sorted(forms)
    ['delegate_same_object', 'delegate_thin_wrapper', 'delegate_through_module']
    >>> print(forms["delegate_thin_wrapper"])
    from specdec.distributions import total_variation as library_total_variation
    <BLANKLINE>
    def tv(p, q):
        return library_total_variation(p, q)
"""
from __future__ import annotations

import re


def _parse(def_line: str) -> tuple[str, str]:
    match = re.fullmatch(r"\s*def\s+(\w+)\s*\((.*)\)\s*(->.*)?:\s*", def_line)
    if not match:
        raise ValueError(f"expected a line like 'def name(a, b=1):', got {def_line!r}")
    return match.group(1), match.group(2)


def _call_args(params: str) -> str:
    """'p, q, *, tau=1.0' -> 'p, q, tau=tau' (pass every parameter on by name where needed)."""
    out, keyword_only = [], False
    for raw in (s.strip() for s in params.split(",") if s.strip()):
        if raw == "*":
            keyword_only = True
            continue
        name = re.split(r"[:=]", raw)[0].strip()
        if name.startswith("**"):
            out.append(name)
        elif name.startswith("*"):
            out.append(name)
            keyword_only = True
        else:
            out.append(f"{name}={name}" if keyword_only else name)
    return ", ".join(out)


def delegation_forms(def_line: str, module: str, function: str) -> dict[str, str]:
    """Three solution-cell sources that delegate the exercise `def_line` to `module.function`."""
    name, params = _parse(def_line)
    call = _call_args(params)
    alias = module.rsplit(".", 1)[-1] + "_lib"
    return {
        "delegate_same_object": f"from {module} import {function}\n\n{name} = {function}",
        # Imported under another name, so that an exercise named like the library function
        # (`trim` wrapping `trim`) does not call itself.
        "delegate_thin_wrapper": (f"from {module} import {function} as library_{function}\n\n"
                                  f"{def_line.strip()}\n    return library_{function}({call})"),
        "delegate_through_module": (f"import {module} as {alias}\n\n{def_line.strip()}\n"
                                    f"    return {alias}.{function}({call})"),
    }
