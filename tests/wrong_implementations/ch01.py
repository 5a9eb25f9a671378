"""Deliberately wrong answers to chapter 01's exercises (solutions/01_cost_model.ipynb).

Each value replaces the whole solution cell with that grade_id. Every one of them must lose
points (at least one test cell fails) while the real solution gets full marks. The exercises
are deterministic formulas, so no chi-square statistics are involved; the comment on each
entry names the test cell and the case that catches it.
"""

from tests.wrong_implementations.delegation import delegation_forms

_T_PASS_DEF = "def t_pass(B, k, t_W, t_K, t_F, t_0=0.0):"
_FREE_K_DEF = "def largest_free_k(model, gpu, n_gpu, T_bar, B):"
_WO_DEF = "def weight_only_free_k(model, gpu, T_bar, B, s_W):"

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

_WO_HEAD = '''def weight_only_free_k(model, gpu, T_bar, B, s_W):
    """Largest free k with the weights stored at s_W bytes each."""
    if s_W <= 0 or B < 1 or T_bar < 0:
        raise ValueError("need s_W > 0, B >= 1, T_bar >= 0")
    attention = 4 * model.n_layers * model.d_attn * T_bar
'''


def _wo(memory: str, per_token: str, finish: str = "    return int(math.floor(memory / per_token))\n") -> str:
    return _WO_HEAD + f"    memory = {memory}\n    per_token = {per_token}\n" + finish


_WO_MEMORY = "(s_W * model.n_params + B * T_bar * model.kv_bytes_per_token) / gpu.bandwidth"
_WO_PER_TOKEN = "B * (2 * model.n_active + attention) / gpu.flops_bf16"
_WO_GUARDED = """    k = math.floor(memory / per_token)
    while (k + 1) * per_token <= memory:
        k += 1
    return int(k)
"""

# The library has no weight-only function: a learner hands the exercise over by calling largest_free_k on the
# model with its bytes per weight replaced (dataclasses.replace). The three forms, all right answers, are
# refused by the hidden assert_own_work check of every test cell ("... calls the course library's ...").
WRONG["ex_weight_only_free_k"] = {
    "delegate_same_object": f"""from dataclasses import replace
from specdec.cost_model import largest_free_k as library_free_k

{_WO_DEF}
    return library_free_k(replace(model, bytes_per_weight=s_W, fp8_gemms=False), gpu, 1, T_bar, B)
""",
    "delegate_thin_wrapper": f"""from dataclasses import replace
from specdec.cost_model import step_cost

{_WO_DEF}
    return step_cost(replace(model, bytes_per_weight=s_W, fp8_gemms=False), gpu, 1, T_bar).largest_free_k(B)
""",
    "delegate_through_module": f"""from dataclasses import replace
import specdec.cost_model as cost_model_lib

{_WO_DEF}
    return cost_model_lib.largest_free_k(replace(model, bytes_per_weight=s_W, fp8_gemms=False), gpu, 1, T_bar, B)
""",
    # test_weight_only_short_context (visible): a 4-bit weight taken to multiply 4 times as fast: t_F shrinks with
    # t_W and the range stays at the bfloat16 295 instead of 73; the message names both sides.
    "arithmetic_shrinks_too": _wo(_WO_MEMORY, "B * (2 * model.n_active * s_W / 2 + attention) / gpu.flops_bf16"),
    # test_weight_only_short_context (visible): the model's own 2 bytes per weight, s_W ignored: 295 instead of 73.
    "ignores_s_W": _wo("(model.bytes_per_weight * model.n_params + B * T_bar * model.kv_bytes_per_token) / gpu.bandwidth",
                       _WO_PER_TOKEN),
    # test_weight_only_batch_context (visible): the cache quantized with the weights (B=64, T_bar=4096).
    "cache_shrinks_too": _wo("(s_W * model.n_params + B * T_bar * model.kv_bytes_per_token * s_W / 2) / gpu.bandwidth",
                             _WO_PER_TOKEN),
    # test_weight_only_batch_context (visible): no attention FLOPs (B=64, T_bar=4096).
    "ignores_attention_arithmetic": _wo(_WO_MEMORY, "B * 2 * model.n_active / gpu.flops_bf16"),
    # test_weight_only_short_context (hidden): DeepSeek-V3 in 4 bits, B=1: n_params in the FLOPs.
    "total_params_in_flops": _wo(_WO_MEMORY, "B * (2 * model.n_params + attention) / gpu.flops_bf16"),
    # test_weight_only_batch_context (visible): one cache read for the whole batch (B=64, T_bar=4096).
    "cache_read_once_not_per_sequence": _wo("(s_W * model.n_params + T_bar * model.kv_bytes_per_token) / gpu.bandwidth",
                                            _WO_PER_TOKEN),
    # test_weight_only_batch_context: rounds to the nearest integer instead of down.
    "round_instead_of_floor": _wo(_WO_MEMORY, _WO_PER_TOKEN, "    return int(round(memory / per_token))\n"),
    # test_weight_only_batch_context (hidden): power-of-two toy, ratio exactly 2 -> 1 (strict <).
    "strict_inequality": _wo(_WO_MEMORY, _WO_PER_TOKEN, "    return int(math.ceil(memory / per_token)) - 1\n"),
    # test_weight_only_short_context (visible): the FLOP rate of eight GPUs against the bandwidth of one: 590 instead of 73.
    "bandwidth_of_one_flops_of_eight": _wo(_WO_MEMORY, "B * (2 * model.n_active + attention) / (8 * gpu.flops_bf16)",
                                           _WO_GUARDED),
    # test_weight_only_bad_input (visible): s_W = 0 returns a number instead of raising ValueError.
    "no_input_checks": f"""{_WO_DEF}
    memory = {_WO_MEMORY}
    per_token = B * (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar) / gpu.flops_bf16
    return int(math.floor(memory / per_token))
""",
}

