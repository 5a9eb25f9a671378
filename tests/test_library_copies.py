"""Answers copied from the course library with light edits are flagged for review; independent answers are not.

The numbers `autograder.grading.library_copies` quotes are measured here: each exercise's library twin
lightly edited (names renamed, docstring and comments gone, reformatted, one line changed) stays at or
above THRESHOLD; the correct answers written another way (tests/wrong_implementations, RIGHT) stay below
it, and so do the reference solutions: a student who writes the course's own answer is not flagged.
"""
from __future__ import annotations

import ast
import importlib

import pytest

from autograder.grading import library_copies as lc
from tests.helpers import CHAPTERS, replace_solution, solution_nb
from tests.submissions import learner_submission

class _Rename(ast.NodeTransformer):
    """Every local name gets another name, as a student hiding a copy would rename."""

    def __init__(self, local):
        self.local = local

    def visit_Name(self, node):
        if node.id in self.local:
            node.id = f"my_{node.id}"
        return node

    def visit_arg(self, node):
        node.arg = f"my_{node.arg}"
        return node


def _library_node(module: str, name: str) -> ast.FunctionDef:
    tree = ast.parse(lc._module_file(module).read_text())
    *cls, fn = name.split(".")
    scope = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == cls[0]).body if cls else tree.body
    return next(n for n in scope if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name == fn)


def _simple_statements(fn):
    return [s for s in ast.walk(fn) if isinstance(s, (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Return, ast.Expr,
                                                     ast.Raise)) and not (isinstance(s, ast.Expr) and isinstance(
                                                         getattr(s, "value", None), ast.Constant))]


def lightly_edited(fn: ast.FunctionDef, change: int, whole_line: bool = False) -> str:
    """`fn` as a student might hand it in: renamed locals, no docstring, reformatted, its `change`-th simple
    statement altered (one sub-expression changed) or, with `whole_line`, replaced by another line."""
    import copy

    node = copy.deepcopy(fn)
    local = lc._local_names(node)
    node = _Rename(local).visit(node)
    if isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
        node.body = node.body[1:]
    target = _simple_statements(node)[change]
    if whole_line:
        new = ast.parse("changed_value = helper_of_mine(1) + 2").body[0]
    else:
        new = copy.deepcopy(target)
        if getattr(new, "value", None) is not None:
            new.value = ast.Call(ast.Name("float", ast.Load()), [new.value], [])      # a conversion added
        else:
            new = ast.parse("pass").body[0]
    for parent in ast.walk(node):
        for field in ("body", "orelse", "finalbody"):
            body = getattr(parent, field, None)
            if isinstance(body, list) and any(s is target for s in body):
                body[[id(s) for s in body].index(id(target))] = new
    node.name = "answer"
    return ast.unparse(ast.fix_missing_locations(node))


def _reference_functions():
    """(chapter, function node) for every function in a reference solution cell of every chapter."""
    from autograder.notebooks import is_solution

    for name in CHAPTERS:
        nb = solution_nb(name)
        for cell in nb.cells:
            if cell.cell_type == "code" and is_solution(cell):
                for fn in lc.function_defs(cell.source):
                    yield name, nb, fn


def test_greedy_tree_walk_pasted_into_8_2_with_one_line_changed_is_flagged():
    """The issue's case: specdec/trees.py's greedy_tree_walk pasted into 8.2, its names renamed, its
    docstring gone and one line changed, scored 5/5 with an empty review."""
    walk = _library_node("specdec.trees", "greedy_tree_walk")
    lines = _simple_statements(walk)
    for change in range(len(lines)):
        source = "import numpy as np\n\n" + lightly_edited(walk, change, whole_line=True).replace(
            "def answer", "def greedy_tree_walk")
        nb = replace_solution(learner_submission("08_token_trees", run=False), "ex_greedy_tree_walk", source)
        notes = lc.review_copies(nb, solution_nb("08_token_trees"))
        assert len(notes) == 1 and notes[0].startswith("ex_greedy_tree_walk: greedy_tree_walk is the course library's "
                                                       "greedy_tree_walk (specdec.trees) lightly edited"), (change, notes)


def test_the_answers_course_readers_write_are_not_flagged():
    """Chapter 08 answered with its reference solutions: no review entry (its reference is 0.81 alike at most)."""
    nb = learner_submission("08_token_trees", run=False)
    assert lc.review_copies(nb, solution_nb("08_token_trees")) == []


