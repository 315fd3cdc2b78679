"""Secrets out of everything the harness prints or writes.

An endpoint may repeat a request's ``Authorization`` header in its error body (``Invalid
token: Bearer sk-…``), and a model may echo what it was sent. :func:`redact_secrets`
replaces, in any text:

- the literal secrets it is given (the API key; 6 characters or more, so that a short
  test key cannot blank out ordinary words);
- ``Bearer …`` and ``Basic …`` credentials;
- tokens shaped like API keys: ``sk-…`` / ``sk_…`` (OpenAI, Anthropic and most
  compatible servers), ``hf_…`` (Hugging Face), ``gsk_…`` (Groq), ``xai-…`` (xAI) —
  8 or more key characters after the prefix, a digit among them (so that a branch
  called ``feature/hf_exporter`` is left alone).

Each becomes ``[REDACTED]``. The replacement holds no quote or backslash, so redacting
a JSON text leaves it valid JSON.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["REDACTED", "redact_secrets"]

REDACTED = "[REDACTED]"

_PATTERNS = re.compile(
    r"\b(?i:bearer|basic)[ \t]+[A-Za-z0-9._~+/=-]+"
    r"|(?<![A-Za-z0-9])(?:sk|hf|gsk|xai)[-_](?=[A-Za-z0-9_-]*[0-9])[A-Za-z0-9_-]{8,}"
)


def redact_secrets(text: str, secrets: Iterable[str | None] = ()) -> str:
    """``text`` with ``secrets`` and anything shaped like a credential replaced by ``[REDACTED]``."""
    text = _PATTERNS.sub(REDACTED, text)
    for secret in secrets:
        if secret and len(secret) >= 6:
            text = text.replace(secret, REDACTED)
    return text
