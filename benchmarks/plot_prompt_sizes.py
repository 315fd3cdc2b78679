"""Plot the prompt size per step of the four runtimes (oracle policy, no LLM) as an SVG.

Run: ``.venv/bin/python -m benchmarks.plot_prompt_sizes [--horizon 200] [--seed 42]
[--out docs/warehouse-prompt-sizes.svg]``

The SVG is written by hand with the standard library (no plotting dependency). The
SKILL.state line stays flat (P, Σ_t, O_t only); ReAct (A.1) and Stateful (A.3) grow
by one turn per step; Memory (A.2) grows with its summary.
"""

from __future__ import annotations

import argparse
import math
import uuid
from pathlib import Path
from xml.sax.saxutils import escape

from skillstate_plugins.warehouse.bench.policies import OraclePolicy
from skillstate_plugins.warehouse.bench.runner import EpisodeConfig, run_episode

from skillstate.runtime.sessions import Runtime

SERIES = (
    ("skill-state", "SKILL.state (A.4)", "#1b7837"),
    ("react", "Prompt / ReAct (A.1)", "#d73027"),
    ("memory", "Memory (A.2)", "#4575b4"),
    ("stateful", "Stateful (A.3)", "#984ea3"),
)
WIDTH, HEIGHT = 820, 500
LEFT, RIGHT, TOP, BOTTOM = 80, 200, 50, 60


def _nice_step(span: float, ticks: int = 6) -> float:
    raw = span / ticks
    power = 10 ** math.floor(math.log10(raw))
    return next(m * power for m in (1, 2, 2.5, 5, 10) if m * power >= raw)


def collect(horizon: int, seed: int) -> dict[str, list[int]]:
    sizes = {}
    with Runtime(f"memory:plot-{uuid.uuid4().hex}") as runtime:
        for kind, _, _ in SERIES:
            result = run_episode(
                EpisodeConfig(runtime=kind, horizon=horizon, seed=seed), OraclePolicy(), runtime
            )
            assert result.score == 1.0
            sizes[kind] = result.prompt_chars
    return sizes


def render(sizes: dict[str, list[int]], horizon: int, seed: int) -> str:
    plot_w, plot_h = WIDTH - LEFT - RIGHT, HEIGHT - TOP - BOTTOM
    top = max(max(v) for v in sizes.values())
    step = _nice_step(top)
    y_max = math.ceil(top / step) * step

    def x(i: int) -> float:
        return LEFT + plot_w * (i - 1) / max(horizon - 1, 1)

    def y(v: float) -> float:
        return TOP + plot_h * (1 - v / y_max)

    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{HEIGHT}" '
        f'viewBox="0 0 {WIDTH} {HEIGHT}" font-family="sans-serif" font-size="12">',
        f'<rect width="{WIDTH}" height="{HEIGHT}" fill="white"/>',
        f'<text x="{LEFT}" y="28" font-size="15" font-weight="bold">Warehouse prompt size per '
        f"step (oracle policy, T = {horizon}, seed {seed})</text>",
    ]
    tick = 0.0
    while tick <= y_max + 1e-9:
        ty = y(tick)
        out.append(
            f'<line x1="{LEFT}" y1="{ty:.1f}" x2="{LEFT + plot_w}" y2="{ty:.1f}" stroke="#ddd"/>'
        )
        out.append(f'<text x="{LEFT - 8}" y="{ty + 4:.1f}" text-anchor="end">{int(tick):,}</text>')
        tick += step
    x_step = int(_nice_step(horizon, 8))
    for i in [1, *range(x_step, horizon + 1, x_step)]:
        out.append(f'<text x="{x(i):.1f}" y="{TOP + plot_h + 18}" text-anchor="middle">{i}</text>')
    out.append(
        f'<line x1="{LEFT}" y1="{TOP + plot_h}" x2="{LEFT + plot_w}" y2="{TOP + plot_h}" '
        'stroke="black"/>'
    )
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{TOP + plot_h}" stroke="black"/>')
    out.append(
        f'<text x="{LEFT + plot_w / 2:.1f}" y="{HEIGHT - 15}" text-anchor="middle">step t '
        "(one LLM call per event)</text>"
    )
    out.append(
        f'<text x="20" y="{TOP + plot_h / 2:.1f}" text-anchor="middle" '
        f'transform="rotate(-90 20 {TOP + plot_h / 2:.1f})">prompt size (characters)</text>'
    )
    for n, (kind, label, colour) in enumerate(SERIES):
        points = " ".join(f"{x(i + 1):.1f},{y(v):.1f}" for i, v in enumerate(sizes[kind]))
        out.append(f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="2"/>')
        ly = TOP + 20 + 22 * n
        lx = LEFT + plot_w + 15
        out.append(
            f'<line x1="{lx}" y1="{ly}" x2="{lx + 24}" y2="{ly}" stroke="{colour}" '
            'stroke-width="3"/>'
        )
        last = sizes[kind][-1]
        out.append(
            f'<text x="{lx + 30}" y="{ly + 4}">{escape(label)}</text>'
            f'<text x="{lx + 30}" y="{ly + 17}" fill="#555" font-size="10">last: {last:,}</text>'
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str] | None = None) -> Path:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--horizon", type=int, default=200)
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--out", type=Path, default=Path("docs/warehouse-prompt-sizes.svg"))
    args = parser.parse_args(argv)
    sizes = collect(args.horizon, args.seed)
    args.out.write_text(render(sizes, args.horizon, args.seed))
    for kind, values in sizes.items():
        print(
            f"{kind:12} first {values[0]:>7,}  last {values[-1]:>7,}  max/min "
            f"{max(values) / min(values):.3f}"
        )
    print(f"wrote {args.out}")
    return args.out


if __name__ == "__main__":
    main()
