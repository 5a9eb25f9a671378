"""Hidden tests that refuse an exercise solved by calling the course library.

The course library (`specdec`) holds reference versions of many exercises, because later
chapters and widgets need them. Hidden tests call `assert_own_work` in every test cell of an
exercise, so a delegating answer earns no points there and the learner reads why; how a chapter
uses it is in docs/EXERCISES.md, section "An exercise is solved by the learner, not by the library".

    >>> import specdec.distributions as d
    >>> def tv(p, q):
    ...     return 1 - d.acceptance_probability(p, q)
    >>> try:
    ...     assert_own_work(tv, [d.acceptance_probability], args=([0.5, 0.5], [0.5, 0.5]), what="the distance")
    ... except AssertionError as e:
    ...     print(str(e).split(";")[0])
    tv calls the course library's acceptance_probability (specdec.distributions)
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import io
import sys
import types
import warnings
from typing import Any, Iterable

LIBRARY_PACKAGES = ("specdec",)


def _unwrap(obj: Any) -> Any:
    """The plain function behind partials, bound methods and functools.wraps decorators."""
    for _ in range(20):
        if isinstance(obj, functools.partial):
            obj = obj.func
        elif isinstance(obj, (types.MethodType, staticmethod, classmethod)):
            obj = obj.__func__
        elif hasattr(obj, "__wrapped__"):
            obj = obj.__wrapped__
        else:
            return obj
    return obj


def _forbidden_functions(forbidden: Iterable[Any]) -> dict[types.CodeType, str]:
    """{code object: 'name (module)'} for every forbidden function; a module stands for all
    the functions and methods it defines."""
    out: dict[types.CodeType, str] = {}

    def add(fn: Any) -> None:
        fn = _unwrap(fn)
        code = getattr(fn, "__code__", None)
        if code is not None:
            out[code] = f"{fn.__name__} ({fn.__module__})"

    for item in forbidden:
        if isinstance(item, types.ModuleType):
            for value in vars(item).values():
                if getattr(_unwrap(value), "__module__", None) == item.__name__:
                    if inspect.isclass(value):
                        for member in vars(value).values():
                            add(member)
                    else:
                        add(value)
        elif inspect.isclass(item):
            for member in vars(item).values():
                add(member)
        elif callable(item):
            add(item)
        else:
            raise TypeError(f"forbidden entries are library functions, classes or modules, not {item!r}")
    return out


def _code_objects(code: types.CodeType):
    yield code
    for const in code.co_consts:
        if isinstance(const, types.CodeType):
            yield from _code_objects(const)


def _names_used(fn: Any) -> set[str]:
    """Global, closure and attribute names the function's code (nested functions included) mentions."""
    code = getattr(_unwrap(fn), "__code__", None)
    if code is None:
        return set()
    return {name for c in _code_objects(code) for name in c.co_names + c.co_freevars}


def _static_hits(fn: Any, codes: dict[types.CodeType, str]) -> list[str]:
    fn = _unwrap(fn)
    if getattr(fn, "__code__", None) in codes:
        return [codes[fn.__code__]]
    hits = []
    names = _names_used(fn)
    namespace = dict(getattr(fn, "__globals__", {}))
    for cell_name, cell in zip(getattr(getattr(fn, "__code__", None), "co_freevars", ()), fn.__closure__ or ()):
        with contextlib.suppress(ValueError):
            namespace[cell_name] = cell.cell_contents
    for name, value in namespace.items():
        if name not in names:          # only what the function's code mentions
            continue
        candidates = [value]
        if isinstance(value, types.ModuleType) and value.__name__.split(".")[0] in LIBRARY_PACKAGES:
            # `s.verify_round(...)`: both `s` and the attribute name appear in co_names.
            candidates = [getattr(value, attr, None) for attr in names]
        for candidate in candidates:
            code = getattr(_unwrap(candidate), "__code__", None)
            if code in codes and codes[code] not in hits:
                hits.append(codes[code])
    return hits


def _dynamic_hits(fn: Any, codes: dict[types.CodeType, str], args: tuple, kwargs: dict) -> list[str]:
    hits: list[str] = []

    def profile(frame, event, arg):
        if event == "call" and frame.f_code in codes and codes[frame.f_code] not in hits:
            hits.append(codes[frame.f_code])

    previous = sys.getprofile()
    sink = io.StringIO()
    # The probe's own output and exceptions are not this check's business: other tests judge them.
    with warnings.catch_warnings(), contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        warnings.simplefilter("ignore")
        sys.setprofile(profile)
        try:
            fn(*args, **kwargs)
        except BaseException as exc:            # noqa: BLE001 - a KeyboardInterrupt must still stop
            if isinstance(exc, KeyboardInterrupt):
                raise
        finally:
            sys.setprofile(previous)
    return hits


def delegated_calls(fn: Any, forbidden: Iterable[Any], *, args: tuple = (), kwargs: dict | None = None,
                    probe: bool = True) -> list[str]:
    """Names ('verify_round (specdec.speculative)') of the forbidden library functions that
    `fn` is, names in its code, or reaches when called with `args`; [] for the learner's own work.

    A learner could hand a library version back in three ways, and all three are caught:

        speculative_verify = verify_round                       # the same object
        def speculative_verify(p, q, d, rng):                   # a thin wrapper
            return verify_round(p, q, d, rng)
        import specdec.speculative as s                         # a call through the module
        def speculative_verify(p, q, d, rng):
            return s.verify_round(p, q, d, rng)

    Statically (the function is a library object, or its code, closures included, names one through
    a global or a module attribute) and, with `probe`, dynamically (it is called once under a
    profiler that records every Python function entered; reaching a forbidden library function by
    any route counts)."""
    codes = _forbidden_functions(forbidden)
    hits = _static_hits(fn, codes)
    if probe:
        for hit in _dynamic_hits(fn, codes, tuple(args), dict(kwargs or {})):
            if hit not in hits:
                hits.append(hit)
    return hits


def assert_own_work(fn: Any, forbidden: Iterable[Any], *, args: tuple = (), kwargs: dict | None = None,
                    name: str | None = None, what: str = "it") -> None:
    """Fail with a message a learner can act on if `fn` hands the exercise to the course library.

    fn        : the learner's function.
    forbidden : library functions, classes or modules (a module forbids every function in it)
                that compute this exercise's answer.
    args      : a valid input to probe `fn` with once (its result and errors are ignored).
    name      : the exercise's name in the message (default: fn.__name__).
    what      : what the learner should write, e.g. "the acceptance rule".
    """
    hits = delegated_calls(fn, forbidden, args=args, kwargs=kwargs)
    if hits:
        label = name or getattr(fn, "__name__", "your function")
        public = [h for h in hits if not h.startswith("_")] or hits     # the library's own helpers are noise
        first = public[0].split(" ")[0]
        raise AssertionError(
            f"{label} calls the course library's {', '.join(public)}; write {what} yourself. "
            f"This exercise earns no points while it hands the work to `{first}`.")
