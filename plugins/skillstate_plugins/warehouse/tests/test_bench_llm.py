"""The LLM policy against a real HTTP server on 127.0.0.1 that plays a model (no network)."""

from __future__ import annotations

import json
import re
import threading
import uuid
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from skillstate.plugin.runtime import Runtime

from ..bench.llm import ChatCompletionsPolicy
from ..bench.policies import OraclePolicy, PolicyError, TurnView
from ..bench.runner import EpisodeConfig, run_episode


def _oracle_from_prompt(prompt: str) -> str:
    """A 'model' that reads only the A.4 prompt text: Σ from the fence, O after the label."""
    state_json = re.search(r"Skill Execution State:\n```json\n(.*)\n```\n", prompt)
    assert state_json, prompt
    observation = prompt.split("Latest Observation: ", 1)[1].split("\n\nProvide your response", 1)[
        0
    ]
    view = TurnView("skill-state", prompt, observation, json.loads(state_json.group(1)))
    return OraclePolicy().respond(view).text


class FakeModel:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.script: list[tuple[int, str | None]] = []  # (status, content or None = oracle)

    def answer(self, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        status, content = self.script.pop(0) if self.script else (200, None)
        if status != 200:
            return status, {"error": {"message": "scripted failure"}}
        prompt = body["messages"][0]["content"]
        text = content if content is not None else _oracle_from_prompt(prompt)
        return 200, {
            "choices": [{"message": {"role": "assistant", "content": text}}],
            "usage": {"prompt_tokens": len(prompt) // 3, "completion_tokens": len(text) // 3},
        }


@pytest.fixture
def fake() -> Iterator[tuple[FakeModel, str]]:
    model = FakeModel()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            body = json.loads(self.rfile.read(length))
            model.requests.append({"path": self.path, **body})
            model.headers.append(dict(self.headers))
            status, payload = model.answer(body)
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield model, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    with Runtime(f"memory:llm-{uuid.uuid4().hex}") as rt:
        yield rt


def _policy(url: str, **extra: Any) -> ChatCompletionsPolicy:
    return ChatCompletionsPolicy(
        model="fake-1", base_url=url, api_key="test-key", backoff=0.01, **extra
    )


def test_an_episode_through_the_endpoint_scores_one(
    fake: tuple[FakeModel, str], runtime: Runtime
) -> None:
    model, url = fake
    result = run_episode(EpisodeConfig(horizon=8, noise=5), _policy(url), runtime)
    assert result.score == 1.0 and result.calls == 8 and len(model.requests) == 8
    first = model.requests[0]
    assert first["path"] == "/v1/chat/completions"
    assert first["model"] == "fake-1" and first["temperature"] == 0.0 and first["top_p"] == 1.0
    assert model.headers[0]["Authorization"] == "Bearer test-key"
    assert first["messages"][0]["content"].startswith("Instructions:\nYou are the inventory")
    data = result.to_dict()
    assert data["usage_prompt_tokens"] == sum(
        len(r["messages"][0]["content"]) // 3 for r in model.requests
    )
    assert data["policy"] == "llm:fake-1"


def test_a_rejected_patch_is_retried_with_the_error_in_the_next_prompt(
    fake: tuple[FakeModel, str], runtime: Runtime
) -> None:
    model, url = fake
    model.script = [
        (
            200,
            'I will store it.\n```json\n{"state_patch": {"inventory": 5}, "action": "Wait"}\n```',
        ),
        (200, "Action: Store item_0 shelf_0"),
    ]
    result = run_episode(EpisodeConfig(horizon=5, retries=2), _policy(url), runtime)
    assert result.rejections == {"schema_violation": 1, "no_json_block": 1}
    assert result.score == 1.0 and len(model.requests) == 7
    second = model.requests[1]["messages"][0]["content"]
    assert "Latest Observation: [STATE SCHEMA VIOLATION]" in second
    assert "Shipment arrived containing item_0." in second
    third = model.requests[2]["messages"][0]["content"]
    assert "[TURN REJECTED: no_json_block]" in third


def test_server_errors_are_retried_and_client_errors_are_not(fake: tuple[FakeModel, str]) -> None:
    model, url = fake
    view = TurnView("react", "prompt", "obs", None)
    model.script = [(500, None), (429, None), (200, "Action: Wait")]
    assert _policy(url).respond(view).text == "Action: Wait"
    assert len(model.requests) == 3
    model.script = [(401, None), (200, "Action: Wait")]
    with pytest.raises(PolicyError, match="HTTP 401"):
        _policy(url).respond(view)
    assert len(model.requests) == 4  # not retried
    model.script = [(503, None)] * 3
    with pytest.raises(PolicyError, match="HTTP 503"):
        _policy(url, http_retries=2).respond(view)


def test_an_unreachable_endpoint_is_a_policy_error_the_runner_records(runtime: Runtime) -> None:
    policy = ChatCompletionsPolicy(
        model="m", base_url="http://127.0.0.1:9/v1", http_retries=0, timeout=2
    )
    result = run_episode(EpisodeConfig(horizon=3, retries=0), policy, runtime)
    assert result.rejections == {"policy_error": 3} and result.score == 0.0


def test_configuration_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLSTATE_LLM_MODEL", "m1")
    monkeypatch.setenv("SKILLSTATE_LLM_BASE_URL", "http://127.0.0.1:1234/v1/")
    monkeypatch.setenv("SKILLSTATE_LLM_API_KEY", "k")
    policy = ChatCompletionsPolicy.from_environment()
    assert policy.url == "http://127.0.0.1:1234/v1/chat/completions" and policy.model == "m1"
    assert ChatCompletionsPolicy.from_environment(model="m2").model == "m2"
    monkeypatch.delenv("SKILLSTATE_LLM_MODEL")
    with pytest.raises(ValueError, match="set SKILLSTATE_LLM_MODEL"):
        ChatCompletionsPolicy.from_environment()
    with pytest.raises(ValueError, match="must be an http"):
        ChatCompletionsPolicy(model="m", base_url="ftp://x")
