"""The registry of games: front ends, engines and workers find every game only through it.

Games come from three places, all registered by :func:`register` with a :class:`GameSpec`:

1. the built-in games (:mod:`zerosum.games.builtin`);
2. installed packages, through the entry-point group ``zerosum.games``: each entry point loads
   to a :class:`GameSpec`, or to a callable with no arguments that returns one;
3. a program calling :func:`register` itself.

The registry fills itself on first use, so importing zerosum costs nothing per plugin, and a
worker process (which imports zerosum afresh) sees the same games as its parent: the entry
points are read again there, and the modules that called :func:`register` at run time are
imported again (:func:`registering_modules`). A plugin that fails to load is named in a warning
and left out; everything else still works.
"""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Callable, Iterator, Mapping
from importlib.metadata import entry_points
from typing import Any, Final

from zerosum.game import ZerosumError
from zerosum.games.builtin import BUILTIN
from zerosum.games.spec import GameSpec, Reference, resolve

ENTRY_POINT_GROUP: Final = "zerosum.games"
"""The entry-point group that game packages declare their specs in."""


class UnknownGameError(ZerosumError, KeyError):
    """A game name that is not in the registry."""

    def __str__(self) -> str:
        return str(self.args[0])


class PluginWarning(UserWarning):
    """A game plugin that could not be loaded (the other games still work)."""


class _Registry(Mapping[str, GameSpec]):
    """Every registered game by name, in registration order; built-in games and entry points
    are loaded on first access."""

    def __init__(self) -> None:
        self._specs: dict[str, GameSpec] = {}
        self._modules: dict[str, None] = {}
        self._loaded = False

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        for factory in BUILTIN:
            self.add(factory(), replace=False, module=None)
        for point in sorted(entry_points(group=ENTRY_POINT_GROUP), key=lambda p: p.name):
            try:
                spec = _as_spec(point.load(), point.value)
                self.add(spec, replace=False, module=None)
            except Exception as error:  # a broken plugin must not break the others
                warnings.warn(
                    f"zerosum: the game plugin {point.name!r} ({point.value}) was not loaded: "
                    f"{type(error).__name__}: {error}",
                    PluginWarning,
                    stacklevel=3,
                )

    def add(self, spec: GameSpec, *, replace: bool, module: str | None) -> None:
        if not isinstance(spec, GameSpec):
            raise ZerosumError(f"cannot register {spec!r}: expected a zerosum.games.GameSpec")
        if ":" in spec.name:
            raise ZerosumError(
                f"cannot register {spec.name!r}: a variant is reached through its game's "
                "options, expected a name without ':'"
            )
        known = self._specs.get(spec.name)
        if known is not None and known is not spec and not replace:
            raise ZerosumError(
                f"a game named {spec.name!r} is already registered ({known.title}): expected "
                "a new name, or replace=True"
            )
        self._specs[spec.name] = spec
        if module is not None:
            self._modules[module] = None

    def __getitem__(self, name: str) -> GameSpec:
        self._load()
        return self._specs[name]

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(list(self._specs))

    def __len__(self) -> int:
        self._load()
        return len(self._specs)


GAMES: Final = _Registry()
"""Every registered game by name (a read-only mapping; add games with :func:`register`)."""


def _as_spec(loaded: object, where: str) -> GameSpec:
    """An entry point's object as a spec: the spec itself, or what a no-argument callable
    returns."""
    spec = loaded() if callable(loaded) and not isinstance(loaded, GameSpec) else loaded
    if not isinstance(spec, GameSpec):
        raise ZerosumError(
            f"{where} gave {type(spec).__name__}: expected a GameSpec or a callable returning one"
        )
    return spec


def register(spec: GameSpec, *, replace: bool = False) -> GameSpec:
    """Add ``spec`` to the registry and return it.

    Raises :class:`ZerosumError` if another game has the name (unless ``replace``). The module
    that defines the game's factory is remembered, so that worker processes import it and
    register the game there too: register at the top level of an importable module (or of the
    main script, which a spawned worker runs again as ``__mp_main__``).
    """
    GAMES._load()
    module = getattr(spec.new, "__module__", None)
    GAMES.add(spec, replace=replace, module=module)
    return spec


def unregister(name: str) -> None:
    """Remove the game ``name`` from the registry (tests, and programs that replace a game);
    raises :class:`UnknownGameError` if there is none."""
    GAMES._load()
    if name not in GAMES._specs:
        raise UnknownGameError(f"unknown game {name!r}: nothing to unregister")
    del GAMES._specs[name]


def registering_modules() -> list[str]:
    """The modules that registered games at run time, for worker processes to import."""
    return list(GAMES._modules)


def import_registering_modules(modules: list[str]) -> None:
    """Import the modules a parent process's games came from (in a worker process)."""
    for module in modules:
        if module not in ("__main__", "__mp_main__"):
            importlib.import_module(module)


def get_game(name: str) -> GameSpec:
    """The registered game ``name`` (with options after a colon: ``morris:six``); raises
    :class:`UnknownGameError` listing the known ones."""
    base, colon, options = name.partition(":")
    try:
        spec = GAMES[base]
    except KeyError:
        known = ", ".join(sorted(GAMES))
        raise UnknownGameError(f"unknown game {name!r}: expected one of {known}") from None
    if not colon:
        return spec
    if spec.options is None:
        raise UnknownGameError(f"game {base!r} has no options: expected just {base!r}")
    return spec.options(options)


def spec_of(game: Any) -> GameSpec | None:
    """The registered spec of a game object (by its ``name``), or ``None`` for a game that is
    not registered."""
    name = getattr(game, "name", None)
    if not isinstance(name, str):
        return None
    try:
        return get_game(name)
    except ZerosumError:
        return None


Factory = Callable[[], GameSpec]

__all__ = [
    "ENTRY_POINT_GROUP",
    "GAMES",
    "Factory",
    "GameSpec",
    "PluginWarning",
    "Reference",
    "UnknownGameError",
    "get_game",
    "import_registering_modules",
    "register",
    "registering_modules",
    "resolve",
    "spec_of",
    "unregister",
]
