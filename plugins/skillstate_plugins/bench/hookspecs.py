"""The benchmark harness's own hook: what ``skillstate bench NAME`` runs comes from plugins.

The ``bench`` plugin adds this spec when it is registered (``skillstate_addhooks``), as
pytest-xdist adds its hooks to pytest. A benchmark plugin implements it with
``@hookimpl(optionalhook=True)``: with ``bench`` blocked
(``SKILLSTATE_DISABLE_PLUGINS=bench``) or not installed, the hook does not exist and
the plugin still loads (its environments and commands work; it has no benchmark to
run). Benchmark plugins import the records they register from the harness's author
API, ``skillstate_plugins.bench`` (the package, never its modules).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from .spec import BenchmarkSpec

__all__ = ["skillstate_register_benchmarks"]

hookspec = pluggy.HookspecMarker("skillstate")


@hookspec
def skillstate_register_benchmarks(register: Callable[[BenchmarkSpec], None]) -> None:
    """Register benchmarks, keyed by name: what ``skillstate bench NAME`` runs.

    **When:** once per process, the first time the benchmark registry is needed (the
    ``bench`` command's ``--help``, or ``skillstate bench NAME``).

    **Semantics:** collected; call ``register`` once per benchmark with a
    :class:`~skillstate_plugins.bench.BenchmarkSpec` (its environment, the
    instructions P, Σ_0 and Σ's JSON Schema, the scripted policies, how to read the
    score from the environment's final snapshot). The harness (runtimes, runner, LLM
    adapter, results file, report, plot) is shared by every benchmark. Two plugins
    registering one name raise :class:`~skillstate.plugin.PluginError` naming both; a
    benchmark may not be named ``report`` or ``plot`` (the ``bench`` command's own
    sub-commands). A blocked plugin's benchmarks do not exist.

    **Order:** pluggy's; ``skillstate bench --help`` lists benchmarks in registration order.

    **Isolation:** fail open, as for ``skillstate_register_skills``: a failing plugin's
    benchmarks are not registered (not even those it registered before failing), and a
    warning names it.

    **Arguments:** ``register`` — takes one :class:`~skillstate_plugins.bench.BenchmarkSpec`.

    **Returns:** nothing.

    **Example**::

        from skillstate.plugin import hookimpl
        from skillstate_plugins.bench import BenchmarkSpec

        @hookimpl(optionalhook=True)
        def skillstate_register_benchmarks(register):
            register(BenchmarkSpec(
                name="tickets", help="triage a seeded ticket queue", environment="tickets",
                instructions=INSTRUCTIONS, initial_state={"open": {}}, state_schema=SCHEMA,
                policies={"oracle": TicketOracle}, outcome=score_from_snapshot,
            ))
    """
