"""Answers that are the course library's own code, lightly edited: flagged for an instructor to review.

The course library (`specdec`) holds a reference version of many exercises (later chapters and widgets
need them), and every student can read it. The hidden tests' delegation check (`autograder.delegation`)
refuses an answer that *calls* the library; this module finds one that *copies* it. Nothing here
changes a score: each near copy becomes a line in the `review` column of `grades.csv`, naming the
library function, and a human decides.

What is compared. For each exercise, the library code is what its hidden tests forbid: the `specdec`
modules imported by the test cells that call `assert_own_work` (`exercise_modules`), so chapter 08's
8.2 is compared with every function of `specdec/trees.py`. Every function the student defines in their
own cells (solution cells and cells they added) is compared with every function of those modules.

How near counts. Both functions are normalised through Python's AST: docstrings and comments dropped,
layout and quoting as `ast.unparse` writes them, the function's own name and every local name
(arguments, assigned names, loop and comprehension variables, nested functions) replaced by one
placeholder, so renaming changes nothing; module names, attributes, constants and the shape of the
code stay. The similarity is difflib's ratio of the two token sequences (2 x matching tokens / all
tokens). A function is flagged at `THRESHOLD` or above when it has at least `MIN_TOKENS` tokens: a
two-line function is written alike by anyone who writes it right, so a copy of it cannot be told from
independent work. Measured on the course (tests/test_library_copies.py): each exercise's library twin
with its names renamed, docstring and comments dropped, reformatted and one line altered stays at
THRESHOLD or above; with one whole line replaced by an unrelated one, twins of ten lines or more stay at
0.88 or above (8.2's `greedy_tree_walk`: 0.91). The correct answers written another way
(tests/wrong_implementations, RIGHT) reach 0.80 at most, and the reference solutions 0.85 at most (a
library version once written like its reference solution was rewritten another way), so a student who
writes the course's own answer is not flagged.

    >>> lib = "def add_all(xs):\\n    '''Sum.'''\\n    total = 0\\n    for x in xs:\\n        total += x  # why\\n    return total"
    >>> mine = "def my_sum(values):\\n    s = 0\\n    for v in values:\\n        s += v\\n    return s"
    >>> tokens(function_defs(mine)[0]) == tokens(function_defs(lib)[0])
    True
    >>> similarity(tokens(function_defs(mine)[0]), tokens(function_defs("def f(a):\\n    return sum(a)")[0]))
    0.51
"""
from __future__ import annotations

import ast
import copy
import difflib
import functools
import importlib.util
import io
import re
import tokenize
from dataclasses import dataclass
from pathlib import Path

from ..notebooks import grade_id_of, is_locked, is_solution

#: The similarity (0 to 1) from which a student's function counts as a copy of a library function.
THRESHOLD = 0.87
#: Functions shorter than this (normalised tokens) are never flagged: too short to tell a copy.
MIN_TOKENS = 40
#: Packages whose modules are the course's own code (the delegation check's module is not an answer).
COURSE_PACKAGES = ("specdec",)
LOCAL = "_v"            # what every local name becomes
_MAGIC = re.compile(r"^\s*[%!].*$", re.M)


@dataclass(frozen=True)
class LibraryFunction:
    name: str           # 'greedy_tree_walk' or 'PromptLookup.draft'
    module: str         # 'specdec.trees'
    tokens: tuple[str, ...]

    @property
    def label(self) -> str:
        return f"{self.name} ({self.module})"


def _parse(source: str) -> ast.Module | None:
    """A cell's code as an AST (IPython magics and shell lines blanked), or None if it does not parse."""
    try:
        return ast.parse(_MAGIC.sub("", source))
    except (SyntaxError, ValueError):
        return None


