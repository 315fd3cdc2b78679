"""The store conformance suite against the bundled memory store."""

from __future__ import annotations

import uuid

import pytest

from skillstate.testing import StoreConformance


class TestMemoryStore(StoreConformance):
    @pytest.fixture
    def store_url(self) -> str:
        return f"memory:{uuid.uuid4().hex}"
