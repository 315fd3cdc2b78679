"""Property tests check behaviour, not speed: no hypothesis deadline on a shared machine."""

from hypothesis import HealthCheck, settings

settings.register_profile("skillstate", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("skillstate")
