"""Background telemetry: the paper's App. C.3 distractor lines, re-sampled per observation.

At noise level k an observation gets ``"\\n\\n--- BACKGROUND TELEMETRY ---\\n"`` and
exactly k lines ``[Syslog] Server-N CPU load: X%, RAM usage: Y%`` (N 1–99, X and Y
1–100, uniform), from ``Random(f"{noise_seed}/{position}")``: reproducible, separate
from the episode generator, never touching the world.
"""

from __future__ import annotations

import random

from skillstate_plugins.bench import telemetry_block

__all__ = ["noise_suffix", "telemetry_lines"]


def telemetry_lines(noise_seed: int, position: str, count: int) -> list[str]:
    """``count`` distractor lines for the observation at ``position``."""
    rng = random.Random(f"{noise_seed}/{position}")
    return [
        f"[Syslog] Server-{rng.randint(1, 99)} CPU load: {rng.randint(1, 100)}%, "
        f"RAM usage: {rng.randint(1, 100)}%"
        for _ in range(count)
    ]


def noise_suffix(noise_seed: int, position: str, count: int) -> str:
    """The text appended to an observation (``""`` at level 0)."""
    return telemetry_block(telemetry_lines(noise_seed, position, count) if count > 0 else [])
