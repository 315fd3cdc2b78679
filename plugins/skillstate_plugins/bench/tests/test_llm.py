"""The LLM adapter against a real HTTP server on 127.0.0.1 that plays a model (``fakellm``).

Endpoint failures (HTTP errors, HTML pages, replies without choices, refused
connections, truncated bodies) are retried where that can help — after the server's
``Retry-After`` — and then raise ``EndpointError``: never scored as the model's
failure, never fed into its next prompt. Model failures are counted by kind.
"""

from __future__ import annotations

import re
import shutil
import ssl
import subprocess
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import pytest
from skillstate_testing import make_host, require_service

from skillstate.plugin.runtime import Runtime

from .. import BenchmarkSpec, EpisodeConfig, TurnView, run_episode
from ..llm import ChatCompletionsPolicy, public_endpoint
from ..policies import EndpointError, Interrupted
from ..spec import benchmarks
from .fakellm import Answer, FakeModel, serve


@pytest.fixture(scope="module")
def warehouse() -> BenchmarkSpec:
    """The installed warehouse benchmark, found as ``skillstate bench warehouse`` finds it."""
    host = make_host()
    found = benchmarks(host).get("warehouse")
    host.close()
    assert found is not None
    return found


@pytest.fixture
def fake(warehouse: BenchmarkSpec) -> Iterator[tuple[FakeModel, str]]:
    with serve() as found:
        found[0].oracle = warehouse.policies["oracle"]()  # the model answers as the oracle would
        yield found


@pytest.fixture
def runtime() -> Iterator[Runtime]:
    with Runtime(f"memory:llm-{uuid.uuid4().hex}") as rt:
        yield rt


def _policy(url: str, **extra: Any) -> ChatCompletionsPolicy:
    return ChatCompletionsPolicy(
        model="fake-1", base_url=url, api_key="test-key", backoff=0.01, **extra
    )


def _run(spec: BenchmarkSpec, runtime: Runtime, policy: Any, **config: Any) -> Any:
    return run_episode(spec, EpisodeConfig(**config), policy, runtime)


VIEW = TurnView("react", "prompt", "obs", None)


def test_an_episode_through_the_endpoint_scores_one(
    fake: tuple[FakeModel, str], runtime: Runtime, warehouse: BenchmarkSpec
) -> None:
    model, url = fake
    result = _run(
        warehouse, runtime, _policy(url, max_tokens=300, temperature=0.2), horizon=8, noise=5
    )
    assert result.score == 1.0 and result.calls == 8 and len(model.requests) == 8
    first = model.requests[0]
    assert first["path"] == "/v1/chat/completions"
    assert first["model"] == "fake-1" and first["temperature"] == 0.2 and first["top_p"] == 1.0
    assert first["max_tokens"] == 300
    assert model.headers[0]["Authorization"] == "Bearer test-key"
    assert first["messages"][0]["content"].startswith("Instructions:\nYou are the inventory")
    data = result.to_dict()
    assert data["usage_prompt_tokens"] == sum(
        len(r["messages"][0]["content"]) // 3 for r in model.requests
    )
    assert data["policy"] == "llm:fake-1"


def test_a_rejected_patch_is_retried_with_the_error_in_the_next_prompt(
    fake: tuple[FakeModel, str], runtime: Runtime, warehouse: BenchmarkSpec
) -> None:
    model, url = fake
    model.script = [
        Answer(
            content='I will.\n```json\n{"state_patch": {"inventory": 5}, "action": "Wait"}\n```'
        ),
        Answer(content="Action: Store item_0 shelf_0"),
    ]
    result = _run(warehouse, runtime, _policy(url), horizon=5, retries=2)
    assert result.rejections == {"schema_violation": 1, "no_json_block": 1}
    assert result.kinds() == {"json_syntax": 1, "schema_type": 1}
    assert result.score == 1.0 and len(model.requests) == 7
    second = model.requests[1]["messages"][0]["content"]
    assert "Latest Observation: [STATE SCHEMA VIOLATION]" in second
    assert "Shipment arrived containing item_0." in second
    third = model.requests[2]["messages"][0]["content"]
    assert "[TURN REJECTED: no_json_block]" in third


