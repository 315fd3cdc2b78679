"""skillstate's bundled plugins.

Each module here is an ordinary plugin, registered only through the ``skillstate``
entry points in ``pyproject.toml`` — exactly as a third-party plugin is — so any of
them can be blocked (``SKILLSTATE_DISABLE_PLUGINS=name``) or replaced.
"""
