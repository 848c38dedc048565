"""At import, rebinds builtins and os._exit so the child cannot report honestly, then answers wrongly."""

import builtins
import os

builtins.isinstance = lambda obj, kind: True
builtins.callable = lambda obj: True
builtins.BaseException = object
os._exit = lambda code: None


def solve(instance):
    return {"moves": [[1, "A", "A"]]}
