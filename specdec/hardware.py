"""Accelerators as data: peak arithmetic rate, memory bandwidth and memory size.

Symbols (used in every cost-model module): `pi` is one GPU's peak arithmetic rate in
FLOP/s (dense bfloat16, no sparsity), `beta` its memory bandwidth in bytes/s, and their
ratio `I* = pi / beta` the ridge point: the FLOPs a kernel must do per byte it reads
before arithmetic, not memory, sets its time. Sizes are decimal (1 GB = 1e9 bytes,
1 TB/s = 1e12 bytes/s), as in the vendors' data sheets.

    >>> h100 = GPUS["H100"]
    >>> round(ridge_point(h100), 1)        # 989 TFLOP/s / 3.35 TB/s
    295.2
    >>> round(ridge_point(GPUS["H200"]), 1)  # same chip, faster memory: lower ridge
    206.0
"""
from __future__ import annotations

from dataclasses import dataclass

import math

from specdec.checks import check_number


def _check_positive(name: str, value: float) -> None:
    check_number(value, name)
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{name} must be a positive finite number, got {value!r}")


@dataclass(frozen=True)
class GPU:
    """One accelerator.

    Attributes:
        name: a label for tables and plots.
        flops_bf16: peak dense bfloat16 rate `pi`, FLOP/s.
        bandwidth: memory bandwidth `beta`, bytes/s.
        memory: memory capacity, bytes.
        flops_fp8: peak dense fp8 rate, FLOP/s, for matrix products whose weights *and*
            activations are fp8 (about twice `flops_bf16` on Hopper); None on a chip without
            fp8 tensor cores, which then multiplies fp8 weights at its bfloat16 rate.

    >>> GPU("toy", flops_bf16=2e12, bandwidth=1e12, memory=8e9).gemm_flops(fp8=True)  # no fp8 units
    2000000000000.0
    >>> GPU("toy", flops_bf16=2e12, bandwidth=1e12, memory=8e9).ridge_point
    2.0
    >>> GPU("broken", flops_bf16=0, bandwidth=1e12, memory=8e9)
    Traceback (most recent call last):
    ...
    ValueError: GPU 'broken': flops_bf16 must be a positive finite number, got 0
    """

    name: str
    flops_bf16: float
    bandwidth: float
    memory: float
    flops_fp8: float | None = None

    def __post_init__(self) -> None:
        for field_name in ("flops_bf16", "bandwidth", "memory"):
            try:
                _check_positive(field_name, getattr(self, field_name))
            except ValueError as err:
                raise ValueError(f"GPU {self.name!r}: {err}") from None
        if self.flops_fp8 is not None:
            try:
                _check_positive("flops_fp8", self.flops_fp8)
            except ValueError as err:
                raise ValueError(f"GPU {self.name!r}: {err}") from None

    def gemm_flops(self, fp8: bool = False) -> float:
        """Peak rate of the weight matrix products: the fp8 peak when they run in fp8 and the
        chip has fp8 tensor cores, else the bfloat16 peak.

        >>> round(GPUS["H100"].gemm_flops(fp8=True) / GPUS["H100"].gemm_flops(), 2)
        2.0
        """
        if fp8 and self.flops_fp8 is not None:
            return self.flops_fp8
        return self.flops_bf16

    @property
    def ridge_point(self) -> float:
        """`I* = pi / beta` in FLOP per byte."""
        return self.flops_bf16 / self.bandwidth


def ridge_point(gpu: GPU) -> float:
    """The ridge point `I* = pi / beta` of `gpu`, in FLOP per byte.

    A kernel that does fewer FLOPs than this per byte it reads is memory-bound.

    >>> round(ridge_point(GPUS["A100"]), 1)
    153.0
    """
    if not isinstance(gpu, GPU):
        raise ValueError(f"expected a GPU, got {type(gpu).__name__}")
    return gpu.flops_bf16 / gpu.bandwidth


# Data-sheet numbers (dense tensor-core peaks; the "with sparsity" figures are twice these).
GPUS: dict[str, GPU] = {
    # NVIDIA H100 SXM5 80GB data sheet: 989 TFLOP/s bf16 and 1,979 TFLOP/s fp8 dense, 3.35 TB/s HBM3,
    # 80 GB (decimal: 8e10 bytes).
    "H100": GPU("H100", flops_bf16=989e12, bandwidth=3.35e12, memory=80e9, flops_fp8=1979e12),
    # NVIDIA H200 SXM data sheet: the H100's compute with 141 GB of HBM3e at 4.8 TB/s.
    "H200": GPU("H200", flops_bf16=989e12, bandwidth=4.8e12, memory=141e9, flops_fp8=1979e12),
    # NVIDIA A100 SXM4 80GB data sheet: 312 TFLOP/s bf16 dense, 2.039 TB/s HBM2e, 80 GB; no fp8 units.
    "A100": GPU("A100", flops_bf16=312e12, bandwidth=2.039e12, memory=80e9),
}