def function_defs(source: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions `source` defines at its top level and as methods of its top-level classes."""
    tree = _parse(source)
    if tree is None:
        return []
    out = []
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(node)
        elif isinstance(node, ast.ClassDef):
            out += [n for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return out


def _local_names(fn: ast.AST) -> set[str]:
    """Every name bound inside `fn`: its arguments, assigned names, loop, `with`, `except` and
    comprehension variables, nested functions and classes, and their own arguments."""
    names = set()
    for node in ast.walk(fn):
        if isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, (ast.Store, ast.Del)):
            names.add(node.id)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node is not fn:
            names.add(node.name)
        elif isinstance(node, ast.ExceptHandler) and node.name:
            names.add(node.name)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            names.difference_update(node.names)
    return names


class _Normalise(ast.NodeTransformer):
    def __init__(self, local: set[str]):
        self.local = local

    def _strip_docstring(self, node):
        body = node.body
        if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                and isinstance(body[0].value.value, str):
            node.body = body[1:] or [ast.Pass()]
        return node

    def visit_FunctionDef(self, node):
        node = self._strip_docstring(node)
        node.name = LOCAL
        node.returns = None         # annotations are not the algorithm
        self.generic_visit(node)
        return node

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        node = self._strip_docstring(node)
        node.name = LOCAL
        self.generic_visit(node)
        return node

    def visit_arg(self, node):
        node.arg, node.annotation = LOCAL, None
        return node

    def visit_Name(self, node):
        if node.id in self.local:
            node.id = LOCAL
        return node

    def visit_ExceptHandler(self, node):
        if node.name:
            node.name = LOCAL
        self.generic_visit(node)
        return node

    def visit_Expr(self, node):
        # A bare string in a body is a comment written as a string.
        if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            return None
        self.generic_visit(node)
        return node


def tokens(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> tuple[str, ...]:
    """The function as a token sequence: docstrings, comments, annotations and layout gone, its own
    name and every local name one placeholder (renaming changes nothing)."""
    node = copy.deepcopy(fn)
    local = _local_names(node) | {node.name}
    node.decorator_list = []
    node = ast.fix_missing_locations(_Normalise(local).visit(node))
    text = ast.unparse(node)
    skip = {tokenize.COMMENT, tokenize.NL, tokenize.ENCODING, tokenize.ENDMARKER}
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(text).readline):
        if tok.type in skip:
            continue
        out.append(tokenize.tok_name[tok.type] if tok.type in (tokenize.INDENT, tokenize.DEDENT, tokenize.NEWLINE)
                   else tok.string)
    return tuple(out)


def similarity(a: tuple[str, ...], b: tuple[str, ...]) -> float:
    """difflib's ratio of two token sequences, rounded to two decimals (1.0: the same code)."""
    return round(difflib.SequenceMatcher(None, a, b, autojunk=False).ratio(), 2)


def _module_file(module: str) -> Path | None:
    """The source file of a course module, found without importing it (nor the modules it imports)."""
    top, *rest = module.split(".")
    spec = importlib.util.find_spec(top)
    if spec is None or not spec.submodule_search_locations:
        return None
    base = Path(list(spec.submodule_search_locations)[0]).joinpath(*rest)
    for path in (base.with_suffix(".py"), base / "__init__.py"):
        if path.is_file():
            return path
    return None


@functools.lru_cache(maxsize=None)
def library_functions(module: str) -> tuple[LibraryFunction, ...]:
    """Every function and method a course module defines, normalised."""
    path = _module_file(module)
    if path is None:
        return ()
    source = path.read_text(encoding="utf-8")
    out = []
    tree = _parse(source)
    for node in tree.body if tree else []:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.append(LibraryFunction(node.name, module, tokens(node)))
        elif isinstance(node, ast.ClassDef):
            out += [LibraryFunction(f"{node.name}.{n.name}", module, tokens(n)) for n in node.body
                    if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
    return tuple(out)


def _course_module(name: str | None) -> str | None:
    """`name` if it is a module of the course library (a submodule, not a function imported from one)."""
    if not name or name.split(".")[0] not in COURSE_PACKAGES:
        return None
    return name if _module_file(name) else None


def _imported_modules(tree: ast.AST) -> set[str]:
    """The course-library modules an AST imports (`import specdec.trees`, `from specdec import trees`,
    `from specdec.paged_cache import trim`: specdec.paged_cache)."""
    out = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(m for alias in node.names if (m := _course_module(alias.name)))
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            subs = {m for alias in node.names if (m := _course_module(f"{node.module}.{alias.name}"))}
            out.update(subs or ({node.module} if _course_module(node.module) else set()))
    return out


def _called_name(call: ast.Call) -> str | None:
    f = call.func
    return f.id if isinstance(f, ast.Name) else f.attr if isinstance(f, ast.Attribute) else None


def exercise_modules(reference) -> dict[str, set[str]]:
    """{exercise function: the course-library modules its hidden tests forbid} from a chapter's
    instructor notebook: the modules imported by each test cell that calls `assert_own_work(fn, ...)`,
    and by any of the notebook's own helper functions that call names (chapter 11's `library_verifiers()`)."""
    trees = [t for c in reference.cells if c.cell_type == "code" and (t := _parse(c.source)) is not None]
    helpers = {node.name: node for t in trees for node in ast.walk(t) if isinstance(node, ast.FunctionDef)}
    out: dict[str, set[str]] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Call) and _called_name(node) == "assert_own_work" and node.args):
                continue
            if not isinstance(node.args[0], ast.Name):
                continue
            modules = _imported_modules(tree)
            for arg in node.args[1:2]:
                for call in ast.walk(arg):
                    if isinstance(call, ast.Call) and _called_name(call) in helpers:
                        modules |= _imported_modules(helpers[_called_name(call)])
            out.setdefault(node.args[0].id, set()).update(modules)
    return out


