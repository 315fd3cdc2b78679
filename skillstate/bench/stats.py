"""Statistics over seeds: mean ± sample SD, a 95% confidence interval, paired differences.

Means and SDs come from the standard library's :mod:`statistics`. The interval is
Student's t: mean ± t(0.975, n − 1) · SD / √n, with the two-sided critical values
below (standard table values; the normal 1.960 / 2.576 beyond 30 degrees of freedom).
A paired difference (a runtime against SKILL.state, seed by seed) gets the same
interval and its t statistic; ``p < 0.05`` / ``p < 0.01`` are read off the same
table (the paper reports its T ≥ 50 differences at p < 0.01, paired t-test).
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Sequence

import attrs

__all__ = ["Estimate", "estimate", "paired", "t_critical"]

_T95 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228,
        2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086,
        2.080, 2.074, 2.069, 2.064, 2.060, 2.056, 2.052, 2.048, 2.045, 2.042)  # fmt: skip
_T99 = (63.657, 9.925, 5.841, 4.604, 4.032, 3.707, 3.499, 3.355, 3.250, 3.169,
        3.106, 3.055, 3.012, 2.977, 2.947, 2.921, 2.898, 2.878, 2.861, 2.845,
        2.831, 2.819, 2.807, 2.797, 2.787, 2.779, 2.771, 2.763, 2.756, 2.750)  # fmt: skip


def t_critical(df: int, level: float = 0.95) -> float:
    """Two-sided Student's t critical value for ``df`` degrees of freedom (0.95 or 0.99)."""
    if df < 1:
        return math.nan
    table, normal = (_T95, 1.960) if level == 0.95 else (_T99, 2.576)
    return table[df - 1] if df <= len(table) else normal


@attrs.frozen
class Estimate:
    """``mean`` ± ``sd`` over ``n`` values, and the 95% interval [``low``, ``high``]."""

    n: int
    mean: float
    sd: float
    low: float
    high: float
    t: float | None = None
    significance: str = ""

    def to_dict(self, digits: int = 4) -> dict[str, float | int | str | None]:
        return {
            "n": self.n,
            "mean": round(self.mean, digits),
            "sd": round(self.sd, digits),
            "ci95_low": round(self.low, digits),
            "ci95_high": round(self.high, digits),
            **({"t": round(self.t, 3), "p": self.significance} if self.t is not None else {}),
        }


def estimate(values: Sequence[float]) -> Estimate:
    """Mean, sample SD and the 95% t interval (one value: SD 0, the interval is the value)."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = statistics.fmean(values)
    if n == 1:
        return Estimate(1, mean, 0.0, mean, mean)
    sd = statistics.stdev(values)
    half = t_critical(n - 1) * sd / math.sqrt(n)
    return Estimate(n, mean, sd, mean - half, mean + half)


def paired(values: Sequence[float], baseline: Sequence[float]) -> Estimate:
    """``values − baseline`` seed by seed: the mean difference, its interval, t and significance."""
    if len(values) != len(baseline):
        raise ValueError("paired samples must have the same length")
    diffs = [a - b for a, b in zip(values, baseline, strict=True)]
    base = estimate(diffs)
    if base.n < 2:
        return base
    if base.sd == 0:
        t = 0.0 if base.mean == 0 else math.copysign(math.inf, base.mean)
    else:
        t = base.mean / (base.sd / math.sqrt(base.n))
    df = base.n - 1
    if abs(t) > t_critical(df, 0.99):
        significance = "p<0.01"
    elif abs(t) > t_critical(df, 0.95):
        significance = "p<0.05"
    else:
        significance = "n.s."
    return attrs.evolve(base, t=t, significance=significance)
