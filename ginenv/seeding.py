"""The one seeding helper: independent, reproducible seeds derived from a run's seed.

Every component that needs its own random stream (a deal stream, an opponent, a shard, a
network's initialisation) asks for ``derive_seed(seed, *stream)`` with its own stream numbers,
so the same seed replays the same games whatever else changes.
"""
from __future__ import annotations

import numpy as np


def derive_seed(*keys: int) -> int:
    """A 63-bit seed that depends only on ``keys`` (non-negative ints).

    >>> derive_seed(0, 1) == derive_seed(0, 1) != derive_seed(0, 2)
    True
    >>> 0 <= derive_seed(2**63 - 1, 5) < 2**63
    True
    """
    return int(np.random.SeedSequence([int(k) for k in keys]).generate_state(1, dtype=np.uint64)[0] >> 1)
