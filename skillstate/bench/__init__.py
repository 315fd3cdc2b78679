"""The benchmark harness: environment-independent episodes, runtimes, the LLM adapter, results.

A benchmark plugin registers a :class:`~skillstate.bench.spec.BenchmarkSpec` through
``skillstate_register_benchmarks``; ``skillstate bench <name>`` runs it. Plugins import
all of this from :mod:`skillstate.plugin.bench`. Modules: ``spec`` (the records),
``policies`` (what answers a turn), ``replies`` (reading replies in each runtime's
format), ``runtimes`` (rendering each runtime's prompt), ``runner`` (one episode),
``llm`` (any OpenAI-compatible endpoint), ``results`` (the JSONL results file),
``sweep`` (many episodes, in parallel, resumable), ``stats``, ``report``, ``plot``
(matplotlib, the ``plot`` extra) and ``progress``.
"""
