"""Maintainers' tools, run from a clone (not installed): the generated references."""
