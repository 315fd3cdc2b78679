"""Skills as public repositories publish them, over the real MCP client on stdio."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .support import stdio_client_for, text_of

pytestmark = pytest.mark.anyio

PDF_MD = (
    "---\nname: pdf\ndescription: Extract text and fill PDF forms.\n---\n"
    "# PDF Processing Guide\nFor advanced features see [reference.md](reference.md).\n"
    "If you need to fill out a PDF form, read forms.md and follow its instructions.\n"
)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def put(root: Path, relative: str, text: str) -> None:
    (root / relative).parent.mkdir(parents=True, exist_ok=True)
    (root / relative).write_text(text)


def ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    data: dict[str, Any] = result.structured_content
    return data


@pytest.fixture
def project(tmp_path: Path) -> Path:
    skills = tmp_path / ".skillstate" / "skills"
    put(skills, "pdf/SKILL.md", PDF_MD)
    put(skills, "pdf/forms.md", "# Forms\nCheck the fields first.\n")
    put(skills, "pdf/reference.md", "# Reference\n")
    put(skills, "pdf/scripts/fill_fillable_fields.py", "print('fill')\n")
    return tmp_path


async def test_skill_read_takes_files_beside_skill_md(project: Path) -> None:
    store = f"file:{project / 'state'}"
    async with stdio_client_for(store, project) as client:
        view = ok(await client.call_tool("skill_view", {"name": "pdf"}))
        assert view["files"] == ["forms.md", "reference.md", "scripts/fill_fillable_fields.py"]
        assert view["linked_files"] == [
            "forms.md",
            "reference.md",
            "scripts/fill_fillable_fields.py",
        ]
        for path in view["linked_files"]:
            read = ok(await client.call_tool("skill_read", {"name": "pdf", "file_path": path}))
            assert read["content"] == (project / ".skillstate/skills/pdf" / path).read_text()
        hidden = await client.call_tool("skill_read", {"name": "pdf", "file_path": ".env"})
        assert hidden.is_error
        assert json.loads(text_of(hidden))["error"].startswith("Hidden files are not read")


async def test_skills_list_names_broken_skills(project: Path) -> None:
    put(
        project / ".skillstate" / "skills",
        "react-best-practices/SKILL.md",
        "---\nname: vercel-react-best-practices\ndescription: React rules.\n---\n# Rules\n",
    )
    async with stdio_client_for(f"file:{project / 'state'}", project) as client:
        listing = ok(await client.call_tool("skills_list", {}))
        assert [s["name"] for s in listing["skills"]] == ["pdf"]
        assert [(b["name"], b["source"]) for b in listing["broken"]] == [
            ("react-best-practices", "project")
        ]
        assert listing["broken"][0]["reason"] == (
            "SKILL.md of skill 'react-best-practices' declares name "
            "'vercel-react-best-practices'; the frontmatter name must equal the directory name."
        )


ORDERS_MD = (
    "---\nname: orders\ndescription: Ship warehouse orders.\n"
    "skillstate-environment: warehouse\n---\n# Orders\nPick, pack, ship.\n"
)


async def test_initialize_skill_from_a_stored_skill(project: Path) -> None:
    import hashlib

    put(project / ".skillstate" / "skills", "orders/SKILL.md", ORDERS_MD)
    async with stdio_client_for(f"file:{project / 'state'}", project) as client:
        init = ok(
            await client.call_tool(
                "initialize_skill",
                {"session_id": "o1", "skill_name": "orders", "initial_state": {"n": 1}},
            )
        )
        assert init["prompt_payload"]["skill_spec"] == "# Orders\nPick, pack, ship.\n"
        assert init["prompt_payload"]["current_state"] == {"n": 1}
        assert init["environment"] == "warehouse"  # the frontmatter's default
        got = ok(await client.call_tool("get_session", {"session_id": "o1"}))
        source = got["metadata"]["skillSource"]
        assert source["name"] == "orders" and source["source"] == "project"
        assert source["sha256"] == hashlib.sha256(ORDERS_MD.encode()).hexdigest()

        inline = ok(  # the reference's arguments still work unchanged
            await client.call_tool(
                "initialize_skill", {"session_id": "i1", "skill_specification": "Do a thing."}
            )
        )
        assert inline["prompt_payload"]["skill_spec"] == "Do a thing."
        for arguments, message in [
            ({"session_id": "x"}, "initialize_skill takes skill_specification (P itself) or"),
            (
                {"session_id": "x", "skill_name": "orders", "skill_specification": "P"},
                "; both were given",
            ),
            ({"session_id": "x", "skill_name": "nope"}, "Skill 'nope' not found."),
        ]:
            refused = await client.call_tool("initialize_skill", arguments)
            assert refused.is_error and message in text_of(refused), arguments
        listed = ok(await client.call_tool("list_sessions", {}))
        assert sorted(s["session_id"] for s in listed["sessions"]) == ["i1", "o1"]
