"""Sandbox tests: programs run on the Docker backend and judged on the host."""
