"""The skill-store tools: ``skills_list``, ``skill_view``, ``skill_read`` and ``skill_manage``.

The store is the one the plugins provide (``host.skill_store()``, the
``skillstate_skill_store`` hook), used by its methods alone: ``list()``, ``view(name)``,
``read(name, path)``, ``create``, ``edit``, ``patch``, ``delete``, ``write_file``,
``remove_file``, each returning a result whose ``to_dict()`` is the envelope.

Reads are always offered. ``skill_manage`` (create, edit, patch, delete, write_file,
remove_file; Hermes' ``skill_manage`` argument names) is offered only when the server
is started with ``--allow-skill-writes``. Results are the store's JSON envelopes
(``{"success": true, ...}``); a failed operation is an ``isError`` result whose text is
the envelope's pretty JSON, so the model sees the hints (e.g. ``available_skills``).
"""

from __future__ import annotations

from typing import Any

from mcp_types import CallToolResult, TextContent

from skillstate.plugin import pretty

from .args import Param
from .scrub import public_envelope
from .tooling import StrictTool, make_tool, ok_result

__all__ = ["SKILL_ACTIONS", "skill_tools"]

SKILL_ACTIONS = ("create", "edit", "patch", "delete", "write_file", "remove_file")

_NAME = Param("name", "string", "The skill's name (its directory), e.g. pdf-tools.")
_FILE_PATH = "A path inside the skill directory under references/, templates/, scripts/ or assets/."
_READ_PATH = (
    "A file of the skill, relative to its directory (one of skill_view's files), e.g. "
    "forms.md or reference/api.md."
)


def _envelope(data: dict[str, Any], roots: Any = ()) -> CallToolResult:
    data = public_envelope(data, roots)
    if data.get("success") is False:
        return CallToolResult(content=[TextContent(type="text", text=pretty(data))], is_error=True)
    return ok_result(data)


def _roots(store: Any) -> list[Any]:
    """The store's directories (the contract's optional ``roots``), when it has them."""
    try:
        return [root for _, root in getattr(store, "roots", ())]
    except (TypeError, ValueError):
        return []


def _answer(store: Any, result: Any) -> CallToolResult:
    """The store's result as the tool's answer: ``"success": false`` is an ``isError``.

    No server path reaches the client (:func:`.scrub.public_envelope`): a path in a
    success is relative to its skills root, an error's text is scrubbed.
    """
    return _envelope(result.to_dict(), _roots(store))


def _missing(message: str) -> CallToolResult:
    """A missing argument of one ``skill_manage`` action (Hermes' dispatch texts)."""
    return _envelope({"success": False, "error": message})


def _manage(store: Any, a: dict[str, Any]) -> CallToolResult:
    action, name = a["action"], a["name"]
    if action == "create":
        if "content" not in a:
            return _missing(
                "content is required for 'create'. Provide the full SKILL.md text (frontmatter + body)."
            )
        return _answer(store, store.create(name, a["content"]))
    if action == "edit":
        if "content" not in a:
            return _missing(
                "content is required for 'edit'. Provide the new SKILL.md body (the frontmatter "
                "is kept)."
            )
        return _answer(store, store.edit(name, a["content"]))
    if action == "patch":
        if "old_string" not in a:
            return _missing("old_string is required for 'patch'. Provide the text to find.")
        if "new_string" not in a:
            return _missing(
                "new_string is required for 'patch'. Use empty string to delete matched text."
            )
        return _answer(
            store,
            store.patch(
                name,
                a["old_string"],
                a["new_string"],
                a.get("file_path"),
                replace_all=a.get("replace_all", False),
            ),
        )
    if action == "delete":
        return _answer(store, store.delete(name))
    if action == "write_file":
        if "file_path" not in a:
            return _missing(
                "file_path is required for 'write_file'. Example: 'references/api-guide.md'"
            )
        if "file_content" not in a:
            return _missing("file_content is required for 'write_file'.")
        return _answer(store, store.write_file(name, a["file_path"], a["file_content"]))
    if "file_path" not in a:  # remove_file (the enum admits nothing else)
        return _missing("file_path is required for 'remove_file'.")
    return _answer(store, store.remove_file(name, a["file_path"]))


def skill_tools(
    store: Any, *, allow_writes: bool = False, offload: bool = True
) -> list[StrictTool]:
    """The read tools, plus ``skill_manage`` when ``allow_writes``."""
    tools = [
        make_tool(
            "skills_list",
            "List skills",
            "Level 1 of the skill store: the name, description and source of every skill "
            "(frontmatter only). Use skill_view(name) to open one.",
            [],
            lambda a: _answer(store, store.list()),
            read_only=True,
            idempotent=True,
            offload=offload,
        ),
        make_tool(
            "skill_view",
            "View a skill",
            "Level 2: one skill's SKILL.md (frontmatter and body), its sha256 and the names of its "
            "support files. Use skill_read(name, file_path) to open a support file.",
            [_NAME],
            lambda a: _answer(store, store.view(a["name"])),
            read_only=True,
            idempotent=True,
            offload=offload,
        ),
        make_tool(
            "skill_read",
            "Read a skill's support file",
            "Level 3: any file of a skill but its hidden ones, e.g. forms.md or references/api.md.",
            [_NAME, Param("file_path", "string", _READ_PATH)],
            lambda a: _answer(store, store.read(a["name"], a["file_path"])),
            read_only=True,
            idempotent=True,
            offload=offload,
        ),
    ]
    if allow_writes:
        tools.append(
            make_tool(
                "skill_manage",
                "Create or change a skill",
                "Write to the project's skill store. action: create (name, content = full "
                "SKILL.md with name and description frontmatter), edit (name, content = new "
                "body; the frontmatter is kept), patch (name, old_string, new_string, optional "
                "file_path, replace_all), delete (name), write_file (name, file_path, "
                "file_content), remove_file (name, file_path).",
                [
                    Param("action", "name", "The operation.", choices=SKILL_ACTIONS),
                    _NAME,
                    Param("content", "text", "create: SKILL.md; edit: the body.", required=False),
                    Param("old_string", "text", "patch: the exact text to find.", required=False),
                    Param("new_string", "text", "patch: its replacement.", required=False),
                    Param("file_path", "string", _FILE_PATH, required=False),
                    Param("file_content", "text", "write_file: the content.", required=False),
                    Param(
                        "replace_all",
                        "boolean",
                        "patch: replace every occurrence (default false).",
                        required=False,
                    ),
                ],
                lambda a: _manage(store, a),
                destructive=True,
                offload=offload,
            )
        )
    return tools
