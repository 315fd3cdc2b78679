"""The markers these tests use, for a run outside this repository (a lifted copy)."""

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "slow: long-running (concurrency) tests")
    config.addinivalue_line("markers", "fuzz: property tests feeding hostile input")