def chapter_library(reference) -> tuple[LibraryFunction, ...]:
    """The library functions a chapter's answers are compared with (those of every module its hidden
    tests forbid)."""
    modules = sorted(set().union(*exercise_modules(reference).values()))
    return tuple(f for m in modules for f in library_functions(m))


def nearest(fn: ast.FunctionDef | ast.AsyncFunctionDef, library) -> tuple[float, LibraryFunction | None]:
    """The library function most like `fn`, and how alike (0 to 1)."""
    mine = tokens(fn)
    best, found = 0.0, None
    for lib in library:
        matcher = difflib.SequenceMatcher(None, mine, lib.tokens, autojunk=False)
        if matcher.real_quick_ratio() <= best or matcher.quick_ratio() <= best:
            continue
        score = matcher.ratio()
        if score > best:
            best, found = score, lib
    return round(best, 2), found


def copied_functions(source: str, library) -> list[str]:
    """'fn: ...' for each function of `source` that is a near copy of a library function."""
    notes = []
    for fn in function_defs(source):
        if len(tokens(fn)) < MIN_TOKENS:
            continue
        score, lib = nearest(fn, library)
        if lib is not None and score >= THRESHOLD and len(lib.tokens) >= MIN_TOKENS:
            notes.append(f"{fn.name} is the course library's {lib.label} lightly edited "
                         f"({score:.0%} alike with names, comments and layout set aside)")
    return notes


def review_copies(nb, reference) -> list[str]:
    """'cell: fn is the course library's ...' for each near copy in the student's own code cells (not the
    locked ones, not those `release` adds), compared with the chapter's library (`chapter_library`)."""
    from ..authoring.learner_cells import is_learner_cell

    library = chapter_library(reference)
    if not library:
        return []
    notes = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code" or is_locked(cell) or is_learner_cell(cell):
            continue
        where = grade_id_of(cell) if is_solution(cell) else f"cell {index}"
        notes += [f"{where}: {note}" for note in copied_functions(cell.source, library)]
    return notes
