"""The skill-store tools over stdio, and embedding the skillstate tools in another MCPServer."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.server import MCPServer

from skillstate.plugin.runtime import Runtime

from .. import add_prompts, add_resources, build_server, skillstate_tools
from .support import stdio_client_for, text_of

pytestmark = pytest.mark.anyio

SKILL_MD = "---\nname: pdf-tools\ndescription: Work with PDF files.\n---\n# PDF tools\nUse pdftk.\n"


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def ok(result: Any) -> dict[str, Any]:
    assert not result.is_error, text_of(result)
    data: dict[str, Any] = result.structured_content
    assert data["success"] is True
    return data


def failed(result: Any) -> dict[str, Any]:
    assert result.is_error
    data: dict[str, Any] = json.loads(text_of(result))
    assert data["success"] is False
    return data


async def test_skill_tools_read_and_write_with_the_flag(tmp_path: Path) -> None:
    store = f"file:{tmp_path / 'state'}"
    async with stdio_client_for(store, tmp_path, "fast", ["--allow-skill-writes"]) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"skills_list", "skill_view", "skill_read", "skill_manage"} <= names
        assert ok(await client.call_tool("skills_list", {}))["skills"] == []
        created = ok(
            await client.call_tool(
                "skill_manage", {"action": "create", "name": "pdf-tools", "content": SKILL_MD}
            )
        )
        assert "created" in created["message"]
        assert (tmp_path / ".skillstate/skills/pdf-tools/SKILL.md").read_text() == SKILL_MD
        listed = ok(await client.call_tool("skills_list", {}))
        assert [s["name"] for s in listed["skills"]] == ["pdf-tools"]
        view = ok(await client.call_tool("skill_view", {"name": "pdf-tools"}))
        assert "Use pdftk." in json.dumps(view)
        ok(
            await client.call_tool(
                "skill_manage",
                {
                    "action": "write_file",
                    "name": "pdf-tools",
                    "file_path": "references/api.md",
                    "file_content": "merge: pdftk a b cat output c",
                },
            )
        )
        read = ok(
            await client.call_tool(
                "skill_read", {"name": "pdf-tools", "file_path": "references/api.md"}
            )
        )
        assert read["content"] == "merge: pdftk a b cat output c"
        ok(
            await client.call_tool(
                "skill_manage",
                {
                    "action": "patch",
                    "name": "pdf-tools",
                    "old_string": "Use pdftk.",
                    "new_string": "Use qpdf.",
                },
            )
        )
        assert "Use qpdf." in (tmp_path / ".skillstate/skills/pdf-tools/SKILL.md").read_text()

        missing = failed(await client.call_tool("skill_view", {"name": "nope"}))
        assert missing["error"] == "Skill 'nope' not found."
        assert missing["available_skills"] == ["pdf-tools"]
        no_content = failed(
            await client.call_tool("skill_manage", {"action": "create", "name": "x"})
        )
        assert no_content["error"].startswith("content is required for 'create'")
        traversal = failed(
            await client.call_tool(
                "skill_read", {"name": "pdf-tools", "file_path": "../../state/x.json"}
            )
        )
        assert "traversal" in traversal["error"] or "must" in traversal["error"]
        bad_action = await client.call_tool("skill_manage", {"action": "rename", "name": "x"})
        assert bad_action.is_error
        assert "action must be one of create, edit, patch" in text_of(bad_action)

        ok(await client.call_tool("skill_manage", {"action": "delete", "name": "pdf-tools"}))
        assert not (tmp_path / ".skillstate/skills/pdf-tools").exists()


@pytest.fixture
def runtime(tmp_path: Path) -> Any:
    rt = Runtime(f"file:{tmp_path / 'state'}")
    yield rt
    rt.close()


async def test_embedding_next_to_tools_of_your_own(runtime: Runtime) -> None:
    """A server of your own: the tools at construction, resources and prompts added; and
    the built server with a tool of your own added the SDK's way."""
    server: MCPServer[Any] = MCPServer("my-agent", tools=skillstate_tools(runtime))

    @server.tool()
    def hello(name: str) -> str:
        return f"hello {name}"

    add_resources(server, runtime)
    add_prompts(server, runtime)
    async with Client(server) as client:
        names = {t.name for t in (await client.list_tools()).tools}
        assert {"hello", "initialize_skill", "execute_step", "list_sessions"} <= names
        assert text_of(await client.call_tool("hello", {"name": "x"})) == "hello x"
        init = await client.call_tool(
            "initialize_skill", {"session_id": "e1", "skill_specification": "spec"}
        )
        assert init.structured_content["session_id"] == "e1"
        strict = await client.call_tool("get_session", {"session_id": "e1", "verbose": True})
        assert 'unknown argument "verbose"' in text_of(strict)
        index = await client.read_resource("skill-state://sessions")
        assert json.loads(index.contents[0].text)["active_sessions"] == 1
        prompt = await client.get_prompt("skill_state_turn", {"session_id": "e1"})
        assert 'skill session "e1"' in prompt.messages[0].content.text
    built = build_server(runtime)
    built.add_tool(lambda name: f"hi {name}", name="hi", description="greets")
    async with Client(built) as client:
        assert text_of(await client.call_tool("hi", {"name": "y"})) == "hi y"
        assert not (await client.call_tool("get_session", {"session_id": "e1"})).is_error