def _edited_twin_scores(chapter, twin, library) -> dict:
    """{(chapter, twin, line changed): similarity} of `twin` lightly edited at each of its simple
    statements in turn, after checking each edit is found as a copy of `twin`."""
    measured = {}
    node = _library_node(twin.module, twin.name)
    for change in range(len(_simple_statements(node))):
        edited = lc.function_defs(lightly_edited(node, change))[0]
        score, found = lc.nearest(edited, library)
        measured[(chapter[:2], twin.label, change)] = score
        assert found == twin or score == 1.0, (twin.label, change, found)
        assert score >= lc.THRESHOLD, f"{twin.label} with line {change} changed: {score}"
    return measured


def test_every_library_twin_lightly_edited_is_flagged():
    """Each exercise's library twins (the library function of its name, and the one nearest its reference
    solution), with names renamed, docstring gone, reformatted and any one line altered, are flagged naming
    that function: a library version written unlike the reference solution is still found when copied."""
    measured = {}
    for name, nb, fn in _reference_functions():
        library = lc.chapter_library(nb)
        twins = {f for f in library if f.name == fn.name} | {lc.nearest(fn, library)[1]}
        for twin in twins - {None}:
            if len(twin.tokens) >= lc.MIN_TOKENS:
                measured.update(_edited_twin_scores(name, twin, library))
    labels = {k[1] for k in measured}
    assert len(labels) >= 20, measured
    # The four rewritten unlike their reference solutions (9.1, 10.1, 10.4, 13.5) are still twins by name.
    assert {"ngram_draft (specdec.ngram)", "reserve (specdec.paged_cache)", "copy_on_write (specdec.shared_blocks)",
            "tree_attention_mask (specdec.trees)"} <= labels, labels


def test_correct_answers_written_another_way_are_not_flagged():
    """tests/wrong_implementations' RIGHT answers (a loop where the solution is vectorised, ...): all below
    THRESHOLD against every function of their chapter's library modules."""
    seen = 0
    for name in CHAPTERS:
        module = importlib.import_module(f"tests.wrong_implementations.ch{name[:2]}")
        library = lc.chapter_library(solution_nb(name))
        for exercise, answers in getattr(module, "RIGHT", {}).items():
            for key, source in answers.items():
                assert lc.copied_functions(source, library) == [], (name, exercise, key)
                seen += 1
    assert seen >= 10


def test_reference_solutions_are_not_flagged():
    """A student who writes the course's own answer is not flagged: every reference solution stays below
    THRESHOLD against its chapter's library, and 0.85 at most (the figure library_copies quotes)."""
    flagged, scores = {}, {}
    for name, nb, fn in _reference_functions():
        score, twin = lc.nearest(fn, lc.chapter_library(nb))
        if len(lc.tokens(fn)) >= lc.MIN_TOKENS:
            scores[(name[:2], fn.name)] = score
            if score >= lc.THRESHOLD:
                flagged[(name[:2], fn.name)] = f"{twin.label}: {score}"
    assert flagged == {}, flagged
    assert len(scores) >= 30 and max(scores.values()) <= 0.85, sorted(scores.items(), key=lambda kv: -kv[1])[:5]


def test_short_functions_are_never_flagged():
    """A two-line function is written alike by anyone who writes it right."""
    source = "def acceptance_rate(p, q):\n    return float(np.minimum(p, q).sum())"
    assert len(lc.tokens(lc.function_defs(source)[0])) < lc.MIN_TOKENS
    assert lc.copied_functions(source, lc.chapter_library(solution_nb("03_acceptance_rule"))) == []


@pytest.mark.parametrize("chapter, function, module", [
    ("08_token_trees", "greedy_tree_walk", "specdec.trees"),
    ("11_pytorch_verifier", "batched_verify", "specdec.engine.batched"),     # forbidden through a helper
    ("10_cache_rollback", "trim", "specdec.paged_cache"),                    # `from specdec.paged_cache import ...`
])
def test_each_exercise_is_compared_with_the_modules_its_hidden_tests_forbid(chapter, function, module):
    assert module in lc.exercise_modules(solution_nb(chapter))[function]
