"""skillstate/config.py and the sqlite store's backend were split by concern (each was
over 500 lines): every module of theirs stays under ~400 lines, and the old public
imports still work and give the same objects as the new homes."""

from __future__ import annotations

from pathlib import Path

import pytest
from support import ROOT

SPLIT = [
    *sorted((ROOT / "skillstate").glob("config*.py")),
    *sorted((ROOT / "plugins" / "skillstate_plugins" / "sqlite_store").glob("*.py")),
]


@pytest.mark.parametrize("path", SPLIT, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_each_module_stays_under_400_lines(path: Path) -> None:
    lines = path.read_text(encoding="utf-8").count("\n")
    assert lines <= 400, f"{path.relative_to(ROOT)}: {lines} lines; split it by concern"


def test_the_old_imports_still_work() -> None:
    from skillstate_plugins.sqlite_store import (
        backend,
        connections,
        parse_sqlite_url,
        tables,
        url as sqlite_url,
    )

    import skillstate.config as config
    import skillstate.config_edit as config_edit
    import skillstate.config_keys as config_keys

    assert len(SPLIT) >= 7  # config, config_keys, config_edit; sqlite: 5 modules
    for name in ("KEYS", "Config", "ConfigKey", "find_project_root", "load_config"):
        assert hasattr(config, name), name
    assert config.set_config_value is config_edit.set_config_value
    assert config.KEYS is config_keys.KEYS and config.ConfigKey is config_keys.ConfigKey
    assert backend.MIGRATIONS is tables.MIGRATIONS
    assert backend.parse_sqlite_url is sqlite_url.parse_sqlite_url
    assert backend.parse_sqlite_options is sqlite_url.parse_sqlite_options
    assert issubclass(backend.SQLiteStore, connections.SQLiteConnections)
    assert parse_sqlite_url("sqlite:////tmp/x.db?timeout=2") == (Path("/tmp/x.db"), 2.0)
