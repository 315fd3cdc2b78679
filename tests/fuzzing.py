"""The fuzz harness's hostile inputs and invariants (import with ``from fuzzing import ...``).

Every fuzz test (``tests/*/test_fuzz_*.py``, marked ``fuzz``) feeds these to one surface
— the Python API, the runtime, the skill store, the CLI in process and as a real
subprocess — and asserts the same three things: no exception but skillstate's own
(and no ``Traceback`` from a command line), an exit code that is documented, and a
store whose bytes hashed before and after a rejection are the same.

The number of examples per test is ``SKILLSTATE_FUZZ_EXAMPLES`` (default
:data:`DEFAULT_EXAMPLES`, a few seconds each in CI). The long run of at least 100,000
inputs (``docs/reliability.md``)::

    SKILLSTATE_FUZZ_EXAMPLES=10000 .venv/bin/python -m pytest -m fuzz \\
        --hypothesis-show-statistics -q -p no:cacheprovider tests plugins
"""

from __future__ import annotations

import hashlib
import json
import os
import string
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, settings, strategies as st

__all__ = [
    "DEFAULT_EXAMPLES",
    "FUZZ",
    "hostile_documents",
    "hostile_json_texts",
    "hostile_text",
    "hostile_values",
    "run_ids",
    "tree_hash",
]

DEFAULT_EXAMPLES = 60

_EXAMPLES = int(os.environ.get("SKILLSTATE_FUZZ_EXAMPLES", DEFAULT_EXAMPLES))

FUZZ = settings(
    max_examples=_EXAMPLES,
    deadline=None,
    derandomize=_EXAMPLES <= DEFAULT_EXAMPLES,  # CI: the same inputs every run
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    database=None,
)
"""The settings every fuzz test uses."""

SURROGATES = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF, categories=["Cs"])
"""Lone surrogates: what ``"\\ud800"`` in JSON or a non-UTF-8 byte in argv becomes."""

_ODD_CHARS = st.sampled_from("\x00\x07\x1b\n\r\t\u2028\ufeff\u202e😀é→\\\"'/.:[]{}$%")

hostile_text = st.one_of(
    st.text(max_size=30),  # any code point but surrogates
    st.text(_ODD_CHARS, max_size=12),  # control characters, quotes, emoji, bidi, BOM
    st.builds(lambda a, s, b: a + s + b, st.text(max_size=6), SURROGATES, st.text(max_size=6)),
    st.sampled_from(["", " ", "..", "../x", "a/b", "null", "-", "--json", "\\u0000"]),
    st.builds(
        lambda c, n: c * n, st.sampled_from("kv😀\x00"), st.sampled_from([501, 9000, 70_000])
    ),
)
"""Strings a caller might send: control characters, lone surrogates (one in five), path
tricks, long runs."""


def _deep(leaf: Any, depth: int) -> Any:
    value = leaf
    for i in range(depth):
        value = [value] if i % 2 else {"d": value}
    return value


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    hostile_text,
)

hostile_values = st.recursive(
    _SCALARS,
    lambda children: st.one_of(
        st.lists(children, max_size=6),
        st.dictionaries(hostile_text, children, max_size=6),
    ),
    max_leaves=20,
)
"""Python values, JSON or not quite: NaN, huge integers, surrogates in keys and strings."""

hostile_documents = st.one_of(
    st.dictionaries(
        st.one_of(
            st.sampled_from(
                ["phase", "nextAction", "runId", "skill", "tests", "decisions", "counter", "notes"]
            ),
            hostile_text,
        ),
        hostile_values,
        max_size=6,
    ),
    hostile_values,
    st.builds(_deep, hostile_values, st.integers(min_value=90, max_value=140)),
    st.builds(lambda n: {"nextAction": "x" * n}, st.sampled_from([500, 501, 1_000_001])),
)
"""Patches and seeds: mostly objects, some not, some deep, some huge."""


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        return "{}"


hostile_json_texts = st.one_of(
    st.builds(_dumps, hostile_documents),
    st.sampled_from(
        [
            "",
            "nope",
            "null",
            "[]",
            '"x"',
            "NaN",
            '{"a": Infinity}',
            '{"a":1,"a":{"b":2}}',  # duplicate keys: the last wins, as in JavaScript
            '{"nextAction":"\\ud800"}',
            '{"\\udfff":1}',
            '{"nextAction":"\\ud83d\\ude00"}',
            "[" * 5000 + "]" * 5000,
            '{"phase":"done"}',
            '{"tests":{"status":"green"},"phase":"pr-open"}',
            "\ufeff{}",
        ]
    ),
    hostile_text,
)
"""JSON texts as a command line or a client sends them: broken, duplicated, nested."""

run_ids = st.one_of(
    st.sampled_from(["t1", "t2", "t-3.x", "a" * 80, "a" * 81, "../t1", "t1/..", ""]),
    st.text(string.ascii_letters + string.digits + "._-/\\\x00", max_size=12),
    hostile_text,
)
"""Run (and session) ids, valid and not."""


def tree_hash(root: Path) -> str:
    """One digest of every file under ``root`` (path and bytes): what a rejection must not change."""
    digest = hashlib.sha256()
    if not root.exists():
        return digest.hexdigest()
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


# --- raw JSON-RPC lines for the MCP server (tests/mcp/test_fuzz_mcp.py) ---------------

MCP_METHODS = st.one_of(
    st.sampled_from(
        [
            "tools/call",
            "tools/list",
            "prompts/get",
            "prompts/list",
            "resources/read",
            "resources/list",
            "resources/templates/list",
            "ping",
            "initialize",
            "logging/setLevel",
        ]
    ),
    hostile_text,
)
"""What a request asks for: the server's methods, and anything else."""

MCP_NAMES = st.one_of(
    st.sampled_from(
        [
            "get_session",
            "list_sessions",
            "initialize_skill",
            "execute_step",
            "inject_observation",
            "parse_turn_response",
            "session_history",
            "fork_session",
            "close_session",
            "skill_state_turn",
            "skill_state_paper_turn",
        ]
    ),
    hostile_text,
)

MCP_PARAMS = st.one_of(
    st.fixed_dictionaries(
        {"name": MCP_NAMES},
        optional={
            "arguments": st.one_of(
                st.dictionaries(
                    st.one_of(
                        st.sampled_from(["session_id", "response_text", "state_update", "action"]),
                        hostile_text,
                    ),
                    st.one_of(st.just("s1"), hostile_values, hostile_documents),
                    max_size=5,
                ),
                hostile_values,
            ),
            "uri": st.one_of(st.just("skill-state://s1"), hostile_text),
        },
    ),
    hostile_values,
    st.lists(hostile_values, max_size=3),
)
"""A request's ``params``: mostly well-shaped, some arrays, strings, surrogates, deep values."""

HOSTILE_IDS = st.one_of(
    st.none(),
    st.booleans(),
    # integral floats (1e2) are the integers they equal, answered as such: not hostile
    st.floats(allow_nan=False, allow_infinity=False).filter(lambda f: not f.is_integer()),
    st.integers(min_value=2**63, max_value=2**80),
    hostile_text,
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)
"""Ids a request should not have: null, booleans, floats, huge integers, odd strings, objects."""
