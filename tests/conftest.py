"""The core's tests. Shared helpers live in support.py (``from support import ...``): pytest
puts this directory on ``sys.path`` because this conftest is here. Each bundled plugin's
tests live beside the plugin (``plugins/skillstate_plugins/<name>/tests/``)."""
