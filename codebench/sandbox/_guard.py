"""The unsafe-local backend's static guard: RestrictedPython's compiler with a policy that only rejects, never rewrites.

The program still runs with ordinary Python semantics; the guard decides, before any process starts,
whether the source may run at all. It rejects, by reading the source:

- imports of modules outside ALLOWED_MODULES (and relative imports), reported like a failed import,
  so the verdict is runtime_error `import:<module>`;
- the process, signal and identity functions of `os` (`os.system`, `os.fork`, `os.exec*`, `os.kill`,
  `from os import popen`, …), `sys.modules`, `sys._getframe`, `gc.get_objects`, `numpy.ctypeslib`;
- `__import__`, `__builtins__`, the introspection attributes that climb from any object to modules or
  frames (`__subclasses__`, `__globals__`, `f_back`, `gi_frame`, …), also as constant `getattr` names;

these give runtime_error `exception:GuardError`, with the reason in the outcome's stderr.
It is a tripwire for programs that try to leave their lane, not a boundary: anything dynamic
(`exec` of a built string, `getattr(os, name)` with a computed name) passes, and the rlimits,
the solver uid and the watchdog remain what contains the program.
"""

from __future__ import annotations

import ast

from RestrictedPython import compile_restricted_exec
from RestrictedPython.transformer import INSPECT_ATTRIBUTES, RestrictingNodeTransformer

from ..types import Facts

GUARD_ERROR = "GuardError"  # the exception type shown in the verdict detail: exception:GuardError

ALLOWED_MODULES = frozenset({
    "__future__", "abc", "array", "base64", "binascii", "bisect", "calendar", "cmath", "collections", "colorsys",
    "contextlib", "copy", "dataclasses", "datetime", "decimal", "difflib", "enum", "fractions", "functools", "gc",
    "graphlib", "hashlib", "heapq", "io", "itertools", "json", "math", "numbers", "numpy", "operator", "os", "pprint",
    "queue", "random", "re", "reprlib", "statistics", "string", "struct", "sys", "textwrap", "threading", "time",
    "traceback", "types", "typing", "unicodedata", "warnings", "weakref", "zlib",
})
FORBIDDEN_SUBMODULES = frozenset({"numpy.ctypeslib", "numpy.distutils", "numpy.f2py", "numpy.testing"})
_OS_CALLS = {"system", "popen", "fork", "forkpty", "kill", "killpg", "posix_spawn", "posix_spawnp", "setsid",
             "setuid", "setgid", "seteuid", "setegid", "setreuid", "setregid", "setresuid", "setresgid", "setpgid",
             "chroot", "pidfd_open", "register_at_fork"}
