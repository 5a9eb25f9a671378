"""Wrong answers to the exercises of chapter 06 (critical context, largest free batch, both priced by step_cost).

Each value replaces the whole solution cell with that grade_id; the other solutions stay
correct. Every entry must lose points under the hidden tests, while the unmodified notebook
gets full marks. The exercises are deterministic (no sampling), so no chi-square statistics
apply: each comment names the failing case.
"""
from tests.wrong_implementations.delegation import delegation_forms


WRONG = {
    "ex_critical_context": {
        # N instead of N_act: identical for dense models, wrong for DeepSeek-V3 (671B vs 37B). Caught by
        # test_critical_context_property (the hidden sweep over every preset: DeepSeek-V3, k = 1 on an H100).
        "n_params_not_n_active": '''def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    ridge = gpu.flops_bf16 / gpu.bandwidth
    denominator = ridge * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k
    if denominator <= 0:
        return math.inf
    return 2 * model.n_params * k / denominator
''',
        # Drops the attention arithmetic from the denominator: 1,660 instead of 1,755 tokens for Llama 3.1 8B,
        # and never inf. Caught by test_critical_context_llama, _property and _never.
        "no_attention_term": '''def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    ridge = gpu.flops_bf16 / gpu.bandwidth
    return 2 * model.n_active * k / (ridge * model.kv_bytes_per_token)
''',
        # Returns the (negative) quotient when no context works instead of math.inf.
        # Caught by test_critical_context_never (DeepSeek-V3, k = 2: a negative number).
        "negative_instead_of_inf": '''def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    ridge = gpu.flops_bf16 / gpu.bandwidth
    denominator = ridge * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k
    return 2 * model.n_active * k / denominator
''',
        # Treats only a negative denominator as "never": an exact zero raises ZeroDivisionError.
        # Caught by test_critical_context_never (the power-of-two toy model with a zero denominator).
        "zero_denominator_divides": '''def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    ridge = gpu.flops_bf16 / gpu.bandwidth
    denominator = ridge * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k
    if denominator < 0:
        return math.inf
    return 2 * model.n_active * k / denominator
''',
        # Forgets k in the numerator: 439 instead of 1,755 tokens. Caught by test_critical_context_llama and _property.
        "numerator_without_k": '''def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    ridge = gpu.flops_bf16 / gpu.bandwidth
    denominator = ridge * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k
    if denominator <= 0:
        return math.inf
    return 2 * model.n_active / denominator
''',
        # Uses beta / pi instead of the ridge point: the denominator is always negative -> inf everywhere.
        # Caught by test_critical_context_llama (inf instead of 1,755).
        "inverted_ridge": '''def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    ridge = gpu.bandwidth / gpu.flops_bf16
    denominator = ridge * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k
    if denominator <= 0:
        return math.inf
    return 2 * model.n_active * k / denominator
''',
        # No input check: k = 0 returns 0.0 instead of raising. Caught by test_critical_context_bad_input.
        "no_value_error": '''def critical_context(model, gpu, k):
    ridge = gpu.flops_bf16 / gpu.bandwidth
    denominator = ridge * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k
    if denominator <= 0:
        return math.inf
    return 2 * model.n_active * k / denominator
''',
        **delegation_forms("def critical_context(model, gpu, k):", "specdec.batch_speedup", "critical_context"),
    },
    "ex_largest_free_batch": {
        # Forgets the cache: t_W / (k t_F). At 512 tokens, k = 4: 72 instead of 104. Caught by test_free_batch_llama.
        "ignores_cache": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    return math.floor(c.t_W / (k * c.t_F))
""",
        # Takes k times the whole excess, k (t_F - t_K): at 512 tokens t_F < t_K, so inf instead of 104.
        # Caught by test_free_batch_llama.
        "k_times_excess": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    excess = k * (c.t_F - c.t_K)
    if excess <= 0:
        return math.inf
    return math.floor(c.t_W / excess)
""",
        # The plain-decoding boundary (k = 1) instead of the k-token pass: inf for Llama at 512 tokens.
        # Caught by test_free_batch_llama.
        "plain_decoding_boundary": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    excess = c.t_F - c.t_K
    if excess <= 0:
        return math.inf
    return math.floor(c.t_W / excess)
""",
        # Returns the real quotient without rounding (104.2 instead of 104). Caught by test_free_batch_llama.
        "real_not_integer": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    excess = k * c.t_F - c.t_K
    if excess <= 0:
        return math.inf
    return c.t_W / excess
""",
        # Strict inequality: the boundary batch itself is excluded. Caught by test_free_batch_exact (powers of two: 7 instead of 8).
        "strict_inequality": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    excess = k * c.t_F - c.t_K
    if excess <= 0:
        return math.inf
    return math.ceil(c.t_W / excess) - 1
""",
        # Plain floor of the quotient, no guard: 19.999999999999996 -> 19 on the toy GPU. Caught by test_free_batch_exact.
        "floor_without_guard": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    excess = k * c.t_F - c.t_K
    if excess <= 0:
        return math.inf
    return math.floor(c.t_W / excess)
""",
        # Prices the pass by hand and forgets the weight format: t_W from 2 bytes per weight. Caught by
        # test_free_batch_new_hardware (4-bit weights: the fall comes four times sooner than this predicts).
        "hand_priced_bf16_weights": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    t_W = 2 * model.n_params / gpu.bandwidth
    t_K = T_bar * model.kv_bytes_per_token / gpu.bandwidth
    t_F = (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar) / gpu.flops_bf16
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    return int(B)
""",
        # Prices the pass by hand with the right bytes but the weight products at the bf16 rate: wrong for fp8
        # products (W8A8). Caught by test_free_batch_new_hardware (hidden sweep).
        "hand_priced_fp8_at_bf16_rate": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    t_W = model.bytes_per_weight * model.n_params / gpu.bandwidth
    t_K = T_bar * model.kv_bytes_per_token / gpu.bandwidth
    t_F = (2 * model.n_active + 4 * model.n_layers * model.d_attn * T_bar) / gpu.flops_bf16
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return int(B)
""",
        # A negative number instead of math.inf past the critical context. Caught by test_free_batch_exact (T_bar = 4096).
        "negative_instead_of_inf": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    excess = k * c.t_F - c.t_K
    if excess == 0:
        return math.inf
    return math.floor(c.t_W / excess)
""",
        # Right value, wrong type: float(B) (104.0). Caught by test_free_batch_new_hardware ("non-negative int").
        "returns_float": """def largest_free_batch(model, gpu, T_bar, k):
    if k < 1:
        raise ValueError("k >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    excess = k * c.t_F - c.t_K
    if excess <= 0:
        return math.inf
    B = math.floor(c.t_W / excess)
    while k * (B + 1) * c.t_F <= c.t_W + (B + 1) * c.t_K:
        B += 1
    return float(B)
""",
        # No input check: k = 0 returns inf or a number instead of raising. Caught by test_free_batch_bad_input.
        "no_value_error": """def largest_free_batch(model, gpu, T_bar, k):
    c = step_cost(model, gpu, T_bar=T_bar)
    excess = k * c.t_F - c.t_K
    if excess <= 0:
        return math.inf
    B = math.floor(c.t_W / excess)
    while k * (B + 1) * c.t_F <= c.t_W + (B + 1) * c.t_K:
        B += 1
    return int(B)
""",
        # The library's signatures differ (times, not a model), so the three routes are written by hand: the real
        # quotient of the MoE-aware fall, the times-based library function, and a call through the module.
        "delegate_same_object": """from specdec.moe import model_fall_batch

def largest_free_batch(model, gpu, T_bar, k):
    fall = model_fall_batch(model, gpu, T_bar, k)
    return fall if fall == math.inf else math.floor(fall)
""",
        "delegate_thin_wrapper": """from specdec.batch_speedup import largest_free_batch as library_largest_free_batch

def largest_free_batch(model, gpu, T_bar, k):
    c = step_cost(model, gpu, T_bar=T_bar)
    return library_largest_free_batch(c.t_W, c.t_K, c.t_F, k)
""",
        "delegate_through_module": """import specdec.batch_speedup as batch_speedup_lib

def largest_free_batch(model, gpu, T_bar, k):
    c = step_cost(model, gpu, T_bar=T_bar)
    return batch_speedup_lib.largest_free_batch(c.t_W, c.t_K, c.t_F, k)
""",
        "delegate_knee_batch": """def largest_free_batch(model, gpu, T_bar, k):
    knee = step_cost(model, gpu, T_bar=T_bar).knee_batch(k)
    return knee if knee == math.inf else math.floor(knee)
""",
    },
}

# The exact formula of an earlier edition, which priced fp8 weight products at the bf16 rate: DeepSeek-V3's
# k = 1 context on an H100 comes out twice too long. Caught by test_critical_context_property (hidden sweep).
WRONG["ex_critical_context"]["fp8_products_at_bf16_rate"] = '''def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    ridge = gpu.flops_bf16 / gpu.bandwidth
    denominator = ridge * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k
    if denominator <= 0:
        return math.inf
    return 2 * model.n_active * k / denominator
'''

# Two slips of the step_cost route: the attention slope charged once instead of k times (each of the k tokens
# attends to the whole cache), and the weight read t_W taken for the constant part of t_F. Both caught by
# test_critical_context_llama.
WRONG["ex_critical_context"]["attention_slope_once"] = """def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    c0, c1 = step_cost(model, gpu, T_bar=0.0), step_cost(model, gpu, T_bar=1.0)
    slope = c1.t_K - (c1.t_F - c0.t_F)
    if slope <= 0:
        return math.inf
    return k * c0.t_F / slope
"""
WRONG["ex_critical_context"]["t_W_as_constant"] = """def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    c0, c1 = step_cost(model, gpu, T_bar=0.0), step_cost(model, gpu, T_bar=1.0)
    slope = c1.t_K - k * (c1.t_F - c0.t_F)
    if slope <= 0:
        return math.inf
    return k * c0.t_W / slope
"""
# Puts bytes_per_weight into the numerator (s_W N for 2 N_act): right for bfloat16 weights only. Caught by
# test_critical_context_new_hardware (4-bit weights: 439 instead of 1,755).
WRONG["ex_critical_context"]["weight_bytes_in_numerator"] = """def critical_context(model, gpu, k):
    if k < 1:
        raise ValueError("k must be >= 1")
    ridge = gpu.flops_bf16 / gpu.bandwidth
    denominator = ridge * model.kv_bytes_per_token - 4 * model.n_layers * model.d_attn * k
    if denominator <= 0:
        return math.inf
    weight_rate = gpu.flops_bf16 / gpu.gemm_flops(model.fp8_gemms)
    return model.bytes_per_weight * model.n_active * weight_rate * k / denominator
"""

# The words each likely wrong answer must read in some failing test cell (its misconception named).
MESSAGES = {
    "ex_critical_context/n_params_not_n_active": "n_params instead of n_active",
    "ex_critical_context/fp8_products_at_bf16_rate": "run in fp8",
    "ex_critical_context/no_attention_term": "belongs in the denominator",
    "ex_critical_context/numerator_without_k": "factor k out of the numerator",
    "ex_critical_context/negative_instead_of_inf": "no context helps",
    "ex_critical_context/zero_denominator_divides": "not a ZeroDivisionError",
    "ex_critical_context/no_value_error": "expected a ValueError",
    "ex_critical_context/attention_slope_once": "charge the attention slope k times",
    "ex_critical_context/t_W_as_constant": "t_W is read once per pass",
    "ex_critical_context/weight_bytes_in_numerator": "bytes_per_weight only changes t_W",
    "ex_largest_free_batch/ignores_cache": "B t_K belongs on the memory side",
    "ex_largest_free_batch/real_not_integer": "largest whole number",
    "ex_largest_free_batch/k_times_excess": "not k (t_F - t_K)",
    "ex_largest_free_batch/plain_decoding_boundary": "not plain decoding",
    "ex_largest_free_batch/strict_inequality": "the boundary",
    "ex_largest_free_batch/floor_without_guard": "rounds just below a whole",
    "ex_largest_free_batch/hand_priced_bf16_weights": "weight-only quantization shrinks t_W",
    "ex_largest_free_batch/hand_priced_fp8_at_bf16_rate": "run in fp8",
    "ex_largest_free_batch/negative_instead_of_inf": "every batch is free",
    "ex_largest_free_batch/returns_float": "non-negative int",
    "ex_largest_free_batch/no_value_error": "expected a ValueError",
}

# Correct answers written another natural way, which must keep full marks (run through the power harness
# beside WRONG): the critical context as the root of the straight line k t_F - t_K through two far-apart
# contexts; the largest free batch by a doubling-then-bisection search on the definition itself, or by the
# floor followed by a check of its neighbours.
RIGHT = {
    "ex_critical_context": {
        "root_of_the_excess_line": '''def critical_context(model, gpu, k):
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError("k must be an integer >= 1")

    def excess(T):                      # k t_F - t_K: a straight line in the context
        cost = step_cost(model, gpu, T_bar=T)
        return k * cost.t_F - cost.t_K

    T1 = 4096.0
    g0, g1 = excess(0.0), excess(T1)
    if g1 >= g0:                        # the line never falls: no context is enough
        return math.inf
    return g0 * T1 / (g0 - g1)
''',
    },
    "ex_largest_free_batch": {
        "doubling_then_bisection": '''def largest_free_batch(model, gpu, T_bar, k):
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError("k must be an integer >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    if k * c.t_F <= c.t_K:
        return math.inf

    def free(B):
        return k * B * c.t_F <= c.t_W + B * c.t_K

    hi = 1
    while free(hi):
        hi *= 2
    lo = 0                              # free(lo) holds, free(hi) does not
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if free(mid):
            lo = mid
        else:
            hi = mid
    return lo
''',
        "floor_then_neighbours": '''def largest_free_batch(model, gpu, T_bar, k):
    if not isinstance(k, (int, np.integer)) or isinstance(k, bool) or k < 1:
        raise ValueError("k must be an integer >= 1")
    c = step_cost(model, gpu, T_bar=T_bar)
    per_sequence = k * c.t_F - c.t_K
    if per_sequence <= 0:
        return math.inf
    memory_bound = lambda B: k * B * c.t_F <= c.t_W + B * c.t_K
    B = int(c.t_W // per_sequence)
    candidates = [b for b in (B - 1, B, B + 1) if b >= 0 and memory_bound(b)]
    return max(candidates)
''',
    },
}
