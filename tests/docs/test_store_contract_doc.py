"""One store contract on sharing: records are shared, never changed in place.

The memory store and the file store's memory of recent runs hand out the objects they
were given; docs/stores.md once told store authors to "return copies". Every place that
states the contract must say the same thing: the store module, the ``Store`` class,
the conformance kit (which also tests it) and the store author's guide. And a store
written from that guide alone, its code taken from the page as it stands, passes the
whole conformance kit."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
from skillstate_testing import StoreConformance
from support import ROOT, clean_env

import skillstate.store

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


# -- a store written from docs/stores.md alone -----------------------------------------
SECTION = "## Writing a third-party store"
BLOCK = re.compile(r"^```(\w+)\n(.*?)^```", re.S | re.M)


def _page_blocks() -> dict[str, str]:
    """The section's code blocks, by the path each names on its first line (``# path``)."""
    guide = (ROOT / "docs" / "stores.md").read_text(encoding="utf-8")
    section = guide.split(SECTION, 1)[1].split("\n## ", 1)[0]
    blocks = {}
    for _, code in BLOCK.findall(section):
        first = code.splitlines()[0]
        assert first.startswith("# "), f"a code block that names no file: {first!r}"
        blocks[first[2:].split(" ")[0]] = code
    return blocks


def test_the_guide_names_the_store_module_its_entry_point_and_its_test() -> None:
    blocks = _page_blocks()
    assert set(blocks) == {"mypkg/my_store.py", "pyproject.toml", "tests/test_my_store.py"}
    for path in ("mypkg/my_store.py", "tests/test_my_store.py"):
        imported = {
            node.module if isinstance(node, ast.ImportFrom) else alias.name
            for node in ast.walk(ast.parse(blocks[path]))
            if isinstance(node, ast.Import | ast.ImportFrom)
            for alias in node.names
        }
        ours = {m for m in imported if m and m.split(".")[0] == "skillstate"}
        allowed = {"skillstate.plugin"} | ({"skillstate_testing"} if "tests/" in path else set())
        assert ours <= allowed, (path, ours)
    assert "def list(self, skill=None, keys=())" in blocks["mypkg/my_store.py"]


@pytest.mark.parametrize("keep_url", [True, False], ids=["as-written", "without-self.url"])
def test_a_store_written_from_the_guide_passes_the_whole_conformance_kit(
    tmp_path: Path, keep_url: bool
) -> None:
    """The page's code as it stands, installed as a distribution (a ``.dist-info`` with its
    entry point, found as pip would leave it), under the real kit in a fresh pytest. The
    page calls ``self.url`` optional: the same store without that line passes too."""
    blocks = _page_blocks()
    if not keep_url:
        line = "        self.url = url  # optional: the core never reads it; handy in messages\n"
        assert line in blocks["mypkg/my_store.py"]
        blocks["mypkg/my_store.py"] = blocks["mypkg/my_store.py"].replace(line, "")
    site = tmp_path / "site"
    (site / "mypkg").mkdir(parents=True)
    (site / "mypkg" / "__init__.py").write_text("", encoding="utf-8")
    (site / "mypkg" / "my_store.py").write_text(blocks["mypkg/my_store.py"], encoding="utf-8")
    entry_points = tomllib.loads(blocks["pyproject.toml"])["project"]["entry-points"]
    info = site / "mypkg-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: mypkg\nVersion: 1.0\n", encoding="utf-8"
    )
    lines = "".join(f"{k} = {v}\n" for k, v in entry_points["skillstate"].items())
    (info / "entry_points.txt").write_text(f"[skillstate]\n{lines}", encoding="utf-8")
    project = tmp_path / "project"
    (project / "tests").mkdir(parents=True)
    (project / "tests" / "test_my_store.py").write_text(
        blocks["tests/test_my_store.py"], encoding="utf-8"
    )
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=project,
        capture_output=True,
        text=True,
        env=clean_env(PYTHONPATH=str(site)),
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    passed = re.search(r"(\d+) passed", done.stdout)
    assert passed is not None and int(passed.group(1)) >= 30, done.stdout[-2000:]
    assert not re.search(r"\d+ (failed|error|skipped)", done.stdout), done.stdout[-2000:]
    assert "mystore" in blocks["tests/test_my_store.py"]  # the page's own store, not another
