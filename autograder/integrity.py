"""Keep the test cells honest: undo what student code changed in the kernel before each test.

Student code runs in the same Python process as the tests that grade it, so a solution
cell could register an IPython input transformer that turns `assert` into `pass`, patch
`np.allclose` or `autograder.stats` in place, or hook the kernel's events. The grader's
executor (`resilient_execute.ResilientExecute`) therefore calls, in the kernel, `install()` once
before the first cell, `before_locked()` before every locked cell (setup and tests) and
`after_locked()` after it. This is defence in depth, not a sandbox (code running in the kernel can
always find this module), which is why suspicious lines are listed for review
(`grading.review`): docs/threat-model.md.

    >>> install(); restore()
    []
    >>> import math; math.sqrt = lambda x: 3.0
    >>> restore()
    ['math.sqrt replaced']
    >>> math.sqrt(4.0)
    2.0
"""
from __future__ import annotations

import importlib
import sys
import threading
import types

from .graded_output import begin_test, end_test

WATCHED = ("numpy", "scipy", "autograder", "specdec", "widgets", "math", "builtins", "random",
           "IPython.core.interactiveshell", "ipykernel.zmqshell", "ipykernel.ipkernel", "warnings",
           "inspect", "dis", "linecache", "functools", "operator", "collections")
# Attributes that change on their own while a kernel runs (IPython's output history and traps).
VOLATILE = {"_", "__", "___", "exit", "quit", "get_ipython", "display", "showwarning", "filters",
            "_filters_mutated", "_onceregistry", "defaultaction", "cache"}
# Classes whose methods the tests rely on; their class dictionaries are restored too.
CLASS_MODULES = ("autograder", "specdec", "IPython.core.interactiveshell", "ipykernel.zmqshell",
                 "ipykernel.ipkernel", "numpy.random._generator")
HELPERS = ("numpy", "autograder.stats", "autograder.recording_rng", "autograder.calls")
_SHELL_ATTRS = ("input_transformers_post", "ast_transformers", "input_transformer_manager", "events",
                "displayhook", "display_pub", "showtraceback", "run_cell", "run_cell_async", "transform_cell",
                "run_ast_nodes", "run_code", "ex", "ev", "user_expressions", "compile")

_state: dict = {}


def _watched(name: str) -> bool:
    return any(name == w or name.startswith(w + ".") for w in WATCHED)


def _shell():
    try:
        from IPython import get_ipython
    except ImportError:      # plain Python (doctests)
        return None
    return get_ipython()


def _function_state(obj):
    code = getattr(obj, "__code__", None)
    if code is None:
        return None
    return (code, getattr(obj, "__defaults__", None), getattr(obj, "__kwdefaults__", None))


def snapshot() -> None:
    """Record the current state as the genuine one."""
    modules, functions, classes = {}, {}, {}
    for name, mod in list(sys.modules.items()):
        if mod is None or not _watched(name) or not isinstance(mod, types.ModuleType):
            continue
        attrs = dict(vars(mod))
        modules[name] = (mod, attrs)
        for value in attrs.values():
            state = _function_state(value) if isinstance(value, types.FunctionType) else None
            if state is not None:
                functions[id(value)] = (value, state)
            elif isinstance(value, type) and getattr(value, "__module__", "").startswith(CLASS_MODULES) \
                    and id(value) not in classes:
                members = dict(vars(value))
                classes[id(value)] = (value, members)
                for member in members.values():
                    fn = member.__func__ if isinstance(member, (staticmethod, classmethod)) else member
                    if isinstance(fn, types.FunctionType):
                        functions[id(fn)] = (fn, _function_state(fn))
    shell = _shell()
    shell_state = {}
    if shell is not None:
        shell_state = {
            "instance": {k: shell.__dict__[k] for k in _SHELL_ATTRS if k in shell.__dict__},
            "instance_keys": set(shell.__dict__),
            "cleanup": list(shell.input_transformer_manager.cleanup_transforms),
            "line": list(shell.input_transformer_manager.line_transforms),
            "token": list(getattr(shell.input_transformer_manager, "token_transformers", [])),
            "post": list(shell.input_transformers_post),
            "ast": list(shell.ast_transformers),
            "events": {k: list(v) for k, v in shell.events.callbacks.items()},
        }
    _state.update(modules=modules, functions=functions, classes=classes, shell=shell_state,
                  sys_modules={name: mod for name, (mod, _) in modules.items()})


