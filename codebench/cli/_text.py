"""`shown`: text read from a file, a program or a model, made safe to put in rich markup on a terminal."""

from __future__ import annotations

from rich.markup import escape

from ..types import harmless


def shown(text: str) -> str:
    """`text` with its control characters written as escapes (`harmless`) and its square brackets kept from being read as
    markup: a record id or a message can then neither style nor drive the terminal."""
    return escape(harmless(text))
