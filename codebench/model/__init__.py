"""Model access: endpoints and presets (`_presets`, no `openai` import) and the async client (`_client`).

`openai` is imported only by `_client`; importing this package loads it.
"""

from ._client import Completion, ModelClient, ModelFatalError
from ._presets import PRESETS, Endpoint, ModelConfigError, resolve_endpoint

__all__ = ["PRESETS", "Completion", "Endpoint", "ModelClient", "ModelConfigError", "ModelFatalError", "resolve_endpoint"]
