"""The model stage: endpoints and presets (`presets`, no `openai`), the async client for any OpenAI-compatible
server (`client`, the only importer of `openai`), and a mock server for tests and the demo (`mock_server`).

Nothing is imported here, so loading one module never loads the others.
"""