async def test_tools_at_construction_and_the_built_server(runtime: Runtime) -> None:
    server: MCPServer[Any] = MCPServer("mine", tools=skillstate_tools(runtime, offload=False))
    add_resources(server, runtime, offload=False)
    add_prompts(server, runtime, offload=False)
    async with Client(server) as client:
        init = await client.call_tool(
            "initialize_skill", {"session_id": "c1", "skill_specification": {"goal": "x"}}
        )
        assert init.structured_content["prompt_payload"]["skill_spec"] == {"goal": "x"}
    built = build_server(runtime)
    async with Client(built) as client:
        got = await client.call_tool("get_session", {"session_id": "c1"})
        assert got.structured_content["skill_spec"] == {"goal": "x"}
        info = client.server_info if hasattr(client, "server_info") else None
        assert info is None or info.name == "skillstate"


async def test_no_server_path_in_skill_answers_or_sessions(tmp_path: Path) -> None:
    """A client learns paths relative to the skills root, never the server's directories:
    not in a write's or a listing's ``path``, a view, a session's ``skillSource``, nor an
    error quoting an absolute path."""
    store = f"file:{tmp_path / 'state'}"
    broken = tmp_path / ".skillstate/skills/broken-sk"
    broken.mkdir(parents=True)
    (broken / "SKILL.md").write_text("---\nname: other\ndescription: d\n---\nb\n")
    seen: list[str] = []

    def answer(result: Any) -> dict[str, Any]:
        seen.append(text_of(result))
        return ok(result) if not result.is_error else failed(result)

    async with stdio_client_for(store, tmp_path, "fast", ["--allow-skill-writes"]) as client:
        create = {
            "action": "create",
            "name": "demo-sk",
            "content": SKILL_MD.replace("pdf-tools", "demo-sk"),
        }
        assert answer(await client.call_tool("skill_manage", create))["path"] == "demo-sk"
        write = {
            "action": "write_file",
            "name": "demo-sk",
            "file_path": "references/api.md",
            "file_content": "x",
        }
        written = answer(await client.call_tool("skill_manage", write))
        assert written["path"] == "demo-sk/references/api.md"
        listed = answer(await client.call_tool("skills_list", {}))
        assert [s["path"] for s in listed["skills"]] == ["demo-sk"]
        assert [b["path"] for b in listed["broken"]] == ["broken-sk"]
        assert (
            answer(await client.call_tool("skill_view", {"name": "demo-sk"}))["path"] == "demo-sk"
        )
        refused = answer(
            await client.call_tool("skill_read", {"name": "demo-sk", "file_path": "/etc/passwd"})
        )
        assert refused["error"] == (
            "file_path must be relative to the skill directory. Got: '<path>'"
        )
        begun = {"session_id": "s1", "skill_name": "demo-sk"}
        assert not (await client.call_tool("initialize_skill", begun)).is_error
        session = await client.call_tool("get_session", {"session_id": "s1"})
        seen.append(text_of(session))
        source = session.structured_content["metadata"]["skillSource"]
        assert source["path"] == "demo-sk" and source["name"] == "demo-sk"
        resource = await client.read_resource("skill-state://s1")
        text = resource.contents[0].text
        seen.append(text)
        assert json.loads(text)["metadata"]["skillSource"]["path"] == "demo-sk"
    for place in {str(tmp_path), str(tmp_path.resolve())}:
        assert not [t for t in seen if place in t]
