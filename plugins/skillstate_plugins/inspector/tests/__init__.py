"""The run inspector's tests: every page over real HTTP on the durable stores, the gate,
escaping, the serving limits, and a real browser (headless Chromium)."""
