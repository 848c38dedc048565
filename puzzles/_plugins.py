"""Puzzles and games from other installed packages: entry points, each with its prompt templates beside it.

A distribution registers a puzzle in the entry-point group `codebench.puzzles` (a game in `codebench.games`) under
the puzzle's own name, pointing at a `Puzzle` (a `Game`): a subclass, an instance, or a function returning one. Its
templates sit in a `templates/` folder beside the entry point's module, laid out as the built-in ones
(`instruction/<name>.md.j2` and `code/<name>.md.j2` for a puzzle, `rules/<name>.md.j2` for a game, and for a puzzle
too where its templates include it); they may extend and include the built-in ones (`instruction/_base.md.j2`).

Lazy and once: nothing here runs until a name the built-ins do not hold is asked for, or every plugin is listed, and
each plugin is imported at most once per process. A plugin that cannot be used (it does not import, names no Puzzle
or Game, makes one of another name, takes a built-in's name or another plugin's, lacks a template) keeps its
`problem`, one line naming the distribution and what to do: asking for it by name raises PluginError with it, a
listing leaves it out (`codebench puzzles list` warns of it), and the built-ins never notice.

Imports the standard library and this package's errors and protocol only.
"""

from __future__ import annotations

import functools
import importlib.metadata
import sys
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._errors import PluginError
from ._protocol import clip

PUZZLE_GROUP, GAME_GROUP = "codebench.puzzles", "codebench.games"
GROUPS = {PUZZLE_GROUP: "puzzle", GAME_GROUP: "game"}  # entry-point group -> what its entries register
TEMPLATES_FOLDER = "templates"  # the folder beside a plugin's module that holds its templates
_FOLDERS: dict[str, Path] = {}  # a loaded plugin's name -> the folder of its entry point's module


@dataclass(frozen=True)
class Plugin:
    """One name an installed distribution registers: where it comes from, and its puzzle or game or why it is unusable."""

    name: str
    origin: str  # "<distribution> <version>"
    found: Any = None
    problem: str | None = None


class Plugins:
    """The plugins of one entry-point group: `kind` is what they must be, `templates` the modes each must have a template
    for, `built_in` every built-in name (puzzles' and games': a plugin of either group may take none of them)."""

    def __init__(self, group: str, kind: type, templates: tuple[str, ...], built_in: Callable[[], Mapping[str, str]]) -> None:
        self.group, self.noun, self.kind, self.templates, self.built_in = group, GROUPS[group], kind, templates, built_in
        self._loaded: dict[str, Plugin] = {}
        self._lock = threading.RLock()  # a run's threads may ask for one plugin at once: it is imported once (a plugin
        # asking for another while it loads is let through)

    def find(self, name: str) -> Plugin | None:
        """The plugin registered as `name`, loaded on first use; None when no entry point of the group has that name."""
        entries = _entry_points()[self.group].get(name)
        if not entries:
            return None
        with self._lock:
            if name not in self._loaded:
                self._loaded[name] = self._load(name, entries)
            return self._loaded[name]

    def usable(self, name: str) -> Any:
        """The puzzle or game registered as `name`, or None when none is.

        Raises:
            PluginError: a plugin registers it but cannot be used (the message says why and what to do).
        """
        plugin = self.find(name)
        if plugin is not None and plugin.problem is not None:
            raise PluginError(plugin.problem)
        return plugin.found if plugin is not None else None

    def every(self) -> list[Plugin]:
        """Every plugin of the group, loaded, by name: the unusable ones with their problem."""
        return [plugin for name in sorted(_entry_points()[self.group]) if (plugin := self.find(name)) is not None]

    def _load(self, name: str, entries: list[importlib.metadata.EntryPoint]) -> Plugin:
        entry = entries[0]
        origin, dist = _origin(entry), entry.dist.name if entry.dist is not None else "its distribution"
        reinstall = f"reinstall {dist} (pip install --force-reinstall {dist}) or uninstall it (pip uninstall {dist})"

        def broken(what: str, todo: str) -> Plugin:
            return Plugin(name, origin, problem=f"the {self.noun} plugin {name!r} of {origin} ({entry.value}) {what}: {todo}")

        rivals = [(self.noun, other) for other in entries[1:]]
        rivals += [(noun, other) for group, noun in GROUPS.items() if group != self.group for other in _entry_points()[group].get(name, [])]
        if rivals:
            listed = ", ".join(f"as a {noun} by {_origin(other)}" for noun, other in rivals)
            return broken(f"is registered {listed} too", "uninstall all but one of them")
        taken = self.built_in().get(name)
        if taken is not None:
            return broken(f"has the name of the built-in {taken}, which is used instead", f"rename it in {dist}'s entry points")
        try:
            loaded = entry.load()
            found = loaded if isinstance(loaded, self.kind) or not callable(loaded) else loaded()
        except Exception as exc:  # whatever a plugin's import or factory raises: the plugin is broken, not the caller
            return broken(f"cannot be loaded ({type(exc).__name__}: {exc})", reinstall)
        kind = ".".join(part for part in self.kind.__module__.split(".") if not part.startswith("_")) + "." + self.kind.__name__
        if not isinstance(found, self.kind):
            return broken(f"is {clip(found)}, not a {kind}", f"point the entry point at a {kind} subclass, an instance or a "
                                                             "function that returns one")
        if getattr(found, "name", None) != name:
            return broken(f"makes the {self.noun} {clip(getattr(found, 'name', None))}",
                          f"name the entry point as the {self.noun} is named")
        module = getattr(sys.modules.get(entry.module), "__file__", None)
        folder = Path(module).resolve().parent if module else None
        missing = [f"{mode}/{name}.md.j2" for mode in self.templates
                   if folder is None or not (folder / TEMPLATES_FOLDER / mode / f"{name}.md.j2").is_file()]
        if folder is None or missing:
            return broken(f"has no template {missing[0]} in {folder / TEMPLATES_FOLDER if folder else 'a templates folder'}",
                          f"ship the templates/ folder beside {entry.module} as package data, then {reinstall}")
        _FOLDERS[name] = folder
        return Plugin(name, origin, found)


def plugin_folder(name: str) -> Path | None:
    """The folder of the loaded plugin registered as `name`: its module's, which holds `templates/` (None: no such
    plugin is loaded)."""
    return _FOLDERS.get(name)


@functools.cache
def _entry_points() -> dict[str, dict[str, list[importlib.metadata.EntryPoint]]]:
    """Each group's entry points by name (more than one: several distributions register the name), read once."""
    found: dict[str, dict[str, list[importlib.metadata.EntryPoint]]] = {group: {} for group in GROUPS}
    for group, named in found.items():
        for entry in importlib.metadata.entry_points(group=group):
            named.setdefault(entry.name, []).append(entry)
    return found


def _origin(entry: importlib.metadata.EntryPoint) -> str:
    """"<distribution> <version>" of the distribution that registers `entry`."""
    dist = entry.dist
    return f"{dist.name} {dist.version}" if dist is not None else "an unknown distribution"
