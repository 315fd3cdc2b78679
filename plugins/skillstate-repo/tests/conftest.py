"""The repo plugin's tests run against the installed package (editable under ./dev, or a wheel)."""
