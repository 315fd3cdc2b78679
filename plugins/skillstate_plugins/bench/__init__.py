"""The benchmark harness: environment-independent episodes, runtimes, the LLM adapter, results.

A benchmark plugin registers a :class:`~skillstate_plugins.bench.spec.BenchmarkSpec` through
``skillstate_register_benchmarks``; ``skillstate bench <name>`` runs it. Plugins import
all of this from :mod:`skillstate_plugins.bench.api`. Modules: ``spec`` (the records),
``policies`` (what answers a turn), ``replies`` (reading replies in each runtime's
format), ``runtimes`` (rendering each runtime's prompt), ``runner`` (one episode),
``records`` (its turns and result), ``episodes`` (what benchmark environments share:
their episode options and command records),
``llm`` (any OpenAI-compatible endpoint), ``redaction`` (secrets out of what is
printed and written), ``results`` (the JSONL results file), ``sweep`` (many episodes,
in parallel, resumable), ``stats``, ``report``, ``plot`` (matplotlib, the ``plot``
extra) and ``progress``.
"""


from typing import Any

from skillstate.plugin import hookimpl


@hookimpl
def skillstate_register_commands(register: Any) -> None:
    from skillstate.plugin import CommandSpec

    register(CommandSpec.from_module("bench", "run a plugin's benchmark (bench NAME); bench report / plot a results file", f"{__name__}.command"))
