"""The encoded-once tool results (plugins/skillstate_plugins/mcp/results.py) equal the SDK's own path.

- the native pretty text is byte-identical to :func:`skillstate.jsondoc.pretty` on
  generated plain documents (unicode, control characters, big integers, nesting), and
  a document with a float or a non-JSON type takes ``pretty`` itself;
- the runner's fast path returns, for every protocol version the SDK knows, the same
  dict, key order included, as the SDK's own ``_serialize`` of the same result.
"""

from __future__ import annotations

import random
from typing import Any

import pytest
from mcp.server.runner import ServerRunner
from mcp_types import CallToolResult, TextContent
from mcp_types.version import KNOWN_PROTOCOL_VERSIONS

from skillstate.jsondoc import pretty
from skillstate_plugins.mcp import results, sdk
from skillstate_plugins.mcp.server import build_server
from skillstate.runtime import Runtime

ALPHABET = [
    "a",
    "Z",
    " ",
    '"',
    "\\",
    "/",
    "\n",
    "\t",
    "\x00",
    "\x1f",
    "\x7f",
    "é",
    "·",
    "Σ",
    "\u2028",
    "\u2029",
    "😀",
    "\ufeff",
    "0",
    "1",
    ".",
]


def _string(rng: random.Random) -> str:
    return "".join(rng.choice(ALPHABET) for _ in range(rng.randrange(0, 12)))


def _document(rng: random.Random, depth: int = 0) -> Any:
    roll = rng.random()
    if depth > 4 or roll < 0.45:
        return rng.choice(
            [
                _string(rng),
                rng.randrange(-(2**70), 2**70),
                rng.randrange(-5, 5),
                True,
                False,
                None,
            ]
        )
    if roll < 0.75:
        return {_string(rng): _document(rng, depth + 1) for _ in range(rng.randrange(0, 5))}
    return [_document(rng, depth + 1) for _ in range(rng.randrange(0, 5))]


def test_native_pretty_is_byte_identical_on_plain_documents() -> None:
    rng = random.Random(20261201)
    for _ in range(3000):
        doc = {"payload": _document(rng)}
        assert results.is_plain_json(doc)
        assert results.fast_pretty(doc) == pretty(doc)


@pytest.mark.parametrize(
    "value", [1.5, 1e16, 1e-7, -0.0, 1.0, 2.0**60, (1, 2), {1: "a"}, float("nan")]
)
def test_floats_and_other_types_take_the_python_path(value: Any) -> None:
    doc = {"a": [{"b": value}]}
    assert not results.is_plain_json(doc)
    try:
        expected = pretty(doc)
    except (TypeError, ValueError) as exc:
        with pytest.raises(type(exc)):
            results.fast_pretty(doc)
        return
    assert results.fast_pretty(doc) == expected
    assert results.ok_result(doc).content[0].text == expected


def _runner() -> ServerRunner[Any]:
    """A runner over our real server, for its ``_serialize`` alone (no connection needed)."""
    server = build_server(Runtime("memory:"))
    runner: ServerRunner[Any] = object.__new__(ServerRunner)
    runner.server = sdk.lowlevel_server(server)
    return runner


def test_the_fast_path_is_installed_here() -> None:
    _runner()
    assert hasattr(ServerRunner._serialize, "__wrapped__")


@pytest.mark.parametrize("version", KNOWN_PROTOCOL_VERSIONS)
def test_fast_serialize_equals_the_sdks(version: str) -> None:
    runner = _runner()
    original = ServerRunner._serialize.__wrapped__  # type: ignore[attr-defined]
    rng = random.Random(version)
    for _ in range(300):
        data = {"session_id": _string(rng), "payload": _document(rng), "n": rng.randrange(9)}
        fast = results.ok_result(data)
        assert isinstance(fast, results.EncodedToolResult)
        reference = CallToolResult(
            content=[TextContent(type="text", text=pretty(data))], structured_content=data
        )
        mine = runner._serialize("tools/call", version, fast)
        theirs = original(runner, "tools/call", version, reference)
        assert mine == theirs
        assert list(mine) == list(theirs)
        assert original(runner, "tools/call", version, fast) == theirs  # the model itself too


def test_a_non_plain_result_is_left_to_the_sdk() -> None:
    result = results.ok_result({"x": 0.5})
    assert not isinstance(result, results.EncodedToolResult)
    assert result.structured_content == {"x": 0.5}


def test_the_result_models_are_what_model_construct_builds() -> None:
    data = {"session_id": "s", "payload": {"a": [1, "x", None]}}
    fast = results.ok_result(data)
    block = fast.content[0]
    expected_block = TextContent.model_construct(type="text", text=block.text)
    expected = results.EncodedToolResult.model_construct(
        content=[expected_block], structured_content=data
    )
    for mine, theirs in ((block, expected_block), (fast, expected)):
        assert type(mine) is type(theirs)
        assert mine.__dict__ == theirs.__dict__
        assert mine.model_fields_set == theirs.model_fields_set
        assert mine.__pydantic_extra__ == theirs.__pydantic_extra__
    assert fast.__pydantic_private__ == {"_skillstate_wire": fast._skillstate_wire}
    assert expected.__pydantic_private__ == {"_skillstate_wire": None}
    assert fast.model_dump(by_alias=True) == expected.model_dump(by_alias=True)
    assert fast.content[0] is not results.ok_result(data).content[0]  # fresh models per call


def test_no_result_shares_a_mutable_default_with_another() -> None:
    """Each result gets its own objects: the template holds only immutable defaults."""
    first, second = results.ok_result({"a": [1]}), results.ok_result({"a": [1]})
    for mine, other in ((first, second), (first.content[0], second.content[0])):
        for name, value in mine.__dict__.items():
            if not isinstance(value, results._IMMUTABLE):  # type: ignore[attr-defined]
                assert value is not other.__dict__[name], name
    assert first._skillstate_wire is not second._skillstate_wire
    assert first._skillstate_wire["content"] is not second._skillstate_wire["content"]


def test_a_model_with_a_default_made_per_instance_is_built_by_model_construct(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A changed SDK model (a ``default_factory``, a mutable default, extra fields kept)
    gets no template: one shared default would carry one response's content into the
    next."""
    from pydantic import ConfigDict, Field

    class Tagged(TextContent):
        tags: list[str] = Field(default_factory=list)

    class Noted(TextContent):
        notes: dict[str, Any] = {}  # noqa: RUF012 - the mutable default is the point

    class Open(TextContent):
        model_config = ConfigDict(extra="allow")

    for cls in (Tagged, Noted, Open):
        assert results.template_defaults(cls, ("type", "text")) is None, cls
    assert results.template_defaults(TextContent, ("type", "text")) is not None

    monkeypatch.setattr(results, "_TEXT_DEFAULTS", None)
    monkeypatch.setattr(results, "_RESULT_DEFAULTS", None)
    data = {"session_id": "s", "payload": {"a": [1, "x", None]}}
    built = results.ok_result(data)
    assert isinstance(built, results.EncodedToolResult)
    expected = results.EncodedToolResult.model_construct(
        content=[TextContent.model_construct(type="text", text=built.content[0].text)],
        structured_content=data,
    )
    assert built.model_dump(by_alias=True) == expected.model_dump(by_alias=True)
    assert built.__pydantic_private__ == {"_skillstate_wire": built._skillstate_wire}