# The words each likely wrong answer must read in some failing test cell (its misconception named).
MESSAGES = {
    "ex_t_pass/sum_instead_of_max": "Did you add the two sides instead of taking the max?",
    "ex_largest_free_k/ridge_point_inverted": "check you used pi/beta, not beta/pi",
    "ex_largest_free_k/total_params_in_flops": "Use n_active for the FLOPs",
    "ex_largest_free_k/assumes_two_bytes_per_weight": "bytes_per_weight for the bytes",
    "ex_largest_free_k/strict_inequality": "the boundary counts as free",
    "ex_weight_only_free_k/arithmetic_shrinks_too": "the products still run at the bfloat16 rate",
    "ex_weight_only_free_k/ignores_s_W": "only the bytes of the weights shrink (use s_W for them)",
    "ex_weight_only_free_k/cache_shrinks_too": "The KV cache stays in bfloat16",
    "ex_weight_only_free_k/ignores_attention_arithmetic": "includes attention over its T_bar cached tokens",
    "ex_weight_only_free_k/total_params_in_flops": "Multiply only the active parameters",
    "ex_weight_only_free_k/strict_inequality": "the boundary counts as free",
}

# Correct answers written another natural way, which must keep full marks (run through the power harness beside
# WRONG): t_pass with np.where, or a loop over the broadcast grid; the largest free k found by a search upwards,
# or as one floor of the bytes-to-FLOPs form in which n_gpu has cancelled.
RIGHT = {
    "ex_t_pass": {
        "where_instead_of_maximum": '''def t_pass(B, k, t_W, t_K, t_F, t_0=0.0):
    B, k = np.asarray(B, dtype=float), np.asarray(k, dtype=float)
    if (B < 1).any() or (k < 1).any() or t_W < 0 or t_K < 0 or t_F < 0 or t_0 < 0:
        raise ValueError("B, k >= 1 and non-negative times")
    memory, compute = t_W + B * t_K, k * B * t_F
    out = np.where(compute > memory, compute, memory) + t_0
    return out.item() if out.ndim == 0 else out
''',
        "loop_over_broadcast": '''def t_pass(B, k, t_W, t_K, t_F, t_0=0.0):
    for t in (t_W, t_K, t_F, t_0):
        if t < 0:
            raise ValueError("negative time")
    Bb, kb = np.broadcast_arrays(np.asarray(B, dtype=float), np.asarray(k, dtype=float))
    out = np.empty(Bb.shape)
    for idx in np.ndindex(*Bb.shape):
        b, kk = Bb[idx], kb[idx]
        if b < 1 or kk < 1:
            raise ValueError("B and k must be >= 1")
        out[idx] = max(t_W + b * t_K, kk * b * t_F) + t_0
    if out.ndim == 0:
        return float(out)
    return out
''',
    },
    "ex_largest_free_k": {
        "search_upwards": '''def largest_free_k(model, gpu, n_gpu, T_bar, B):
    if B < 1 or n_gpu < 1 or T_bar < 0:
        raise ValueError("need B >= 1, n_gpu >= 1, T_bar >= 0")
    t_W = model.bytes_per_weight * model.n_params / (n_gpu * gpu.bandwidth)
    t_K = T_bar * model.kv_bytes_per_token / (n_gpu * gpu.bandwidth)
    t_F = (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar) / (n_gpu * gpu.flops_bf16)
    k = 0
    while (k + 1) * B * t_F <= t_W + B * t_K:
        k += 1
    return k
''',
        "bytes_over_flops_floor": '''def largest_free_k(model, gpu, n_gpu, T_bar, B):
    if B < 1 or n_gpu < 1 or T_bar < 0:
        raise ValueError("need B >= 1, n_gpu >= 1, T_bar >= 0")
    # n_gpu multiplies both the bandwidth and the FLOP rate, so it cancels
    bytes_read = model.bytes_per_weight * model.n_params + B * T_bar * model.kv_bytes_per_token
    flops_per_k = B * (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar)
    return int(math.floor(bytes_read * gpu.flops_bf16 / (flops_per_k * gpu.bandwidth)))
''',
    },
    "ex_weight_only_free_k": {
        "search_upwards": '''def weight_only_free_k(model, gpu, T_bar, B, s_W):
    if s_W <= 0 or B < 1 or T_bar < 0:
        raise ValueError("need s_W > 0, B >= 1, T_bar >= 0")
    t_W = s_W * model.n_params / gpu.bandwidth
    t_K = T_bar * model.kv_bytes_per_token / gpu.bandwidth
    t_F = (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar) / gpu.flops_bf16
    k = 0
    while (k + 1) * B * t_F <= t_W + B * t_K:
        k += 1
    return k
''',
        "bytes_over_flops_floor": '''def weight_only_free_k(model, gpu, T_bar, B, s_W):
    if s_W <= 0 or B < 1 or T_bar < 0:
        raise ValueError("need s_W > 0, B >= 1, T_bar >= 0")
    bytes_read = s_W * model.n_params + B * T_bar * model.kv_bytes_per_token
    flops_per_k = B * (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar)
    return int(bytes_read * gpu.flops_bf16 // (flops_per_k * gpu.bandwidth))
''',
    },
}