def before_locked(graded: bool = False, uses=None) -> list[str]:
    """Before a locked cell (the instructor's code): repair the kernel (`restore`), and put back the
    names earlier locked cells defined (a student cell may have rebound `assert_distribution`);
    return what it had to repair (the grader lists it for review).
    `uses`: the names the locked cell mentions (None: all); a protected name it does not use is
    left alone, so an expository cell that reuses a test's `B` is neither undone nor reported.
    With `graded`, also start routing what the student's code writes to stderr to stdout with a note
    (`autograder.graded_output.begin_test`), so a debug print or a warning is never fatal."""
    repaired = restore()
    shell = _shell()
    if shell is not None:
        ns = shell.user_ns
        for name, value in _state.get("protected", {}).items():
            if uses is not None and name not in uses:
                continue
            if ns.get(name, _MISSING) is not value:
                ns[name] = value
                repaired.append(f"the name {name!r} (defined by the instructor's cells) was rebound")
        _state["user_ns_before"] = dict(ns)
    if graded:
        begin_test()
    return repaired


def after_locked() -> None:
    """After a locked cell: record the names it defined and the kernel's state as genuine, so the
    state the instructor's own cells set up (figures' hooks, imported helpers, the names they
    define) is not undone as if a student had made it."""
    end_test()
    shell = _shell()
    if shell is not None:
        before = _state.pop("user_ns_before", {})
        protected = _state.setdefault("protected", {})
        for name, value in shell.user_ns.items():
            if before.get(name, _MISSING) is not value and not name.startswith("_"):
                protected[name] = value
    snapshot()


def install() -> None:
    """Import the test helpers from disk and record the genuine state (call before any student code):
    IPython's input and AST transformers, event callbacks, trace hooks, the attributes of `numpy`,
    `scipy`, `autograder`, `specdec`, `builtins`, ... and the code of their functions and of the
    course's classes (`snapshot`)."""
    for name in HELPERS:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    snapshot()


def restore() -> list[str]:
    """Put back everything `snapshot` recorded; return a description of each repair. Hooks go
    first: a trace or profile hook would otherwise watch (and could undo) the repairs below."""
    if not _state:
        return []
    return (_restore_hooks() + _restore_modules() + _restore_classes() + _restore_functions()
            + _restore_shell())


def _restore_hooks() -> list[str]:
    repaired = []
    if sys.gettrace() is not None or sys.getprofile() is not None:
        repaired.append("a trace/profile hook was set")
    sys.settrace(None)
    sys.setprofile(None)
    threading.settrace(None)
    threading.setprofile(None)
    return repaired


def _restore_modules() -> list[str]:
    """sys.modules entries, then every recorded module attribute."""
    repaired = []
    for name, mod in _state["sys_modules"].items():
        if sys.modules.get(name) is not mod:
            sys.modules[name] = mod
            repaired.append(f"sys.modules[{name!r}] replaced")
    for name, (mod, attrs) in _state["modules"].items():
        current = vars(mod)
        for key, value in attrs.items():
            if key in VOLATILE or (key.startswith("__") and key.endswith("__")):
                continue
            now = current.get(key, _MISSING)
            if now is not value:
                try:
                    setattr(mod, key, value)
                except (AttributeError, TypeError):
                    continue
                if not _from_installed_library(now):
                    repaired.append(f"{name}.{key} replaced")
    return repaired


def _restore_classes() -> list[str]:
    """Class members replaced or added since the snapshot."""
    repaired = []
    for cls, members in _state["classes"].values():
        current = dict(vars(cls))
        for key, value in members.items():
            if current.get(key, _MISSING) is not value:
                try:
                    setattr(cls, key, value)
                    repaired.append(f"{cls.__module__}.{cls.__qualname__}.{key} replaced")
                except (AttributeError, TypeError):
                    pass
        for key in set(current) - set(members):
            try:
                delattr(cls, key)
                repaired.append(f"{cls.__module__}.{cls.__qualname__}.{key} added")
            except (AttributeError, TypeError):
                pass
    return repaired


