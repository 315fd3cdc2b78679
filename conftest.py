"""pytest configuration for every test of the repository: the core's (tests/) and each plugin's."""

import atexit
import os
import shutil
import tempfile

from hypothesis import HealthCheck, settings

# Timing is not what the property tests check, and this 2-core machine is shared: a
# pause while generating one input (seen: 1.6 s) must not fail a property that holds.
settings.register_profile("skillstate", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("skillstate")

# A developer's own user configuration ($XDG_CONFIG_HOME/skillstate/config.toml) must not
# change what the tests see: every test, and every command a test runs, gets an empty one.
os.environ["XDG_CONFIG_HOME"] = tempfile.mkdtemp(prefix="skillstate-test-xdg-")
atexit.register(shutil.rmtree, os.environ["XDG_CONFIG_HOME"], True)
# Nor may the tests fill the developer's cache (the remembered entry points).
os.environ["XDG_CACHE_HOME"] = tempfile.mkdtemp(prefix="skillstate-test-cache-")
atexit.register(shutil.rmtree, os.environ["XDG_CACHE_HOME"], True)
