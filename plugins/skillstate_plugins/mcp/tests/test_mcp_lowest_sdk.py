"""The server behaves the same on the lowest ``mcp`` SDK the pin allows and on the newest.

A fresh virtual environment gets skillstate from this checkout with its ``mcp`` extra
and the lowest ``mcp`` and ``mcp-types`` releases the installed skillstate's
requirements allow (``mcp>=X``). The same client script — the real ``mcp`` client of
this environment, over stdio — runs against that ``skillstate mcp`` and against this
environment's (the newest SDK installed here): a seeded series of valid and malformed
tool calls, the resources, the prompts and their errors, on both stdio transports and
in both client modes; then raw lines the SDK cannot parse, on real pipes. Every answer
must be the same, timestamps aside.

Needs the checkout (it installs skillstate from it): skipped for a copy of this package
installed elsewhere. Slow: the environment is built with pip (a few minutes).
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import venv
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.shared.exceptions import MCPError
from skillstate_testing import clean_env

from .support import INITIALIZED, SKILLSTATE, TIMEOUT, raw_initialize, server_env
from .test_mcp_transport_differential import _answer, _calls

pytestmark = [pytest.mark.slow, pytest.mark.anyio]

CHECKOUT = Path(__file__).resolve().parents[4]

RAW_LINES = [
    raw_initialize(0),
    INITIALIZED,
    b'{"jsonrpc":"2.0","id":1,"method":"tools/call","params":["x"]}',
    b'{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"get_session",'
    b'"arguments":{"session_id":"\\ud800"}}}',
    b'[{"jsonrpc":"2.0","id":3,"method":"ping"}]',
    b"not json",
    b'{"jsonrpc":"2.0","id":4,"method":"ping"}',
]
"""An initialize, then lines the SDK cannot take (each answered), then a ping."""


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def lowest(distribution: str) -> str:
    """The lowest version of ``distribution`` skillstate's requirements allow (``>=X``)."""
    for requirement in importlib.metadata.requires("skillstate") or ():
        name = re.split(r"[<>=!~ ;\[]", requirement, maxsplit=1)[0]
        if name.lower() == distribution:
            found = re.search(r">=\s*([0-9][0-9a-z.]*)", requirement)
            assert found, f"{requirement}: no lower bound"
            return found.group(1)
    raise AssertionError(f"skillstate does not require {distribution}")


