"""Helpers shared by the fixtures and the conformance suites: hosts, a sample skill, temporary stores."""

from __future__ import annotations

import contextlib
import functools
import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

__all__ = [
    "DEFAULT_POSTGRES_URL",
    "IN_CI",
    "PLUGIN_SELECTION",
    "POSTGRES_URL_VARIABLE",
    "STORE_KINDS",
    "clean_env",
    "make_host",
    "postgres_unavailable",
    "postgres_url",
    "require_postgres",
    "require_service",
    "run_command",
    "sample_skill",
    "snapshot_interval",
    "temporary_store_url",
]

IN_CI = os.environ.get("CI", "").lower() == "true"

PLUGIN_SELECTION = ("SKILLSTATE_DISABLE_PLUGINS", "SKILLSTATE_LOAD_PLUGINS")
"""Environment variables that say which installed plugins are active: unlike every other
``SKILLSTATE_*`` setting, :func:`make_host` and :func:`clean_env` keep them, so a suite run
with a bundled plugin blocked (``SKILLSTATE_DISABLE_PLUGINS=file-store``, to test a
replacement) runs every host and subprocess that way."""
"""Whether the tests run under ``CI=true``, where a missing service fails instead of skipping."""

STORE_KINDS = ("memory", "file", "sqlite", "postgresql")
"""The bundled store kinds :func:`temporary_store_url` (and the store fixtures) can make."""

POSTGRES_URL_VARIABLE = "SKILLSTATE_TEST_POSTGRES"
DEFAULT_POSTGRES_URL = "postgresql://postgres@127.0.0.1:5432/test"


