"""Wrong answers to the exercises of chapter 06 (critical context, largest free batch).

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
        # Strict inequality: the boundary batch itself is excluded. Caught by test_free_batch_property
        # (powers of two: 7 instead of 8) and by the random sweep whenever the quotient is an integer.
        "strict_inequality": '''def largest_free_batch(t_W, t_K, t_F, k):
    if k < 1 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    return math.ceil(t_W / excess) - 1
''',
        # Plain floor of the quotient, no guard: 4.3 / 0.1 = 42.99999999999999 -> 42, though 43 * 0.1 <= 4.3 holds.
        # Caught by test_free_batch_property (the quotients that round below an integer).
        "floor_without_guard": '''def largest_free_batch(t_W, t_K, t_F, k):
    if k < 1 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    return math.floor(t_W / excess)
''',
        # Forgets the cache: t_W / (k t_F). At 512 tokens, k = 4: 72 instead of 104; never inf.
        # Caught by test_free_batch_llama, _property and _inf.
        "ignores_cache": '''def largest_free_batch(t_W, t_K, t_F, k):
    if k < 1 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    return math.floor(t_W / (k * t_F))
''',
        # Returns the real quotient without rounding (104.2 instead of 104). Caught by test_free_batch_llama.
        "real_not_integer": '''def largest_free_batch(t_W, t_K, t_F, k):
    if k < 1 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    return t_W / excess
''',
        # Takes k times the whole excess, k (t_F - t_K): at 512 tokens t_F < t_K, so inf instead of 104.
        # Caught by test_free_batch_llama and _property.
        "k_times_excess": '''def largest_free_batch(t_W, t_K, t_F, k):
    if k < 1 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * (t_F - t_K)
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K and B < 10**7:
        B += 1
    return int(B)
''',
        # A negative number instead of math.inf past the critical context.
        # Caught by test_free_batch_inf (T_bar = 4096) and the hidden equality case.
        "negative_instead_of_inf": '''def largest_free_batch(t_W, t_K, t_F, k):
    if k < 1 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess == 0:
        return math.inf
    B = math.floor(t_W / excess)
    while excess > 0 and k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    return int(B)
''',
        # No input checks: t_F = 0 divides by zero or returns inf. Caught by test_free_batch_bad_input.
        "no_value_error": '''def largest_free_batch(t_W, t_K, t_F, k):
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return int(B)
''',
        # Right value, wrong type: returns float(B) (104.0). Caught by test_free_batch_property (hidden sweep:
        # "expected a non-negative int").
        "returns_float": '''def largest_free_batch(t_W, t_K, t_F, k):
    if not isinstance(k, (int, np.integer)) or k < 1 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return float(B)
''',
        # Forgets the t_K check: a negative cache time is accepted. Caught by test_free_batch_bad_input (hidden).
        "no_t_K_check": '''def largest_free_batch(t_W, t_K, t_F, k):
    if not isinstance(k, (int, np.integer)) or k < 1 or t_W < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return int(B)
''',
        # Forgets the t_W check: a negative weight time is accepted. Caught by test_free_batch_bad_input (hidden).
        "no_t_W_check": '''def largest_free_batch(t_W, t_K, t_F, k):
    if not isinstance(k, (int, np.integer)) or k < 1 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return int(B)
''',
        # Tests t_F == 0 instead of t_F <= 0: a negative t_F is accepted. Caught by test_free_batch_bad_input (hidden).
        "t_F_zero_only": '''def largest_free_batch(t_W, t_K, t_F, k):
    if not isinstance(k, (int, np.integer)) or k < 1 or t_W < 0 or t_K < 0 or t_F == 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return int(B)
''',
        # Accepts a fractional k (2.5). Caught by test_free_batch_bad_input (hidden k = 2.5).
        "accepts_fractional_k": '''def largest_free_batch(t_W, t_K, t_F, k):
    if k < 1 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return int(B)
''',
        # Checks k == 0 only: k = -2 slips through. Caught by test_free_batch_bad_input (hidden).
        "checks_only_k_zero": '''def largest_free_batch(t_W, t_K, t_F, k):
    if k == 0 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return int(B)
''',
        # Insists on a Python int: a NumPy integer k (valid) raises. Caught by test_free_batch_bad_input (hidden).
        "refuses_numpy_k": '''def largest_free_batch(t_W, t_K, t_F, k):
    if type(k) is not int or k < 1 or t_W < 0 or t_K < 0 or not t_F > 0:
        raise ValueError("bad input")
    excess = k * t_F - t_K
    if excess <= 0:
        return math.inf
    B = math.floor(t_W / excess)
    while k * (B + 1) * t_F <= t_W + (B + 1) * t_K:
        B += 1
    while B > 0 and k * B * t_F > t_W + B * t_K:
        B -= 1
    return int(B)
''',
        **delegation_forms("def largest_free_batch(t_W, t_K, t_F, k):", "specdec.batch_speedup", "largest_free_batch"),
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

# The words each likely wrong answer must read in some failing test cell (its misconception named).
MESSAGES = {
    "ex_critical_context/n_params_not_n_active": "n_params instead of n_active",
    "ex_critical_context/fp8_products_at_bf16_rate": "run in fp8",
    "ex_critical_context/no_attention_term": "belongs in the denominator",
    "ex_critical_context/numerator_without_k": "factor k out of the numerator",
    "ex_critical_context/negative_instead_of_inf": "no context helps",
    "ex_critical_context/zero_denominator_divides": "not a ZeroDivisionError",
    "ex_critical_context/no_value_error": "expected a ValueError",
    "ex_largest_free_batch/ignores_cache": "B t_K belongs on the memory side",
    "ex_largest_free_batch/real_not_integer": "largest whole number",
    "ex_largest_free_batch/k_times_excess": "not k (t_F - t_K)",
    "ex_largest_free_batch/strict_inequality": "the boundary",
    "ex_largest_free_batch/floor_without_guard": "rounds just below a whole",
    "ex_largest_free_batch/returns_float": "non-negative int",
}
