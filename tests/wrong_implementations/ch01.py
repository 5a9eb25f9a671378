"""Deliberately wrong answers to chapter 01's exercises (solutions/01_cost_model.ipynb).

Each value replaces the whole solution cell with that grade_id. Every one of them must lose
points (at least one test cell fails) while the real solution gets full marks. The exercises
are deterministic formulas, so no chi-square statistics are involved; the comment on each
entry names the test cell and the case that catches it.
"""

from tests.wrong_implementations.delegation import delegation_forms

_T_PASS_DEF = "def t_pass(B, k, t_W, t_K, t_F, t_0=0.0):"
_FREE_K_DEF = "def largest_free_k(model, gpu, n_gpu, T_bar, B):"

# The library's functions have the exercises' own names, so delegation_forms' thin wrapper would only call
# itself (RecursionError); a learner imports the library's function under another name, and that form
# replaces it. The StepCost route is a fourth way in. All compute the right answer and are refused by
# the hidden assert_own_work check of every test cell ("... calls the course library's t_pass ...").
_ALIASED = {
    "ex_t_pass": {
        "delegate_thin_wrapper": f"""from specdec.cost_model import t_pass as library_t_pass

{_T_PASS_DEF}
    return library_t_pass(B, k, t_W, t_K, t_F, t_0)
""",
        "delegate_through_step_cost_object": f"""from specdec.cost_model import StepCost

{_T_PASS_DEF}
    return StepCost(t_W, t_K, t_F, t_0).t_pass(B, k)
""",
    },
    "ex_largest_free_k": {
        "delegate_thin_wrapper": f"""from specdec.cost_model import largest_free_k as library_free_k

{_FREE_K_DEF}
    return library_free_k(model, gpu, n_gpu, T_bar, B)
""",
        "delegate_through_step_cost_object": f"""from specdec.cost_model import step_cost

{_FREE_K_DEF}
    return step_cost(model, gpu, n_gpu, T_bar).largest_free_k(B)
""",
    },
}

_T_PASS_HEAD = '''def t_pass(B, k, t_W, t_K, t_F, t_0=0.0):
    """Time (seconds) of one pass over k new tokens for each of B sequences."""
    B = np.asarray(B, dtype=float)
    k = np.asarray(k, dtype=float)
    if np.any(B < 1) or np.any(k < 1):
        raise ValueError("B and k must be >= 1")
    if min(t_W, t_K, t_F, t_0) < 0:
        raise ValueError("times must be >= 0")
'''

_FREE_K_HEAD = '''def largest_free_k(model, gpu, n_gpu, T_bar, B):
    """Largest integer k >= 0 such that a pass over k tokens of each of B sequences costs one decode step."""
    if B < 1 or n_gpu < 1 or T_bar < 0:
        raise ValueError("need B >= 1, n_gpu >= 1, T_bar >= 0")
    bandwidth = n_gpu * gpu.bandwidth
    flops = n_gpu * gpu.flops_bf16
'''

_FREE_K_TIMES = '''    t_W = model.bytes_per_weight * model.n_params / bandwidth
    t_K = T_bar * model.kv_bytes_per_token / bandwidth
    t_F = (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar) / flops
'''

