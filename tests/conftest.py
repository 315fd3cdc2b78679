"""pytest configuration shared by every test module (helpers live in support.py)."""
