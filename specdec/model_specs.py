"""Transformer models as data: the sizes the decode cost model needs.

Symbols: `N` = `n_params` (every stored parameter, read once per decode step),
`N_act` = `n_active` (parameters multiplied per token; equal to `N` for a dense model,
smaller for a mixture of experts), `L` = `n_layers`, `d_attn` = the attention width
(query heads x the width each head's query multiplies, so one query does `4 d_attn` FLOPs
per cached token and layer: 2 for the score, 2 for the weighted sum), `m_KV` =
`kv_bytes_per_token` (bytes cached per token over all layers), `s_W` = `bytes_per_weight`.
The weights take `M_W = s_W N` bytes. A mixture of experts also records its routed experts
(`n_experts` per layer, `experts_per_token`, and `n_routed_params`, the parameters of all routed
experts of all layers): a pass reads only the experts its tokens are routed to (`specdec.moe`).

    >>> llama = MODELS["llama-3.1-8b"]
    >>> llama.kv_bytes_per_token       # 32 layers x 8 KV heads x 128 x (K and V) x 2 bytes
    131072
    >>> round(llama.weight_bytes / 1e9, 2)
    16.06
    >>> llama.attention_flops_per_cached_byte  # one query: 4 L d_attn FLOPs per m_KV bytes
    4.0
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from specdec.checks import check_int, check_number


def _check_count(name: str, value) -> None:
    check_number(value, name)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be positive and finite, got {value!r}")


def kv_bytes_per_token(n_layers: int, n_kv_heads: int, head_dim: int, bytes_per_value: float = 2) -> int | float:
    """Bytes a standard (multi-head or grouped-query) attention cache stores per token.

    Every layer keeps one key and one value vector of `head_dim` numbers per KV head:
    `m_KV = L x n_kv_heads x head_dim x 2 x bytes_per_value`.

    >>> kv_bytes_per_token(32, 8, 128)    # Llama 3.1 8B in bfloat16: 128 KiB per token
    131072
    >>> kv_bytes_per_token(12, 12, 64)    # GPT-2 (no grouping: 12 KV heads) in fp16
    36864
    """
    for name, value in (("n_layers", n_layers), ("n_kv_heads", n_kv_heads),
                        ("head_dim", head_dim), ("bytes_per_value", bytes_per_value)):
        _check_count(name, value)
    return n_layers * n_kv_heads * head_dim * 2 * bytes_per_value


def latent_kv_bytes_per_token(n_layers: int, latent_dim: int, bytes_per_value: float = 2) -> int | float:
    """Bytes a latent-attention cache (DeepSeek's MLA) stores per token.

    Each layer caches one shared latent vector of `latent_dim` numbers instead of per-head
    keys and values: `m_KV = L x latent_dim x bytes_per_value`.

    >>> latent_kv_bytes_per_token(1, 576)      # DeepSeek-V3, one layer: 1,152 bytes
    1152
    >>> latent_kv_bytes_per_token(61, 576)     # all 61 layers
    70272
    """
    for name, value in (("n_layers", n_layers), ("latent_dim", latent_dim), ("bytes_per_value", bytes_per_value)):
        _check_count(name, value)
    return n_layers * latent_dim * bytes_per_value


@dataclass(frozen=True)
class ModelSpec:
    """The sizes of one model that set its decode cost.

    >>> toy = ModelSpec("toy", n_params=1e9, n_active=1e9, n_layers=4, d_attn=256, kv_bytes_per_token=4096)
    >>> toy.weight_bytes, toy.kv_cache_bytes(1000)
    (2000000000.0, 4096000)
    >>> ModelSpec("bad", n_params=1e9, n_active=2e9, n_layers=4, d_attn=256, kv_bytes_per_token=4096)
    Traceback (most recent call last):
    ...
    ValueError: model 'bad': n_active (2e+09) cannot exceed n_params (1e+09)
    """

    name: str
    n_params: float            # N: parameters stored (and read once per step)
    n_active: float            # N_act: parameters multiplied per token
    n_layers: int              # L
    d_attn: float              # query heads x per-head width (4 d_attn FLOPs per cached token per layer)
    kv_bytes_per_token: float  # m_KV: cache bytes per token, all layers
    bytes_per_weight: float = 2.0  # s_W: 2 for bfloat16, 1 for fp8, 0.5 for 4-bit
    fp8_gemms: bool = False        # weight products run in fp8 (fp8 weights and activations, W8A8)
    n_experts: int = 0             # E: routed experts per MoE layer (0: a dense model)
    experts_per_token: int = 0     # k: routed experts each token uses
    n_routed_params: float = 0.0   # parameters in all routed experts (the rest is read every step)

    def __post_init__(self) -> None:
        for field_name in ("n_params", "n_active", "n_layers", "d_attn", "kv_bytes_per_token", "bytes_per_weight"):
            try:
                _check_count(field_name, getattr(self, field_name))
            except ValueError as err:
                raise ValueError(f"model {self.name!r}: {err}") from None
        if self.n_active > self.n_params:
            raise ValueError(f"model {self.name!r}: n_active ({self.n_active:.3g}) "
                             f"cannot exceed n_params ({self.n_params:.3g})")
        if self.n_experts or self.experts_per_token or self.n_routed_params:
            for field_name in ("n_experts", "experts_per_token"):
                value = getattr(self, field_name)
                check_int(value, f"model {self.name!r}: {field_name}", low=1,
                          must="a positive integer for a mixture of experts")
            if self.experts_per_token > self.n_experts:
                raise ValueError(f"model {self.name!r}: experts_per_token ({self.experts_per_token}) "
                                 f"cannot exceed n_experts ({self.n_experts})")
            if not (isinstance(self.n_routed_params, (int, float)) and 0 < self.n_routed_params < self.n_params):
                raise ValueError(f"model {self.name!r}: n_routed_params must be in (0, n_params), "
                                 f"got {self.n_routed_params!r}")

    @property
    def is_moe(self) -> bool:
        """True for a mixture of experts (routed experts recorded)."""
        return self.n_experts > 0

    @property
    def weight_bytes(self) -> float:
        """`M_W = s_W N`, the bytes of weights a decode step reads."""
        return self.bytes_per_weight * self.n_params

    def kv_cache_bytes(self, n_tokens: float) -> float:
        """Bytes of KV cache held for `n_tokens` cached tokens (`n_tokens x m_KV`)."""
        if n_tokens < 0:
            raise ValueError(f"n_tokens must be >= 0, got {n_tokens}")
        return n_tokens * self.kv_bytes_per_token

    @property
    def attention_flops_per_cached_byte(self) -> float:
        """FLOPs one query does per byte of cache it reads: `4 L d_attn / m_KV`.

        Above the GPU's ridge point, attention alone is compute-bound (chapter 06).
        """
        return 4 * self.n_layers * self.d_attn / self.kv_bytes_per_token


MODELS: dict[str, ModelSpec] = {
    # Meta Llama 3.1 model card and config.json: 8.03B parameters, 32 layers, 32 query heads and
    # 8 KV heads of width 128 (grouped-query attention), bfloat16.
    "llama-3.1-8b": ModelSpec("Llama 3.1 8B", n_params=8.03e9, n_active=8.03e9, n_layers=32,
                              d_attn=32 * 128, kv_bytes_per_token=kv_bytes_per_token(32, 8, 128)),
    # Llama 3.1 70B: 70.6B parameters, 80 layers, 64 query heads and 8 KV heads of width 128.
    "llama-3.1-70b": ModelSpec("Llama 3.1 70B", n_params=70.6e9, n_active=70.6e9, n_layers=80,
                               d_attn=64 * 128, kv_bytes_per_token=kv_bytes_per_token(80, 8, 128)),
    # GPT-2 small (Radford et al. 2019; Hugging Face "gpt2"): 124,439,808 parameters, 12 layers,
    # 12 heads of width 64, no grouping. Stored in fp16 (2 bytes) as in the course's GPU lab.
    "gpt2": ModelSpec("GPT-2", n_params=124_439_808, n_active=124_439_808, n_layers=12,
                      d_attn=12 * 64, kv_bytes_per_token=kv_bytes_per_token(12, 12, 64)),
    # GPT-2-XL ("gpt2-xl"): 1,557,611,200 parameters, 48 layers, 25 heads of width 64.
    "gpt2-xl": ModelSpec("GPT-2-XL", n_params=1_557_611_200, n_active=1_557_611_200, n_layers=48,
                         d_attn=25 * 64, kv_bytes_per_token=kv_bytes_per_token(48, 25, 64)),
    # DeepSeek-V3 technical report (2024): 671B parameters, 37B active per token (mixture of
    # experts), 61 layers, 128 query heads, multi-head latent attention caching a 576-number latent
    # (512 compressed KV + 64 rotary) = 1,152 bytes per token and layer in bfloat16. With the
    # projections absorbed, each head scores all 576 numbers and averages the first 512, i.e.
    # 2 x 576 + 2 x 512 = 4 x 544 FLOPs per cached token, so d_attn = 128 x 544. The released
    # weights are fp8 (1 byte each) and served as fp8 products (activations quantized to fp8 in
    # blocks, as in the report's fp8 training), so the weight FLOPs run at the fp8 peak; attention
    # and the cache stay bfloat16. Experts (config.json): the first 3
    # layers are dense, the other 58 hold 256 routed experts (8 used per token) and 1 shared expert,
    # each expert a gated MLP of 3 x 7168 x 2048 parameters: 58 x 256 x 44.04M = 653.9B routed
    # parameters; the remaining 17.1B (attention, dense and shared MLPs, embeddings) are read every
    # step, and 17.1B + 8/256 x 653.9B = 37.5B matches the 37B active.
    "deepseek-v3": ModelSpec("DeepSeek-V3", n_params=671e9, n_active=37e9, n_layers=61,
                             d_attn=128 * 544, kv_bytes_per_token=latent_kv_bytes_per_token(61, 576),
                             bytes_per_weight=1.0, fp8_gemms=True, n_experts=256, experts_per_token=8,
                             n_routed_params=58 * 256 * 3 * 7168 * 2048),
}
