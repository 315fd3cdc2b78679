"""pytest configuration for every test of the repository: the core's (tests/) and each plugin's."""

from hypothesis import HealthCheck, settings

# Timing is not what the property tests check, and this 2-core machine is shared: a
# pause while generating one input (seen: 1.6 s) must not fail a property that holds.
settings.register_profile("skillstate", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("skillstate")
