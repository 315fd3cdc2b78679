"""The skill store's tests: its Python API, ``skillstate skills`` as a real subprocess,
concurrency, disclosure costs, hardening and fuzzing. They use only the package
(relatively), ``skillstate.plugin``, ``skillstate_testing`` and the installed
``skillstate`` console script, so they pass when the package is lifted out."""
