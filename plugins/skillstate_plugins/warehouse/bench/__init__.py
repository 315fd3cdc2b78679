"""The warehouse's part of the benchmark harness: P and Σ (:mod:`.spec`), reading
observations (:mod:`.belief`) and the scripted policies (:mod:`.policies`).

The generic harness is the bench plugin's (its author API, :mod:`skillstate_plugins.bench`); the benchmark
record is :mod:`..benchmark`. See ``docs/warehouse.md``.
"""
