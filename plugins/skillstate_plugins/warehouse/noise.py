"""Background telemetry: the paper's App. C distractor lines, re-sampled per observation.

At noise level k an observation gets ``"\\n\\n--- BACKGROUND TELEMETRY ---\\n"`` and
exactly k lines; at k = 0 nothing is added. Each line picks one of the App. C.2
templates with fresh values, from a generator seeded by the session's noise seed
and the observation's position (``Random(f"{noise_seed}/{position}")``), so the
noise is reproducible, independent of the task generator, and never touches the
world or the event stream.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from skillstate_plugins.bench import telemetry_block

__all__ = ["noise_suffix", "telemetry_lines"]

_OCR = ("Forklift parked.", "Worker entered Zone A.", "Safety Vest Detected.")


def _robot(rng: random.Random) -> str:
    return (
        f"Battery: {rng.randint(5, 100)}%, Temperature: {rng.randint(20, 70)}C, "
        f"CPU Load: {rng.randint(1, 100)}%, Speed: {rng.uniform(0, 3):.1f} m/s, "
        f"Nav Confidence: {rng.uniform(80, 100):.1f}%"
    )


def _sensor(rng: random.Random) -> str:
    return (
        f"[Sensor] Humidity: {rng.randint(20, 80)}%, Temp: {rng.uniform(15, 30):.1f}C, "
        f"Light: {rng.randint(100, 900)} lux, CO2: {rng.randint(350, 1200)} ppm"
    )


def _camera(rng: random.Random) -> str:
    return f"[Camera OCR] {rng.choice(_OCR)}"


_TEMPLATES: tuple[Callable[[random.Random], str], ...] = (_robot, _sensor, _camera)


def telemetry_lines(noise_seed: int, position: str, count: int) -> list[str]:
    """``count`` distractor lines for the observation at ``position``."""
    rng = random.Random(f"{noise_seed}/{position}")
    return [rng.choice(_TEMPLATES)(rng) for _ in range(count)]


def noise_suffix(noise_seed: int, position: str, count: int) -> str:
    """The text appended to an observation (``""`` at level 0)."""
    return telemetry_block(telemetry_lines(noise_seed, position, count) if count > 0 else [])