@pytest.fixture(scope="module")
def oldest(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """``skillstate`` of a fresh venv with the lowest mcp and mcp-types the pin allows."""
    if not (CHECKOUT / "pyproject.toml").is_file() or not (CHECKOUT / "skillstate").is_dir():
        pytest.skip("installs skillstate from its checkout; this copy is not in one")
    base = tmp_path_factory.mktemp("lowest-sdk")
    source = base / "skillstate"  # a copy: setuptools leaves build/ behind
    shutil.copytree(
        CHECKOUT,
        source,
        ignore=shutil.ignore_patterns(".git", ".venv", "build", "*.egg-info", "__pycache__"),
    )
    venv.EnvBuilder(with_pip=True).create(base / "venv")
    python = str(base / "venv" / "bin" / "python")
    pins = [f"mcp=={lowest('mcp')}", f"mcp-types=={lowest('mcp-types')}"]
    done = subprocess.run(
        [
            python,
            "-m",
            "pip",
            "install",
            "-q",
            "--disable-pip-version-check",
            f"{source}[mcp]",
            *pins,
        ],
        env=clean_env(),
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    probe = subprocess.run(
        [
            python,
            "-c",
            "import importlib.metadata as m; print(m.version('mcp'), m.version('mcp-types'))",
        ],
        capture_output=True,
        text=True,
    )

    def release(text: str) -> tuple[int, ...]:
        parts = [int(part) for part in text.split(".")]
        while parts and parts[-1] == 0:
            parts.pop()
        return tuple(parts)

    got = [release(v) for v in probe.stdout.split()]
    assert got == [release(pin.split("==")[1]) for pin in pins], probe.stdout
    yield str(base / "venv" / "bin" / "skillstate")


def _env(store: Path) -> dict[str, str]:
    """The server's environment: plugins from other distributions than skillstate blocked
    (the fresh venv has none; an environment's name would differ in the tool schemas)."""
    others = [
        ep.name
        for ep in importlib.metadata.entry_points(group="skillstate")
        if ep.dist is not None and ep.dist.name != "skillstate"
    ]
    blocked = [*os.environ.get("SKILLSTATE_DISABLE_PLUGINS", "").split(","), *others]
    return server_env(
        f"file:{store}", SKILLSTATE_DISABLE_PLUGINS=",".join(name for name in blocked if name)
    )


async def _script(skillstate: str, cwd: Path, transport: str, mode: str) -> list[Any]:
    """Every answer of one client session against ``skillstate mcp`` (its own store)."""
    store = cwd / f"store-{Path(skillstate).parent.parent.name}-{transport}-{mode}"
    params = StdioServerParameters(
        command=skillstate,
        args=["mcp", "--transport", transport],
        env=_env(store),
        cwd=str(cwd),
    )
    answers: list[Any] = []
    with open(cwd / "stderr.log", "a") as errlog:
        async with Client(
            stdio_client(params, errlog=errlog), mode=mode, read_timeout_seconds=TIMEOUT
        ) as client:
            tools = await client.list_tools()
            answers.append(
                sorted((t.name, json.dumps(t.input_schema, sort_keys=True)) for t in tools.tools)
            )
            for tool, args in _calls(seed=20261202, count=60):
                answers.append(_answer(await client.call_tool(tool, args)))
            for uri in ("skill-state://sessions", "skill-state://s1", "skill-state://nope"):
                try:
                    read = await client.read_resource(uri)
                    answers.append(sorted(json.loads(read.contents[0].text)))
                except MCPError as exc:
                    answers.append(["error", exc.error.code, exc.error.message])
            prompts = [
                ("skill_state_turn", {"session_id": "s1"}),
                ("skill_state_turn", {}),
                ("skill_state_turn", {"session_id": "s1", "x": "1"}),
                ("skill_state_paper_turn", {"session_id": "nope"}),
                ("no_such_prompt", {}),
            ]
            for name, arguments in prompts:
                try:
                    got = await client.get_prompt(name, arguments)
                    first = got.messages[0].content
                    answers.append(["prompt", len(got.messages), getattr(first, "text", "")])
                except MCPError as exc:
                    answers.append(["error", exc.error.code, exc.error.message])
    return answers


def _raw(skillstate: str, cwd: Path, transport: str) -> list[Any]:
    done = subprocess.run(
        [skillstate, "mcp", "--transport", transport],
        input=b"\n".join(RAW_LINES) + b"\n",
        capture_output=True,
        cwd=cwd,
        env=_env(cwd / "raw-store"),
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, done.stderr
    answers = [json.loads(line) for line in done.stdout.splitlines()]
    opening = answers[0]["result"]  # capabilities are the SDK's own: only the version
    return [opening["protocolVersion"], *answers[1:]]


@pytest.mark.parametrize("mode", ["legacy", "auto"])
@pytest.mark.parametrize("transport", ["fast", "sdk"])
async def test_the_lowest_sdk_answers_as_the_newest(
    oldest: str, tmp_path: Path, transport: str, mode: str
) -> None:
    newest = await _script(SKILLSTATE, tmp_path, transport, mode)
    lowest_sdk = await _script(oldest, tmp_path, transport, mode)
    assert len(newest) == len(lowest_sdk)
    for mine, theirs in zip(newest, lowest_sdk, strict=True):
        assert mine == theirs


@pytest.mark.parametrize("transport", ["fast", "sdk"])
def test_lines_the_sdk_cannot_parse_are_answered_alike(
    oldest: str, tmp_path: Path, transport: str
) -> None:
    newest = _raw(SKILLSTATE, tmp_path, transport)
    assert [answer.get("id") for answer in newest[1:]] == [1, 2, 3, None, 4]
    assert _raw(oldest, tmp_path, transport) == newest
