"""The package version, kept in a module of its own so `skillstate --version` imports nothing else."""

__version__ = "0.1.0"
