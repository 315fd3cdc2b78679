"""Shared test helpers (import with `from support import ...`)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
VENV_BIN = Path(sys.executable).parent

IN_CI = os.environ.get("CI", "").lower() == "true"


def require_service(available: bool, reason: str) -> None:
    """Skip when a service is missing — but fail under CI=true, where it must be there."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: services must be available)")
    pytest.skip(reason)


def clean_env(**extra: str) -> dict[str, str]:
    """The current environment without any SKILLSTATE_* variable, plus ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("SKILLSTATE_")}
    env.update(extra)
    return env
