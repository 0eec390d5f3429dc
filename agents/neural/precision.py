"""The arithmetic a network runs in: ``fp32``, ``bf16`` (mixed precision) or ``auto``.

With ``bf16`` the matrix products of the network's forward pass run in bfloat16 under
``torch.autocast`` and everything else stays in float32: the weights, the optimizer, the
gradients' accumulation, and the logits and values the network returns (cast back to float32
before the masked distribution and the losses).  On a CPU with Intel AMX tiles, or a CUDA
device with bfloat16 support, that makes the products several times faster; elsewhere bfloat16
is emulated and slower, so ``auto`` picks it only where the hardware has it.  The logits then
carry about three significant digits, enough for sampling and for PPO's ratios (measured in
``benchmarks/bench_train.py`` and the learning tests).

>>> resolve_precision("fp32", torch.device("cpu")) is None
True
>>> resolve_precision("bf16", torch.device("cpu"))
torch.bfloat16
>>> with autocast(torch.device("cpu"), torch.bfloat16):
...     (torch.ones(2, 3) @ torch.ones(3, 1)).dtype
torch.bfloat16
"""
from __future__ import annotations

import contextlib
import functools
from pathlib import Path
from typing import Any, ContextManager, Optional

import torch

PRECISIONS = ("auto", "fp32", "bf16")
"""The ``precision`` settings of the trainer and of ``ppo`` agents."""


@functools.lru_cache(maxsize=None)
def cpu_has_amx() -> bool:
    """True when this CPU lists Intel AMX bfloat16 tiles (``amx_bf16`` in ``/proc/cpuinfo``; False
    where that file does not exist, e.g. on macOS)."""
    try:
        text = Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    return any(line.startswith("flags") and "amx_bf16" in line.split() for line in text.splitlines())


def bf16_is_native(device: torch.device) -> bool:
    """True when ``device`` multiplies bfloat16 matrices in hardware: a CUDA device that supports
    bfloat16, or a CPU with AMX tiles (:func:`cpu_has_amx`)."""
    if device.type == "cuda":
        return bool(torch.cuda.is_bf16_supported())
    return device.type == "cpu" and cpu_has_amx()


def precision_problem(name: Any) -> Optional[str]:
    """Why ``name`` is not a ``precision`` setting (None when it is one of :data:`PRECISIONS`).

    >>> precision_problem("bf16") is None, precision_problem("fp16")
    (True, "must be one of ['auto', 'fp32', 'bf16']")
    """
    return None if name in PRECISIONS else f"must be one of {list(PRECISIONS)}"


def resolve_precision(name: str, device: torch.device) -> Optional[torch.dtype]:
    """The autocast dtype of setting ``name`` on ``device``: None for float32 (``fp32``, or ``auto``
    where bfloat16 is not native), ``torch.bfloat16`` for ``bf16`` (anywhere) and for ``auto``
    where :func:`bf16_is_native`.  ``ValueError`` for an unknown setting."""
    problem = precision_problem(name)
    if problem is not None:
        raise ValueError(f"precision {name!r}: {problem}")
    if name == "bf16" or (name == "auto" and bf16_is_native(device)):
        return torch.bfloat16
    return None


def autocast(device: torch.device, dtype: Optional[torch.dtype]) -> ContextManager[Any]:
    """A context in which ``device``'s matrix products run in ``dtype`` (nothing changes for None)."""
    if dtype is None:
        return contextlib.nullcontext()
    return torch.autocast(device.type, dtype=dtype)
