"""A real HTTP server on 127.0.0.1 that plays an OpenAI-compatible model (no network, no mocks).

By default it answers like ``model.oracle`` (a benchmark's scripted policy) reading only
the A.4 prompt text, or "Action: Wait" when it has none.
``model.script`` queues scripted answers (:class:`Answer`: a status, a reply text, a
raw body, headers, a truncated body, an error body repeating the request's
``Authorization`` header, a delay of its own); ``model.then`` is what it answers once
the script is used up (default: the oracle). ``model.delay`` slows every answer down
(so that tests can see parallel requests, or interrupt a run); ``model.times`` is
when each request arrived (``time.monotonic()``).
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import attrs

from .. import TurnView


def oracle_from_prompt(oracle: Any, prompt: str) -> str:
    """A 'model' that reads only the A.4 prompt text: Σ from the fence, O after the label."""
    state_json = re.search(r"Skill Execution State:\n```json\n(.*)\n```\n", prompt)
    assert state_json, prompt
    observation = prompt.split("Latest Observation: ", 1)[1].split("\n\nProvide your response", 1)[
        0
    ]
    view = TurnView("skill-state", prompt, observation, json.loads(state_json.group(1)))
    return str(oracle.respond(view).text)


@attrs.frozen
class Answer:
    status: int = 200
    content: str | None = None  # None: the default reply (the oracle's)
    body: bytes | None = None  # raw body instead of a chat completion
    headers: dict[str, str] = attrs.Factory(dict)
    truncate: bool = False  # promise more bytes than are sent, then close
    echo_auth: bool = False  # an error body repeating the Authorization header, as some servers do
    delay: float = 0.0  # seconds before this answer (after model.delay)


class FakeModel:
    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        self.times: list[float] = []
        self.script: list[Answer] = []
        self.then: Answer = Answer()
        self.delay = 0.0
        self.oracle: Any = None  # a scripted policy: what the model answers by default
        self.lock = threading.Lock()
        self.inflight = self.max_inflight = 0

    def next(self) -> Answer:
        with self.lock:
            return self.script.pop(0) if self.script else self.then

    def default(self, prompt: str) -> str:
        return "Action: Wait" if self.oracle is None else oracle_from_prompt(self.oracle, prompt)

    def body(self, answer: Answer, request: dict[str, Any], auth: str) -> bytes:
        if answer.body is not None:
            return answer.body
        if answer.echo_auth:
            return json.dumps({"error": {"message": f"Invalid token: {auth}"}}).encode()
        if answer.status != 200:
            return json.dumps({"error": {"message": "scripted failure"}}).encode()
        prompt = request["messages"][0]["content"]
        if prompt.startswith("You keep the running summary"):
            text = f"summary after {prompt.count('Observation:')} folded turn(s)"
        else:
            text = answer.content if answer.content is not None else self.default(prompt)
        return json.dumps(
            {
                "choices": [{"message": {"role": "assistant", "content": text}}],
                "usage": {"prompt_tokens": len(prompt) // 3, "completion_tokens": len(text) // 3},
            }
        ).encode()


@contextmanager
def serve() -> Iterator[tuple[FakeModel, str]]:
    model = FakeModel()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            length = int(self.headers["Content-Length"])
            request = json.loads(self.rfile.read(length))
            with model.lock:
                model.times.append(time.monotonic())
                model.requests.append({"path": self.path, **request})
                model.headers.append(dict(self.headers))
                model.inflight += 1
                model.max_inflight = max(model.max_inflight, model.inflight)
            try:
                time.sleep(model.delay)
                answer = model.next()
                time.sleep(answer.delay)
                data = model.body(answer, request, self.headers.get("Authorization", ""))
                self.send_response(answer.status)
                self.send_header(
                    "Content-Type", answer.headers.get("Content-Type", "application/json")
                )
                for key, value in answer.headers.items():
                    if key != "Content-Type":
                        self.send_header(key, value)
                self.send_header("Content-Length", str(len(data) + (500 if answer.truncate else 0)))
                self.end_headers()
                self.wfile.write(data)
                if answer.truncate:
                    self.close_connection = True
            finally:
                with model.lock:
                    model.inflight -= 1

        def log_message(self, *args: Any) -> None:
            pass

    class Server(ThreadingHTTPServer):
        def handle_error(self, request: Any, client_address: Any) -> None:
            pass  # a client that gave up on a slow answer closed its end: nothing to report

    server = Server(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield model, f"http://127.0.0.1:{server.server_address[1]}/v1"
    finally:
        server.shutdown()
        server.server_close()
