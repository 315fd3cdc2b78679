"""Creating a session in a store that already holds many runs, with the default limits.

Fills a store with N sessions (once; kept between runs), then times ``--creates``
creations through a fresh runtime with the session cap and the idle sweep on (the
defaults: 256 active sessions is raised above N so nothing is refused, 24 h TTL)::

    python -m benchmarks.bench_session_create --store file:/tmp/sessions --runs 4900

Prints the mean milliseconds per creation, the first one (which lists the store) apart.
"""

from __future__ import annotations

import argparse
import time


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--store", required=True)
    parser.add_argument("--runs", type=int, default=4900)
    parser.add_argument("--creates", type=int, default=50)
    args = parser.parse_args()
    from skillstate_testing import make_host

    from skillstate.runtime import Runtime

    host = make_host(args.store)
    filler = Runtime(host=host, session_idle_ttl=0, max_active_sessions=0)
    have = len(host.open_store().list())
    for i in range(have, args.runs):
        filler.initialize_skill(f"s{i:05d}", "spec", environment="mock")
    host.close()

    host = make_host(args.store)
    runtime = Runtime(host=host, session_idle_ttl=86400, max_active_sessions=args.runs * 2)
    times = []
    for _ in range(args.creates):
        start = time.perf_counter()
        runtime.initialize_skill(f"new-{time.time_ns()}", "spec", environment="mock")
        times.append(time.perf_counter() - start)
    host.close()
    rest = times[1:] or times
    print(
        f"{args.runs} runs: first create {times[0] * 1000:.1f} ms, then "
        f"{sum(rest) / len(rest) * 1000:.2f} ms per create (mean of {len(rest)})"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
