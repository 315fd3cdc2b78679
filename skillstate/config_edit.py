"""``skillstate config set``: one key written into ``skillstate.toml``, every other kept.

A value given on the command line is parsed by its key's kind
(:mod:`skillstate.config_keys`); the file is edited with tomlkit, so its comments, key
order and formatting stay as they were, and the new text is checked as
:func:`skillstate.config.load_config` would read it before it replaces the old file.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import Any

from skillstate.config import CONFIG_FILE
from skillstate.config_keys import (
    BUDGET_KEYS,
    KEYS,
    ConfigKey,
    check_duration,
    check_file_value,
    check_level,
    int_rule,
    usage_error,
)
from skillstate.display import excerpt
from skillstate.errors import ConfigError

__all__ = ["set_config_value"]


def _parse_cli_value(key: ConfigKey, sub: str | None, raw: str) -> Any:
    if key.kind == "budget":
        if sub not in BUDGET_KEYS:
            raise usage_error(f"set budget.<name> where name is one of {', '.join(BUDGET_KEYS)}")
        try:
            number = int(raw)
        except ValueError:
            raise usage_error(
                f"budget.{sub} must be a positive integer, got {excerpt(repr(raw))}"
            ) from None
        if number < 1:
            raise usage_error(f"budget.{sub} must be a positive integer, got {excerpt(repr(raw))}")
        return number
    if sub is not None:
        raise usage_error(f"key '{key.name}' has no sub-keys")
    if key.kind == "list":
        return [part.strip() for part in raw.split(",") if part.strip()]
    if key.kind == "bool":
        lowered = raw.strip().lower()
        if lowered not in ("true", "false", "1", "0"):
            raise usage_error(f"{key.name} must be true or false, got {excerpt(repr(raw))}")
        return lowered in ("true", "1")
    if key.kind == "int":
        if not raw.strip().isdigit():
            raise ConfigError(f"{key.name} must be {int_rule(key)}, got {raw!r}")
        return int(raw.strip())
    if key.kind == "duration":
        return check_duration(key, raw, "skillstate config set")
    if key.kind == "durability":
        return check_level(raw, "skillstate config set")
    return raw


def set_config_value(root: Path | str, dotted_key: str, raw: str, file: Path | None = None) -> Path:
    """Write ``key = value`` into ``skillstate.toml`` at ``root`` (or into ``file``, the
    user's: created mode 0600 in a 0700 directory), keeping every other key.

    The file is edited in place with tomlkit, so its comments, key order and formatting
    stay as they were; the new file is checked as :func:`load_config` would read it
    before it replaces the old one (atomically).
    """
    import tomllib

    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    name, _, sub = dotted_key.partition(".")
    key = KEYS.get(name)
    if key is None:
        raise usage_error(
            f"unknown configuration key '{excerpt(dotted_key)}'. Known keys: {', '.join(sorted(KEYS))}"
        )
    value = _parse_cli_value(key, sub or None, raw)
    path = file or Path(root) / CONFIG_FILE
    label = str(file) if file else CONFIG_FILE
    try:
        text = path.read_text(encoding="utf-8") if path.is_file() else ""
        document = tomlkit.parse(text)
    except OSError as exc:
        raise ConfigError(f"{label}: cannot be read: {exc.strerror}") from None
    except (TOMLKitError, ValueError) as exc:
        raise ConfigError(f"{label}: not valid TOML: {excerpt(str(exc))}") from None
    if key.kind == "budget":
        table = document.get("budget")
        if not isinstance(table, dict):
            table = tomlkit.table()
            document["budget"] = table
        table[str(sub)] = value
    else:
        document[name] = value
    text = tomlkit.dumps(document)
    data = tomllib.loads(text)  # what load_config will read: check it all before writing
    for where_name, table_value in data.items():
        check_key = KEYS.get(where_name)
        if check_key is not None:
            check_file_value(check_key, table_value, label)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        if file:  # the user's file may hold a store URL's password: theirs alone
            path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            tmp.unlink(missing_ok=True)
            tmp.touch(mode=0o600)
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    return path
