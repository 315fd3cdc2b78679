"""One store contract on sharing: records are shared, never changed in place.

The memory store and the file store's memory of recent runs hand out the objects they
were given; docs/stores.md once told store authors to "return copies". Every place that
states the contract must say the same thing: the store module, the ``Store`` class,
the conformance kit (which also tests it) and the store author's guide."""

from __future__ import annotations

import re

from support import ROOT

import skillstate.store
from skillstate.testing import StoreConformance

RULE = re.compile(r"shared.{0,80}never changed in place", re.S)


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_every_statement_of_the_contract_says_shared_never_changed_in_place() -> None:
    guide = (ROOT / "docs" / "stores.md").read_text(encoding="utf-8")
    places = {
        "skillstate/store.py": skillstate.store.__doc__ or "",
        "Store": skillstate.store.Store.__doc__ or "",
        "StoreConformance": StoreConformance.__doc__ or "",
        "docs/stores.md": guide,
        "docs/storage-format.md": (ROOT / "docs" / "storage-format.md").read_text("utf-8"),
        "memory store": (
            ROOT / "plugins" / "skillstate_plugins" / "memory_store" / "store.py"
        ).read_text("utf-8"),
    }
    for where, text in places.items():
        assert RULE.search(_flat(text)), f"{where} does not state the sharing rule"
    assert "return copies" not in _flat(guide)


def test_the_kit_tests_the_rule() -> None:
    assert hasattr(StoreConformance, "test_a_store_changes_nothing_it_is_given_or_handed_out")
