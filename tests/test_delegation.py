"""autograder.delegation catches every way of handing an exercise to the library, and nothing else."""
import numpy as np
import pytest

import specdec.speculative
from autograder.delegation import assert_own_work, delegated_calls
from tests.wrong_implementations.delegation import delegation_forms

P = np.full((3, 3), 1 / 3)
Q = np.full((2, 3), 1 / 3)
ARGS = (P, Q, [0, 1], np.random.default_rng(0))
DEF = "def speculative_verify(p, q, drafts, rng):"

OWN = '''def speculative_verify(p, q, drafts, rng):
    out = []
    for i, x in enumerate(drafts):
        if rng.random() < p[i, x] / q[i, x]:
            out.append(int(x))
            continue
        r = np.maximum(p[i] - q[i], 0)
        return out + [int(rng.choice(len(r), p=r / r.sum()))]
    return out + [int(rng.choice(p.shape[1], p=p[-1]))]'''

SNEAKY = {
    **delegation_forms(DEF, "specdec.speculative", "verify_round"),
    "importlib_at_call_time": '''import importlib
def speculative_verify(p, q, drafts, rng):
    mod = importlib.import_module("specdec." + "speculative")
    return getattr(mod, "verify_" + "round")(p, q, drafts, rng)''',
    "through_a_helper": '''from specdec.speculative import verify_round
def _helper(*a):
    return verify_round(*a)
def speculative_verify(p, q, drafts, rng):
    return _helper(p, q, drafts, rng)''',
    "decorated": '''import functools
from specdec.speculative import verify_round
speculative_verify = functools.partial(verify_round)''',
    "closure": '''def make():
    from specdec.speculative import verify_round as v
    def speculative_verify(p, q, drafts, rng):
        return v(p, q, drafts, rng)
    return speculative_verify
speculative_verify = make()''',
}


def _define(source):
    namespace = {"np": np}
    exec(compile(source, "<learner>", "exec"), namespace)
    return namespace["speculative_verify"]


@pytest.mark.parametrize("form", sorted(SNEAKY))
def test_every_form_of_delegation_is_refused_with_a_message(form):
    fn = _define(SNEAKY[form])
    with pytest.raises(AssertionError, match=r"calls the course library's verify_round .*write the rule yourself"):
        assert_own_work(fn, [specdec.speculative.verify_round], args=ARGS, name="speculative_verify",
                        what="the rule")


@pytest.mark.parametrize("form", sorted(SNEAKY))
def test_a_whole_module_can_be_forbidden(form):
    assert delegated_calls(_define(SNEAKY[form]), [specdec.speculative], args=ARGS)


def test_own_work_passes_even_when_it_uses_allowed_library_code():
    assert delegated_calls(_define(OWN), [specdec.speculative.verify_round], args=ARGS) == []
    # Library code that is not forbidden (here the toy models a setup cell provides) is fine to call.
    from specdec.distributions import residual
    namespace = {"np": np, "residual": residual}
    exec("def f(p, q):\n    return residual(p, q)", namespace)
    assert delegated_calls(namespace["f"], [specdec.speculative], args=(P[0], Q[0])) == []


def test_a_crashing_or_printing_probe_is_not_this_checks_business(capsys):
    fn = _define("def speculative_verify(p, q, drafts, rng):\n    print('debug')\n    raise ValueError('x')")
    assert_own_work(fn, [specdec.speculative.verify_round], args=ARGS)
    assert capsys.readouterr() == ("", "")


def test_bad_forbidden_entries_are_rejected():
    with pytest.raises(TypeError, match="library functions, classes or modules"):
        assert_own_work(len, ["verify_round"])


def test_a_library_module_in_scope_does_not_taint_a_learners_own_function():
    """A scratch `import specdec.paged_cache as pc` must not flag the learner's own `trim`."""
    namespace = {}
    exec("import specdec.paged_cache as pc\n"
         "def trim(cache, seq, n):\n    return n\n", namespace)
    import specdec.paged_cache
    assert delegated_calls(namespace["trim"], [specdec.paged_cache], args=(None, 0, 1)) == []


def test_same_named_wrapper_form_reaches_the_library_not_itself():
    forms = delegation_forms("def trim(cache, seq, n):", "specdec.paged_cache", "trim")
    namespace = {}
    exec(forms["delegate_thin_wrapper"], namespace)
    import specdec.paged_cache
    assert delegated_calls(namespace["trim"], [specdec.paged_cache.trim], probe=False)


def test_a_closure_over_the_library_is_seen_without_calling_it():
    fn = _define(SNEAKY["closure"])
    assert delegated_calls(fn, [specdec.speculative.verify_round], probe=False)