def clean_env(**extra: str) -> dict[str, str]:
    """The current environment without any ``SKILLSTATE_*`` variable but the
    :data:`PLUGIN_SELECTION` ones, plus ``extra``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith("SKILLSTATE_") or k in PLUGIN_SELECTION
    }
    env.update(extra)
    return env


def require_service(available: bool, reason: str) -> None:
    """Skip the current test when a service or tool is missing — or fail it when ``CI=true``."""
    if available:
        return
    if IN_CI:
        pytest.fail(f"{reason} (CI=true: services must be available)")
    pytest.skip(reason)


def run_command(
    prog: str,
    *args: str,
    cwd: Path | str | None = None,
    stdin: str | None = None,
    timeout: float = 120,
    **env: str,
) -> subprocess.CompletedProcess[str]:
    """Run a console script of this environment (``skillstate``, ``rig-state``...) for real.

    The environment is :func:`clean_env` plus ``env``; stdin is ``stdin`` (empty when
    ``None``); output is captured as text.
    """
    return subprocess.run(
        [str(Path(sys.executable).parent / prog), *args],
        cwd=cwd,
        input=stdin if stdin is not None else "",
        capture_output=True,
        text=True,
        env=clean_env(**env),
        timeout=timeout,
        check=False,
    )


def make_host(store_url: str = "memory:", **config_overrides: Any) -> Any:
    """A host with the installed plugins and ``store_url`` as the configured store.

    No configuration file or ``SKILLSTATE_*`` variable applies, except the
    :data:`PLUGIN_SELECTION` ones.
    """
    from skillstate.plugin import Host
    from skillstate.plugin.cli import load_config

    env = {k: v for k, v in os.environ.items() if k in PLUGIN_SELECTION}
    config = load_config(env=env, overrides={"store": store_url, **config_overrides})
    return Host.from_config(config)


def sample_skill() -> Any:
    """A small skill with a 3-level field schema, phases and immutable keys (used by the suites)."""
    from skillstate.plugin import FieldSpec, SkillDefinition

    return SkillDefinition(
        name="sample",
        fields={
            "runId": FieldSpec("string"),
            "phase": FieldSpec("string"),
            "updatedAt": FieldSpec("string"),
            "counter": FieldSpec("number"),
            "notes": FieldSpec("string[]"),
            "info": FieldSpec(
                "object",
                of={
                    "title": FieldSpec("string"),
                    "detail": FieldSpec(
                        "object", of={"level": FieldSpec("number"), "tag": FieldSpec("string")}
                    ),
                },
            ),
            "items": FieldSpec(
                "object[]", of={"id": FieldSpec("string"), "done": FieldSpec("boolean")}
            ),
        },
        phases=("start", "middle", "done"),
        terminal_phases=("done",),
        immutable_keys=("runId",),
        run_id_key="runId",
        updated_key="updatedAt",
    )


def postgres_url() -> str:
    """The PostgreSQL server the fixtures use: ``$SKILLSTATE_TEST_POSTGRES`` or the local default."""
    return os.environ.get(POSTGRES_URL_VARIABLE) or DEFAULT_POSTGRES_URL


@functools.cache
def _unavailable(url: str) -> str | None:
    try:
        import psycopg
    except ImportError as exc:
        return f"psycopg is not installed ({exc}); pip install 'skillstate[postgres]'"
    try:
        with psycopg.connect(url, connect_timeout=3) as conn:
            conn.execute("SELECT 1")
    except psycopg.Error as exc:
        return (
            f"PostgreSQL is not reachable at {url}: {str(exc).strip()} "
            f"(set {POSTGRES_URL_VARIABLE} to another server)"
        )
    return None


def postgres_unavailable(url: str | None = None) -> str | None:
    """Why the PostgreSQL fixtures cannot run (``None`` when they can). Checked once per URL."""
    return _unavailable(url or postgres_url())


def require_postgres() -> None:
    """Skip the current test when PostgreSQL is missing — or fail it when ``CI=true``."""
    reason = postgres_unavailable()
    if reason is None:
        return
    if os.environ.get("CI", "").lower() == "true":
        pytest.fail(f"{reason} (CI=true: services must be available)")
    pytest.skip(reason)


@contextlib.contextmanager
def temporary_store_url(kind: str, directory: Path | str) -> Iterator[str]:
    """The URL of a fresh, empty store of a bundled ``kind`` (see :data:`STORE_KINDS`).

    ``memory`` is a uniquely named ``memory:`` space (so a second opener sees the same
    runs, as with every other store); ``file`` and ``sqlite`` live in ``directory``;
    ``postgresql`` is a new schema on :func:`postgres_url`, dropped on exit (the test is
    skipped when the server is missing, failed instead under ``CI=true``).
    """
    base = Path(directory)
    if kind == "memory":
        yield f"memory:test-{uuid.uuid4().hex}"
    elif kind == "file":
        yield f"file:{base.resolve() / 'state'}"
    elif kind == "sqlite":
        yield f"sqlite:///{base.resolve() / 'runs.db'}"  # four slashes: absolute
    elif kind in ("postgresql", "postgres"):
        require_postgres()
        import psycopg

        server = postgres_url()
        name = f"ss_test_{uuid.uuid4().hex[:12]}"
        joiner = "&" if "?" in server else "?"
        yield f"{server}{joiner}schema={name}&application_name={name}"
        with psycopg.connect(server, autocommit=True) as conn:
            conn.execute(
                "SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                "WHERE application_name = %s",
                (name,),
            )
            conn.execute(f'DROP SCHEMA IF EXISTS "{name}" CASCADE')
    else:
        raise ValueError(f"unknown store kind {kind!r}; known: {', '.join(STORE_KINDS)}")


@contextlib.contextmanager
def snapshot_interval(every: int, *stores: Any) -> Iterator[None]:
    """Within the block, each of ``stores`` (store objects, or a store class of your own)
    keeps a snapshot every ``every`` versions instead of every 1000th
    (``Store.snapshot_interval``): snapshots in a test of a few versions."""
    before = [(target, target.__dict__.get("snapshot_interval")) for target in stores]
    for target in stores:
        target.snapshot_interval = every
    try:
        yield
    finally:
        for target, value in before:
            if value is None:
                del target.snapshot_interval
            else:
                target.snapshot_interval = value
