"""Many episodes: in parallel against one endpoint, written to the results file as they finish.

:func:`run_sweep` runs every :class:`~skillstate.bench.spec.EpisodeConfig` whose
:func:`~skillstate.bench.results.episode_key` is not already done, on ``concurrency``
worker threads (daemon threads: Ctrl-C never waits for a model call to return). The
main thread writes each finished episode's line (durable before it is counted) and
advances the progress display. The sweep stops at the first
:class:`~skillstate.bench.policies.EndpointError` (no new episodes start; the running
ones stop at their next call) or at Ctrl-C, and reports which: what finished is
already in the file.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from skillstate.bench.policies import EndpointError
from skillstate.bench.progress import Progress
from skillstate.bench.results import ResultsFile, episode_key
from skillstate.bench.runner import Interrupted, TurnRecord, run_episode
from skillstate.bench.spec import BenchmarkSpec, EpisodeConfig
from skillstate.host import Host
from skillstate.runtime.sessions import Runtime

__all__ = ["SweepOutcome", "run_sweep"]


@attrs.frozen
class SweepOutcome:
    """``runs`` — the episodes this sweep finished, in configuration order; ``error`` — the
    endpoint failure that stopped it; ``interrupted`` — Ctrl-C stopped it."""

    runs: list[dict[str, Any]]
    error: str | None = None
    interrupted: bool = False


def run_sweep(
    spec: BenchmarkSpec,
    configs: Sequence[EpisodeConfig],
    make_policy: Callable[[], Any],
    *,
    store: str,
    host: Host,
    settings: Mapping[str, Any],
    concurrency: int = 1,
    results: ResultsFile | None = None,
    progress: Progress | None = None,
    turns: bool = False,
) -> SweepOutcome:
    """Run ``configs``; ``settings`` (model, endpoint, version...) go on every results line."""
    # build the registries and open the store before the worker threads share the host
    host.skills  # noqa: B018
    host.environments  # noqa: B018
    host.open_store(store)
    jobs: queue.Queue[tuple[int, EpisodeConfig] | None] = queue.Queue()
    for job in enumerate(configs):
        jobs.put(job)
    done: queue.Queue[tuple[int, Any]] = queue.Queue()
    stop = threading.Event()
    workers = max(1, min(concurrency, len(configs)))

    def work() -> None:
        with Runtime(store, host=host) as runtime:
            while not stop.is_set():
                try:
                    job = jobs.get_nowait()
                except queue.Empty:
                    return
                if job is None:
                    return
                index, config = job
                handled = [0]

                def on_turn(record: TurnRecord, handled: list[int] = handled) -> None:
                    advanced = record.outcome == "accepted" or record.skipped
                    handled[0] += 1 if advanced else 0
                    if progress is not None:
                        progress.call(advanced)

                try:
                    result = run_episode(
                        spec, config, make_policy(), runtime, on_turn=on_turn, stop=stop
                    )
                except Interrupted:
                    return
                except EndpointError as exc:
                    done.put((-1, str(exc)))
                    return
                except BaseException as exc:  # a bug: report it, never hang the main thread
                    done.put((-2, f"{type(exc).__name__}: {exc}"))
                    return
                done.put((index, (result, handled[0])))

    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    for thread in threads:
        thread.start()
    finished: dict[int, dict[str, Any]] = {}
    error: str | None = None
    try:
        while len(finished) < len(configs):
            try:
                index, value = done.get(timeout=0.1)
            except queue.Empty:
                if not any(t.is_alive() for t in threads) and done.empty():
                    break
                continue
            if index < 0:
                if index == -2:
                    stop.set()
                    raise RuntimeError(value)
                error = error or value
                stop.set()
                continue
            result, handled = value
            line = {**result.to_dict(turns=turns), **settings}
            line["key"] = episode_key(line)
            if results is not None:
                results.append(line)
            finished[index] = line
            if progress is not None:
                c = result.config
                label = f"{c.runtime} T={c.horizon} seed={c.seed} noise={c.noise} score {result.score:.2f}"
                progress.episode(c.horizon, handled, label)
    except KeyboardInterrupt:
        stop.set()
        return SweepOutcome([finished[i] for i in sorted(finished)], error, interrupted=True)
    for thread in threads:
        thread.join(timeout=0.5 if error else None)
    return SweepOutcome([finished[i] for i in sorted(finished)], error)
