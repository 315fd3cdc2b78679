"""Statistics over seeds: mean ± sample SD, a confidence interval, paired differences.

Means and SDs come from the standard library's :mod:`statistics`. The interval is
Student's t: mean ± t(1 − α/2, n − 1) · SD / √n, with the exact critical value for any
degrees of freedom (:func:`t_critical`: the quantile of Student's t distribution,
from its distribution function written with the regularized incomplete beta
function, evaluated by its continued fraction and inverted by bisection — no table,
no normal approximation). With one value the sample SD and the interval are undefined
(``None``; the tables print ``-``, the figures draw no error bar).

A paired difference (a runtime against SKILL.state, seed by seed) gets the same
interval and its t statistic; ``p < 0.05`` / ``p < 0.01`` compare |t| with the 95% and
99% critical values (the paper reports its T ≥ 50 differences at p < 0.01, paired
t-test).
"""

from __future__ import annotations

import functools
import math
import statistics
from collections.abc import Sequence

import attrs

__all__ = ["Estimate", "estimate", "paired", "t_cdf", "t_critical"]


def _beta_fraction(a: float, b: float, x: float) -> float:
    """The continued fraction of the incomplete beta function (modified Lentz evaluation)."""
    tiny, eps = 1e-300, 1e-15
    c, d = 1.0, 1.0 - (a + b) * x / (a + 1.0)
    d = 1.0 / (d if abs(d) > tiny else tiny)
    result = d
    for m in range(1, 400):
        # the even step d_{2m}, then the odd step d_{2m+1}
        for numerator in (
            m * (b - m) * x / ((a + 2 * m - 1) * (a + 2 * m)),
            -(a + m) * (a + b + m) * x / ((a + 2 * m) * (a + 2 * m + 1)),
        ):
            d = 1.0 + numerator * d
            d = 1.0 / (d if abs(d) > tiny else tiny)
            c = 1.0 + numerator / c
            c = c if abs(c) > tiny else tiny
            result *= d * c
        if abs(d * c - 1.0) < eps:
            break
    return result


def _regularized_beta(a: float, b: float, x: float) -> float:
    """I_x(a, b), the regularized incomplete beta function, for 0 ≤ x ≤ 1."""
    if x <= 0.0:
        return 0.0
    if x >= 1.0:
        return 1.0
    log_front = (
        math.lgamma(a + b) - math.lgamma(a) - math.lgamma(b) + a * math.log(x) + b * math.log1p(-x)
    )
    front = math.exp(log_front)
    if x < (a + 1.0) / (a + b + 2.0):  # the fraction converges fast here
        return front * _beta_fraction(a, b, x) / a
    return 1.0 - front * _beta_fraction(b, a, 1.0 - x) / b


def t_cdf(t: float, df: float) -> float:
    """P(T ≤ t) for Student's t distribution with ``df`` degrees of freedom."""
    if df <= 0:
        raise ValueError(f"degrees of freedom must be positive, got {df}")
    tail = 0.5 * _regularized_beta(df / 2.0, 0.5, df / (df + t * t))
    return 1.0 - tail if t > 0 else tail


@functools.lru_cache(maxsize=1024)
def t_critical(df: int, level: float = 0.95) -> float:
    """The two-sided critical value: t with P(|T| ≤ t) = ``level``, for ``df`` ≥ 1 degrees of freedom.

    ``level`` is a confidence level strictly between 0 and 1 (0.95, 0.99, 0.9...); any
    other value is refused. ``df`` < 1 has no interval (``nan``).
    """
    if not isinstance(level, float | int) or not 0.0 < level < 1.0:
        raise ValueError(f"a confidence level is a number between 0 and 1, got {level!r}")
    if df < 1:
        return math.nan
    target = (1.0 + level) / 2.0  # the upper quantile
    low, high = 0.0, 1.0
    while t_cdf(high, df) < target:
        high *= 2.0
    for _ in range(200):
        middle = (low + high) / 2.0
        if t_cdf(middle, df) < target:
            low = middle
        else:
            high = middle
        if high - low < 1e-12 * max(1.0, high):
            break
    return (low + high) / 2.0


@attrs.frozen
class Estimate:
    """``mean`` ± ``sd`` over ``n`` values, and the 95% interval [``low``, ``high``].

    ``sd``, ``low`` and ``high`` are ``None`` for one value: undefined, not zero.
    """

    n: int
    mean: float
    sd: float | None
    low: float | None
    high: float | None
    t: float | None = None
    significance: str = ""

    def to_dict(self, digits: int = 4) -> dict[str, float | int | str | None]:
        def rounded(value: float | None) -> float | None:
            return None if value is None else round(value, digits)

        return {
            "n": self.n,
            "mean": round(self.mean, digits),
            "sd": rounded(self.sd),
            "ci95_low": rounded(self.low),
            "ci95_high": rounded(self.high),
            **({"t": round(self.t, 3), "p": self.significance} if self.t is not None else {}),
        }


def estimate(values: Sequence[float], level: float = 0.95) -> Estimate:
    """Mean, sample SD and the t interval at ``level`` (one value: no SD, no interval)."""
    n = len(values)
    if n == 0:
        raise ValueError("no values")
    mean = statistics.fmean(values)
    if n == 1:
        return Estimate(1, mean, None, None, None)
    sd = statistics.stdev(values)
    half = t_critical(n - 1, level) * sd / math.sqrt(n)
    return Estimate(n, mean, sd, mean - half, mean + half)


def paired(values: Sequence[float], baseline: Sequence[float]) -> Estimate:
    """``values − baseline`` seed by seed: the mean difference, its interval, t and significance."""
    if len(values) != len(baseline):
        raise ValueError("paired samples must have the same length")
    diffs = [a - b for a, b in zip(values, baseline, strict=True)]
    base = estimate(diffs)
    if base.n < 2 or base.sd is None:
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
