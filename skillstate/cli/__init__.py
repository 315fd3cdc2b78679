"""The ``skillstate`` command line: a thin adapter over the pipeline and the host."""