def _restore_functions() -> list[str]:
    """Function code and defaults swapped in place (the function object kept, so references hold)."""
    repaired = []
    for fn, (code, defaults, kwdefaults) in _state["functions"].values():
        if fn.__code__ is not code or fn.__defaults__ is not defaults or fn.__kwdefaults__ is not kwdefaults:
            fn.__code__, fn.__defaults__, fn.__kwdefaults__ = code, defaults, kwdefaults
            repaired.append(f"the code of {fn.__module__}.{fn.__qualname__} changed")
    return repaired


def _restore_shell() -> list[str]:
    """The IPython shell: its attributes, input transformers, AST transformers and event callbacks."""
    repaired = []
    shell, saved = _shell(), _state["shell"]
    if shell is None or not saved:
        return repaired
    for key in set(shell.__dict__) - saved["instance_keys"]:
        if key in _SHELL_ATTRS or callable(shell.__dict__[key]):
            del shell.__dict__[key]
            repaired.append(f"IPython shell .{key} overridden")
    for key, value in saved["instance"].items():
        if shell.__dict__.get(key, _MISSING) is not value:
            shell.__dict__[key] = value
            repaired.append(f"IPython shell .{key} replaced")
    manager = shell.input_transformer_manager
    for attr, key in (("cleanup_transforms", "cleanup"), ("line_transforms", "line"),
                      ("token_transformers", "token")):
        if hasattr(manager, attr) and list(getattr(manager, attr)) != saved[key]:
            getattr(manager, attr)[:] = saved[key]
            repaired.append(f"IPython input transformers ({attr}) changed")
    for attr, key in (("input_transformers_post", "post"), ("ast_transformers", "ast")):
        if list(getattr(shell, attr)) != saved[key]:
            getattr(shell, attr)[:] = saved[key]
            repaired.append(f"IPython {attr} changed")
    callbacks = shell.events.callbacks
    for event in set(callbacks) | set(saved["events"]):
        now = list(callbacks.get(event, []))
        want = saved["events"].get(event, []) + [f for f in now if _benign(f) and f not in
                                                  saved["events"].get(event, [])]
        if now != want:
            callbacks[event] = want
            repaired.append(f"IPython event callbacks ({event}) changed")
    return repaired


def _from_installed_library(value) -> bool:
    """Whether `value` is a function an installed library defined (importing torch replaces
    `inspect.getfile` by its own): undone, but not the student's doing, so not reported."""
    code = getattr(value, "__code__", None)
    module = sys.modules.get(getattr(value, "__module__", None) or "")
    path = getattr(module, "__file__", None) or ""
    return (code is not None and "site-packages" in path and code.co_filename == path
            and not _watched(module.__name__))


def _benign(callback) -> bool:
    """Hooks the notebook machinery itself adds (inline figures, widgets)."""
    module = getattr(callback, "__module__", "") or ""
    return module.startswith(("matplotlib_inline", "ipykernel", "IPython", "ipywidgets", "matplotlib"))


class _Missing:
    pass


_MISSING = _Missing()


def genuine(module) -> bool:
    """True if every function of `module` runs the code in the module's file on disk."""
    path = getattr(module, "__file__", None)
    if not path:
        return False
    with open(path, encoding="utf-8") as f:
        compiled = compile(f.read(), path, "exec")
    codes = {c.co_name: c.co_code for c in compiled.co_consts if isinstance(c, types.CodeType)}
    for name, value in vars(module).items():
        if isinstance(value, types.FunctionType) and value.__module__ == module.__name__ and name in codes:
            if value.__code__.co_code != codes[name]:
                return False
    return True


__all__ = ["install", "snapshot", "restore", "before_locked", "after_locked", "begin_test", "end_test", "genuine"]