def test_failures_are_counted_by_kind_and_repairs_are_counted_not_hidden(
    fake: tuple[FakeModel, str], runtime: Runtime, warehouse: BenchmarkSpec
) -> None:
    model, url = fake
    comma = '```json\n{"state_patch": {"inventory": {"shelf_0": "item_0",}}, "action": "Store item_0 shelf_0",}\n```'
    wrong_type = '```json\n{"state_patch": {"inventory": {"shelf_0": 7}}, "action": "Store item_0 shelf_0"}\n```'
    model.script = [Answer(content=comma), Answer(content=wrong_type)]
    repaired = _run(warehouse, runtime, _policy(url), horizon=4)
    assert repaired.repairs == {"removed 2 trailing commas": 1}
    assert repaired.rejections == {"schema_violation": 1} and repaired.score == 1.0
    model.script = [Answer(content=comma), Answer(content=wrong_type)]
    strict = _run(warehouse, runtime, _policy(url), horizon=4, strict_parse=True)
    assert strict.rejections == {"json_parse_error": 1, "schema_violation": 1}
    assert strict.kinds() == {"json_syntax": 1, "schema_type": 1} and strict.repairs == {}
    overwrite = '```json\n{"state_patch": {"inventory": null}, "action": "Wait"}\n```'
    model.script = [Answer(), Answer(content=overwrite)]  # Σ holds item_0 when it is dropped
    dropped = _run(warehouse, runtime, _policy(url), horizon=4)
    assert dropped.rejections == {"premature_overwrite": 1} and dropped.score == 1.0
    assert dropped.kinds() == {"premature_overwrite": 1}


def test_server_errors_are_retried_after_retry_after_and_client_errors_are_not(
    fake: tuple[FakeModel, str],
) -> None:
    model, url = fake
    model.script = [
        Answer(500),
        Answer(429, headers={"Retry-After": "1"}),
        Answer(content="Action: Wait"),
    ]
    assert _policy(url).respond(VIEW).text == "Action: Wait"
    assert len(model.requests) == 3
    waited = model.times[2] - model.times[1]
    assert 1.0 <= waited < 1.5, waited  # the server asked for one second: that, not much more
    model.script = [Answer(401), Answer(content="Action: Wait")]
    with pytest.raises(EndpointError, match=r"answered HTTP 401: \{.*scripted failure.*\}$"):
        _policy(url).respond(VIEW)  # one try: no "after N tries"
    assert len(model.requests) == 4  # not retried
    model.script = [Answer(503)] * 3
    with pytest.raises(EndpointError, match=r"answered HTTP 503: .*\} after 3 tries$"):
        _policy(url, http_retries=2).respond(VIEW)
    model.script = [Answer(429, headers={"Retry-After": "3600"})]
    with pytest.raises(EndpointError, match=r"asks to retry after 3600 s\)$"):
        _policy(url).respond(VIEW)


def test_the_api_key_is_never_in_an_endpoint_error(fake: tuple[FakeModel, str]) -> None:
    model, url = fake
    model.script = [Answer(401, echo_auth=True)]
    policy = ChatCompletionsPolicy(model="m", base_url=url, api_key="sk-SECRET123")
    with pytest.raises(EndpointError) as raised:
        policy.respond(VIEW)
    assert model.headers[-1]["Authorization"] == "Bearer sk-SECRET123"  # the server repeated it
    message = str(raised.value)
    assert "SECRET123" not in message and "Invalid token: [REDACTED]" in message, message
    # a key of no known shape, repeated without "Bearer": the literal key is removed too
    body = b'{"error": "key opaque-key-4242 is not valid"}'
    model.script = [Answer(403, body=body)]
    policy = ChatCompletionsPolicy(model="m", base_url=url, api_key="opaque-key-4242")
    with pytest.raises(EndpointError, match=r"key \[REDACTED\] is not valid") as raised:
        policy.respond(VIEW)
    assert "opaque-key-4242" not in str(raised.value)


def test_what_no_retry_can_mend_is_not_retried(tmp_path: Path) -> None:
    policy = _policy("http://skillstate-test.invalid/v1", http_retries=3)
    with pytest.raises(EndpointError) as raised:
        policy.respond(VIEW)
    assert re.fullmatch(
        r"the model endpoint http://skillstate-test\.invalid/v1/chat/completions could not be "
        r"reached: its host name does not resolve \(.*\)",
        str(raised.value),
    ), raised.value  # one try, no "after 4 tries"
    require_service(shutil.which("openssl") is not None, "openssl is needed for a TLS server")
    with _https_server(tmp_path) as https_url:
        with pytest.raises(EndpointError) as raised:
            _policy(https_url, http_retries=3).respond(VIEW)
    assert re.search(
        r"its TLS certificate was refused \(self.signed certificate\)$", str(raised.value)
    ), raised.value
    for bad, said in (
        ("https://user:pw-secret@h.example/v1", "must not contain credentials"),
        ("https://h.example/v1?api_key=k-secret", "must not contain a query"),
        ("https://h.example:99999/v1", "has an invalid port"),
        ("https://h.example/v 1", "must not contain spaces"),
    ):
        with pytest.raises(ValueError, match=said) as refused:
            _policy(bad)
        assert "secret" not in str(refused.value)
        assert "credentials" not in said or "SKILLSTATE_LLM_API_KEY" in str(refused.value)