MODULE_ATTRIBUTES = {  # attributes refused on (names bound by importing) these modules
    "os": frozenset(_OS_CALLS | {f"exec{suffix}" for suffix in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")}
                    | {f"spawn{suffix}" for suffix in ("l", "le", "lp", "lpe", "v", "ve", "vp", "vpe")}),
    "sys": frozenset({"modules", "_getframe", "settrace", "setprofile", "addaudithook", "meta_path", "path_hooks"}),
    "gc": frozenset({"get_objects", "get_referrers", "get_referents"}),
    "numpy": frozenset({"ctypeslib"}),
}
FORBIDDEN_NAMES = frozenset({"__import__", "__builtins__", "__loader__", "__spec__", "breakpoint"})
FORBIDDEN_ATTRIBUTES = INSPECT_ATTRIBUTES | {
    "__subclasses__", "__globals__", "__builtins__", "__code__", "__closure__", "__bases__", "__base__", "__mro__",
    "__loader__", "__spec__", "__import__", "__reduce__", "__reduce_ex__",
}
_ATTRIBUTE_FUNCTIONS = frozenset({"getattr", "setattr", "delattr", "hasattr"})


class _GuardPolicy(RestrictingNodeTransformer):
    """Visits every node, records what the guard refuses through RestrictedPython's `error`, rewrites nothing."""

    def __init__(self, errors: list[str], warnings: list[str], used_names: dict[str, bool]) -> None:
        super().__init__(errors, warnings, used_names)
        self.modules: dict[str, str] = {}  # local name → the guarded module it was bound to by an import

    def visit(self, node: ast.AST) -> ast.AST:
        check = getattr(self, f"check_{type(node).__name__}", None)
        if check is not None:
            check(node)
        return self.node_contents_visit(node)

    def refuse_import(self, node: ast.AST, module: str) -> None:
        self.error(node, f"import of '{module}' is refused by the local sandbox's guard")

    def refuse(self, node: ast.AST, what: str) -> None:
        self.error(node, f"{what} is refused by the local sandbox's guard")

    def check_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if self.module_refused(node, alias.name):
                continue
            top = alias.name.split(".")[0]
            if top in MODULE_ATTRIBUTES:
                if alias.asname is None:
                    self.modules[top] = top
                elif "." not in alias.name:
                    self.modules[alias.asname] = top

    def check_ImportFrom(self, node: ast.ImportFrom) -> None:
        if node.level:
            self.refuse_import(node, "." * node.level + (node.module or ""))
            return
        module = node.module or ""
        if self.module_refused(node, module):
            return
        for alias in node.names:
            if f"{module}.{alias.name}" in FORBIDDEN_SUBMODULES:
                self.refuse_import(node, f"{module}.{alias.name}")
            elif alias.name in MODULE_ATTRIBUTES.get(module, ()) or (alias.name == "*" and module in MODULE_ATTRIBUTES):
                self.refuse(node, f"from {module} import {alias.name}")

    def module_refused(self, node: ast.AST, name: str) -> bool:
        parts = name.split(".")
        refused = parts[0] not in ALLOWED_MODULES or any(".".join(parts[:i + 1]) in FORBIDDEN_SUBMODULES
                                                          for i in range(len(parts)))
        if refused:
            self.refuse_import(node, name)
        return refused

    def check_Name(self, node: ast.Name) -> None:
        if node.id in FORBIDDEN_NAMES:
            self.refuse(node, f"the name {node.id}")

    def check_Attribute(self, node: ast.Attribute) -> None:
        if node.attr in FORBIDDEN_ATTRIBUTES:
            self.refuse(node, f"the attribute .{node.attr}")
        elif isinstance(node.value, ast.Name) and node.attr in MODULE_ATTRIBUTES.get(self.modules.get(node.value.id, ""), ()):
            self.refuse(node, f"{self.modules[node.value.id]}.{node.attr}")

    def check_Call(self, node: ast.Call) -> None:
        if (isinstance(node.func, ast.Name) and node.func.id in _ATTRIBUTE_FUNCTIONS and len(node.args) >= 2
                and isinstance(node.args[1], ast.Constant) and isinstance(node.args[1].value, str)):
            name = node.args[1].value
            module = self.modules.get(node.args[0].id, "") if isinstance(node.args[0], ast.Name) else ""
            if name in FORBIDDEN_ATTRIBUTES or name in MODULE_ATTRIBUTES.get(module, ()):
                self.refuse(node, f"{node.func.id}(…, {name!r})")


def check(source: str) -> Facts | None:
    """Load facts that stop the program before it runs, or None when the guard has no objection.

    A source that does not parse (too deep to parse included) passes: the supervisor reports the syntax error like
    every backend. A tree too deep for the guard to walk is refused: what the guard cannot read does not run.
    """
    try:
        tree = ast.parse(source, "solver.py")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    try:
        errors = compile_restricted_exec(tree, "solver.py", policy=_GuardPolicy).errors
    except (RecursionError, MemoryError):
        errors = ["Line 1: the program is nested too deeply for the guard to read, and is refused by the local sandbox's guard"]
    if not errors:
        return None
    first = errors[0]
    kind = "ImportError" if "import of '" in first else GUARD_ERROR
    report = "\n".join(errors)
    return Facts(phase="load", result={"kind": "exception", "type": kind, "message": first.split(": ", 1)[-1]},
                 stderr=f"The local sandbox's guard refused the program before running it:\n{report}\n")