WRONG = {
    "ex_t_pass": {
        **delegation_forms(_T_PASS_DEF, "specdec.cost_model", "t_pass"),
        **_ALIASED["ex_t_pass"],
        # test_t_pass_values (visible): one token of Llama 3.1 70B costs t_W + t_F = 5.287 ms, not 5.269 ms; the
        # assert recognises t_W + k t_F and says "Did you add the two sides instead of taking the max?".
        "sum_instead_of_max": _T_PASS_HEAD + '''    out = t_W + B * t_K + k * B * t_F + t_0
    return float(out) if out.ndim == 0 else out
''',
        # test_t_pass_values (hidden): (2, 10, t_0=0.1) gives 5.0 instead of 5.1; (3, 1, t_0=0.2) 2.5 not 2.7.
        "forgets_t_0": _T_PASS_HEAD + '''    out = np.maximum(t_W + B * t_K, k * B * t_F)
    return float(out) if out.ndim == 0 else out
''',
        # test_t_pass_values (hidden): (2, 3, 1, 0.5, 0.25) gives max(1.5, 1.5) = 1.5 instead of 2.
        "cache_read_once_not_per_sequence": _T_PASS_HEAD + '''    out = np.maximum(t_W + t_K, k * B * t_F) + t_0
    return float(out) if out.ndim == 0 else out
''',
        # test_t_pass_values (hidden): (2, 10, 1, 0.5, 0.25) gives max(2, 2.5) = 2.5 instead of 5;
        # test_t_pass_arrays (visible): slope past the knee is t_F = 0.5, not B t_F = 1.
        "compute_ignores_batch": _T_PASS_HEAD + '''    out = np.maximum(t_W + B * t_K, k * t_F) + t_0
    return float(out) if out.ndim == 0 else out
''',
        # test_t_pass_values (visible): 1000 tokens give 999 t_F (the real token's arithmetic is forgotten).
        "counts_only_the_guesses": _T_PASS_HEAD + '''    out = np.maximum(t_W + B * t_K, (k - 1) * B * t_F) + t_0
    return float(out) if out.ndim == 0 else out
''',
        # test_t_pass_arrays (visible): Python's max() on arrays raises "truth value ... is ambiguous".
        "python_max_not_vectorised": '''def t_pass(B, k, t_W, t_K, t_F, t_0=0.0):
    """Time (seconds) of one pass over k new tokens for each of B sequences."""
    if np.any(np.asarray(B) < 1) or np.any(np.asarray(k) < 1) or min(t_W, t_K, t_F, t_0) < 0:
        raise ValueError("bad input")
    return max(t_W + B * t_K, k * B * t_F) + t_0
''',
        # test_t_pass_bad_input (visible): B = 0 returns a number instead of raising ValueError.
        "no_input_checks": '''def t_pass(B, k, t_W, t_K, t_F, t_0=0.0):
    """Time (seconds) of one pass over k new tokens for each of B sequences."""
    out = np.maximum(t_W + np.asarray(B) * t_K, np.asarray(k) * np.asarray(B) * t_F) + t_0
    return float(out) if np.ndim(out) == 0 else out
''',
    },
    "ex_largest_free_k": {
        **delegation_forms(_FREE_K_DEF, "specdec.cost_model", "largest_free_k"),
        **_ALIASED["ex_largest_free_k"],
        # test_free_k_batch_context (visible): B=64, T_bar=64 has ratio 4.76 -> round gives 5, not 4.
        "round_instead_of_floor": _FREE_K_HEAD + _FREE_K_TIMES + '''    return int(round((t_W + B * t_K) / (B * t_F)))
''',
        # test_free_k_batch_context (hidden): power-of-two toy GPU, ratio exactly 8 -> returns 7 (strict <).
        "strict_inequality": _FREE_K_HEAD + _FREE_K_TIMES + '''    return int(math.ceil((t_W + B * t_K) / (B * t_F))) - 1
''',
        # test_free_k_short_context (visible): 295.2 -> floor + 1 = 296.
        "floor_plus_one": _FREE_K_HEAD + _FREE_K_TIMES + '''    return int(math.floor((t_W + B * t_K) / (B * t_F))) + 1
''',
        # test_free_k_short_context (visible): bytes/FLOP instead of FLOP/byte gives 0 instead of 295.
        "ridge_point_inverted": '''def largest_free_k(model, gpu, n_gpu, T_bar, B):
    """Largest integer k >= 0 such that a pass over k tokens of each of B sequences costs one decode step."""
    if B < 1 or n_gpu < 1 or T_bar < 0:
        raise ValueError("need B >= 1, n_gpu >= 1, T_bar >= 0")
    bytes_ = model.bytes_per_weight * model.n_params + B * T_bar * model.kv_bytes_per_token
    flops = B * (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar)
    return int(math.floor(bytes_ / flops * gpu.bandwidth / gpu.flops_bf16))
''',
        # test_free_k_batch_context (visible): B=64, T_bar=4096 gives 14 instead of 12 (no attention FLOPs).
        "ignores_attention_arithmetic": _FREE_K_HEAD + '''    t_W = model.bytes_per_weight * model.n_params / bandwidth
    t_K = T_bar * model.kv_bytes_per_token / bandwidth
    t_F = 2 * model.n_active / flops
    return int(math.floor((t_W + B * t_K) / (B * t_F)))
''',
        # test_free_k_batch_context (visible): B=64, T_bar=64 gives 294 instead of 4 (batch ignored).
        "ignores_batch": _FREE_K_HEAD + _FREE_K_TIMES + '''    return int(math.floor((t_W + t_K) / t_F))
''',
        # test_free_k_batch_context (visible): B=64, T_bar=4096 gives 4 instead of 12 (one cache read for the batch).
        "cache_read_once_not_per_sequence": _FREE_K_HEAD + _FREE_K_TIMES + '''    return int(math.floor((t_W + t_K) / (B * t_F)))
''',
        # test_free_k_batch_context (hidden): DeepSeek-V3, B=1, T_bar=0: 147 instead of 2676 (n_params in the FLOPs).
        "total_params_in_flops": _FREE_K_HEAD + '''    t_W = model.bytes_per_weight * model.n_params / bandwidth
    t_K = T_bar * model.kv_bytes_per_token / bandwidth
    t_F = (2 * model.n_params + 4 * model.n_layers * model.d_attn * T_bar) / flops
    return int(math.floor((t_W + B * t_K) / (B * t_F)))
''',
        # test_free_k_batch_context (hidden): DeepSeek-V3 has fp8 weights; assuming 2 bytes gives 5353 instead of 2676.
        "assumes_two_bytes_per_weight": _FREE_K_HEAD + '''    t_W = 2 * model.n_params / bandwidth
    t_K = T_bar * model.kv_bytes_per_token / bandwidth
    t_F = (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar) / flops
    return int(math.floor((t_W + B * t_K) / (B * t_F)))
''',
        # test_free_k_batch_context (visible): always the short-context bound s_W I*/2 = 295, e.g. 295 instead of 4.
        "short_context_bound_only": _FREE_K_HEAD + '''    return int(math.floor(model.bytes_per_weight * gpu.flops_bf16 / (2 * gpu.bandwidth)))
''',
        # test_free_k_short_context (visible): n_gpu applied to the FLOP rate only; Llama 3.1 70B on 8 GPUs gives
        # 2361 instead of 295 (and test_free_k_batch_context's n_gpu-independence check, hidden, catches it too).
        "n_gpu_on_one_side": '''def largest_free_k(model, gpu, n_gpu, T_bar, B):
    """Largest integer k >= 0 such that a pass over k tokens of each of B sequences costs one decode step."""
    if B < 1 or n_gpu < 1 or T_bar < 0:
        raise ValueError("need B >= 1, n_gpu >= 1, T_bar >= 0")
    t_W = model.bytes_per_weight * model.n_params / gpu.bandwidth
    t_K = T_bar * model.kv_bytes_per_token / gpu.bandwidth
    t_F = (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar) / (n_gpu * gpu.flops_bf16)
    return int(math.floor((t_W + B * t_K) / (B * t_F)))
''',
        # test_free_k_bad_input (visible): B = 0 raises ZeroDivisionError, not ValueError.
        "no_input_checks": '''def largest_free_k(model, gpu, n_gpu, T_bar, B):
    """Largest integer k >= 0 such that a pass over k tokens of each of B sequences costs one decode step."""
    bandwidth = n_gpu * gpu.bandwidth
    flops = n_gpu * gpu.flops_bf16
''' + _FREE_K_TIMES + '''    return int(math.floor((t_W + B * t_K) / (B * t_F)))
''',
    },
}