@contextmanager
def _https_server(tmp_path: Path) -> Iterator[str]:
    """An HTTPS server on 127.0.0.1 with a self-signed certificate (which a client refuses)."""
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
         "-subj", "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )  # fmt: skip
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(cert, key)
    server = HTTPServer(("127.0.0.1", 0), BaseHTTPRequestHandler)
    server.socket = context.wrap_socket(server.socket, server_side=True)
    server.handle_error = lambda *args: None  # type: ignore[method-assign]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()


def test_a_wait_between_retries_ends_when_the_sweep_stops(fake: tuple[FakeModel, str]) -> None:
    model, url = fake
    model.script = [Answer(503, headers={"Retry-After": "30"})]
    stop = threading.Event()
    policy = _policy(url)
    policy.stop_on(stop)
    threading.Timer(0.3, stop.set).start()
    started = time.monotonic()
    with pytest.raises(Interrupted):
        policy.respond(VIEW)
    assert time.monotonic() - started < 2.0  # not the 30 s the server asked for
    assert len(model.requests) == 1
    with pytest.raises(Interrupted):  # once stopped, no call is made at all
        policy.respond(VIEW)
    assert len(model.requests) == 1


def test_what_cannot_be_a_model_answer_is_an_endpoint_error(fake: tuple[FakeModel, str]) -> None:
    model, url = fake
    html = b"<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head></html>"
    model.script = [Answer(body=html, headers={"Content-Type": "text/html"})]
    with pytest.raises(EndpointError, match=r"answered an HTML page \(502 Bad Gateway\), not JSON"):
        _policy(url).respond(VIEW)
    model.script = [Answer(body=b'{"id": "x", "object": "chat.completion"}')]
    with pytest.raises(EndpointError, match=r"answered without choices\[0\]\.message"):
        _policy(url).respond(VIEW)
    model.script = [Answer(content="x", truncate=True)] * 2 + [Answer(content="Action: Wait")]
    assert _policy(url).respond(VIEW).text == "Action: Wait"  # a cut-off body is retried
    model.script = [Answer(content="x", truncate=True)] * 2
    with pytest.raises(EndpointError, match=r"could not be read \(IncompleteRead"):
        _policy(url, http_retries=1).respond(VIEW)
    model.script = [Answer(body=b'{"choices": [{"message": {"content": null}}]}')]
    assert _policy(url).respond(VIEW).text == ""  # no text: the model's failure, not the endpoint's


def test_an_unreachable_endpoint_stops_the_episode_instead_of_scoring_it(
    runtime: Runtime, warehouse: BenchmarkSpec
) -> None:
    policy = ChatCompletionsPolicy(
        model="m", base_url="http://127.0.0.1:9/v1", http_retries=0, timeout=2
    )
    with pytest.raises(EndpointError) as raised:
        _run(warehouse, runtime, policy, horizon=3, retries=0)
    assert str(raised.value).startswith(
        "the model endpoint http://127.0.0.1:9/v1/chat/completions could not be read"
    )
    assert public_endpoint("https://u:secret@h.example:8443/v1/chat?key=abc#x") == (
        "https://h.example:8443/v1/chat"
    )


def test_configuration_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("SKILLSTATE_LLM_MODEL", "m1")
    monkeypatch.setenv("SKILLSTATE_LLM_BASE_URL", "http://127.0.0.1:1234/v1/")
    monkeypatch.setenv("SKILLSTATE_LLM_API_KEY", "k")
    policy = ChatCompletionsPolicy.from_environment()
    assert policy.url == "http://127.0.0.1:1234/v1/chat/completions" and policy.model == "m1"
    assert ChatCompletionsPolicy.from_environment(model="m2").model == "m2"
    assert "k" not in str(policy.settings().values())
    monkeypatch.delenv("SKILLSTATE_LLM_MODEL")
    with pytest.raises(ValueError, match="set SKILLSTATE_LLM_MODEL"):
        ChatCompletionsPolicy.from_environment()
    with pytest.raises(ValueError, match="must be an http"):
        ChatCompletionsPolicy(model="m", base_url="ftp://x")
