"""Imports a module the image does not have."""

import no_such_module_anywhere  # noqa: F401


def solve(instance):
    return {"moves": []}
