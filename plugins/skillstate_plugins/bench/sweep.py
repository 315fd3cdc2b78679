"""Many episodes: in parallel against one endpoint, written to the results file as they finish.

:func:`run_sweep` runs every :class:`~skillstate_plugins.bench.spec.EpisodeConfig` whose
:func:`~skillstate_plugins.bench.results.episode_key` is not already done, on ``concurrency``
worker threads (daemon threads: neither Ctrl-C nor an endpoint failure waits for a
model call to return). The main thread writes each finished episode's line (durable
before it is counted) and advances the progress display. Every line is passed
through the policy's ``redact`` (the LLM policy's removes its API key) and
:func:`~skillstate_plugins.bench.redaction.redact_secrets`.

The sweep stops at the first :class:`~skillstate_plugins.bench.policies.EndpointError`, at
Ctrl-C (SIGINT, heard even where the parent ignored it, as for a script's ``bench &``), at
SIGTERM (``kill PID``), or as soon as ``closed()`` says the output's reader went away
(``bench … | head``), and reports which: no new episode starts, a policy with ``stop_on`` stops
waiting between its retries, the episodes already finished are written within
:data:`GRACE_SECONDS`, and :func:`run_sweep` returns without waiting for the calls
still running (what finished is in the file).
"""

from __future__ import annotations

import json
import queue
import signal
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from skillstate.plugin import Host
from skillstate.plugin.runtime import Runtime

from .policies import EndpointError
from .progress import Progress
from .records import TurnRecord
from .redaction import redact_secrets
from .results import ResultsFile, episode_key
from .runner import Interrupted, run_episode
from .spec import BenchmarkSpec, EpisodeConfig

__all__ = ["GRACE_SECONDS", "SweepOutcome", "run_sweep"]

GRACE_SECONDS = 0.5
"""After an endpoint failure: how long the sweep waits for episodes that are finishing."""


@attrs.frozen
class SweepOutcome:
    """``runs`` — the episodes this sweep finished, in configuration order; ``error`` — the
    endpoint failure that stopped it; ``interrupted`` — Ctrl-C or SIGTERM stopped it
    (``terminated`` — SIGTERM); ``closed`` — the output's reader went away."""

    runs: list[dict[str, Any]]
    error: str | None = None
    interrupted: bool = False
    terminated: bool = False
    closed: bool = False


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
    closed: Callable[[], bool] | None = None,
) -> SweepOutcome:
    """Run ``configs``; ``settings`` (model, endpoint, version...) go on every results line.

    ``closed``, asked between results lines: true when nobody reads the output any more.
    """
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

    def line_of(result: Any, redact: Callable[[str], str]) -> dict[str, Any]:
        line = {**result.to_dict(turns=turns), **settings}
        line["key"] = episode_key(line)
        text = redact_secrets(redact(json.dumps(line, ensure_ascii=False)))
        return dict(json.loads(text))

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
                    if progress is not None and not stop.is_set():  # no bar after the end
                        progress.call(advanced)

                policy = make_policy()
                redact: Callable[[str], str] = getattr(policy, "redact", str)
                if hasattr(policy, "stop_on"):
                    policy.stop_on(stop)
                try:
                    result = run_episode(spec, config, policy, runtime, on_turn=on_turn, stop=stop)
                    done.put((index, (result, handled[0], line_of(result, redact))))
                except Interrupted:
                    return
                except EndpointError as exc:
                    done.put((-1, redact_secrets(redact(str(exc)))))
                    return
                except BaseException as exc:  # a bug: report it, never hang the main thread
                    done.put((-2, redact_secrets(redact(f"{type(exc).__name__}: {exc}"))))
                    return

    threads = [threading.Thread(target=work, daemon=True) for _ in range(workers)]
    for thread in threads:
        thread.start()
    finished: dict[int, dict[str, Any]] = {}
    error: str | None = None
    deadline = float("inf")  # set when an error stops the sweep: then only a short grace
    # Ctrl-C and SIGTERM are taken between two results lines, never inside one: the
    # handler only records the signal, so a line being written is written and counted
    # before the sweep stops.
    heard: list[int] = []
    restore: dict[int, Any] = {}
    if threading.current_thread() is threading.main_thread():
        for signum in (signal.SIGINT, signal.SIGTERM):
            restore[signum] = signal.signal(signum, lambda signum, frame: heard.append(signum))
    try:
        while len(finished) < len(configs):
            if heard:
                raise KeyboardInterrupt
            if closed is not None and closed():
                stop.set()
                return SweepOutcome([finished[i] for i in sorted(finished)], error, closed=True)
            try:
                index, value = done.get(timeout=max(0.0, min(0.1, deadline - time.monotonic())))
            except queue.Empty:
                if time.monotonic() >= deadline:
                    break
                if not any(t.is_alive() for t in threads) and done.empty():
                    break
                continue
            if index < 0:
                if index == -2:
                    stop.set()
                    raise RuntimeError(value)
                if error is None:
                    error = value
                    stop.set()
                    deadline = time.monotonic() + GRACE_SECONDS
                continue
            result, handled, line = value
            if results is not None:
                results.append(line)
            finished[index] = line
            if progress is not None:
                c = result.config
                label = f"{c.runtime} T={c.horizon} seed={c.seed} noise={c.noise} score {result.score:.2f}"
                progress.episode(c.horizon, handled, label)
    except KeyboardInterrupt:
        stop.set()
        return SweepOutcome(
            [finished[i] for i in sorted(finished)],
            error,
            interrupted=True,
            terminated=signal.SIGTERM in heard,
        )
    finally:
        for heard_signum, handler in restore.items():
            signal.signal(heard_signum, handler)
    if error is None:
        for thread in threads:
            thread.join()
    return SweepOutcome([finished[i] for i in sorted(finished)], error)
