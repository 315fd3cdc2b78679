"""The file store: conformance suite, crash and concurrency safety, ids, disk errors, legacy files."""

from __future__ import annotations

from pathlib import Path

import pytest

from skillstate.testing import StoreConformance


class TestFileStore(StoreConformance):
    @pytest.fixture
    def store_url(self, tmp_path: Path) -> str:
        return f"file:{tmp_path / 'state'}"
