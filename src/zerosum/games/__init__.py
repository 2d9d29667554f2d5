"""The registry of games: front ends, engines and workers find every game only through it.

Games come from three places, all registered by :func:`register` with a :class:`GameSpec`:

1. the built-in games (:mod:`zerosum.games.builtin`);
2. installed packages, through the entry-point group ``zerosum.games``: each entry point loads
   to a :class:`GameSpec`, or to a callable with no arguments that returns one;
3. a program calling :func:`register` itself.

The registry fills itself on first use, so importing zerosum costs nothing per plugin, and a
worker process (which imports zerosum afresh) sees the same games as its parent: the entry
points are read again there, and the modules that called :func:`register` at run time are
imported again (:data:`zerosum.runtime.WORKER_IMPORTS`). A plugin that fails to load is named
in a warning and left out; everything else still works.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import TYPE_CHECKING, Any, Final

from zerosum.game import ZerosumError
from zerosum.games.builtin import BUILTIN
from zerosum.games.spec import Deferred, GameSpec, Reference, resolve

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

ENTRY_POINT_GROUP: Final = "zerosum.games"
"""The entry-point group that game packages declare their specs in."""


class UnknownGameError(ZerosumError, KeyError):
    """A game name that is not in the registry."""

    def __str__(self) -> str:
        return str(self.args[0])


class PluginWarning(UserWarning):
    """A game plugin that could not be loaded (the other games still work)."""


class _Registry(Mapping[str, GameSpec]):
    """Every registered game by name, in registration order (the built-in games first, then
    the entry points' in the order of their names, then the games programs registered).

    The registry fills itself on first use, and looking up a built-in game by name builds
    only that game's spec: the entry points (and ``importlib.metadata``, a tenth of a second)
    are read when a name is not a built-in one, or when the games are listed.
    """

    def __init__(self) -> None:
        self._specs: dict[str, GameSpec] = {}
        self._modules: dict[str, str] = {}  # a game a program registered: its factory's module
        self._loaded = False

    def _builtin(self, name: str) -> GameSpec | None:
        """The built-in game ``name`` (made on first use), or ``None``."""
        spec = self._specs.get(name)
        if spec is None and not self._loaded and name in BUILTIN:
            spec = self._specs[name] = BUILTIN[name]()
        return spec

    def _load(self) -> None:
        if self._loaded:
            return
        made, self._specs = self._specs, {}  # the built-in games first, in their order
        self._loaded = True
        for name, factory in BUILTIN.items():
            self.add(made.get(name) or factory(), replace=False, module=None)
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
        if self._modules.get(spec.name) != module:
            self._forget_module(spec.name)  # the replaced game's module may be needed no more
        self._specs[spec.name] = spec
        if module is not None:
            from zerosum.runtime.workers import WORKER_IMPORTS  # multiprocessing: only here

            self._modules[spec.name] = module
            if module not in WORKER_IMPORTS:
                WORKER_IMPORTS.append(module)  # a spawned worker imports it, knows the game

    def remove(self, name: str) -> None:
        """Forget the game ``name`` (if known), and its module in the workers' imports unless
        another registered game still comes from it: a worker never imports a module for a
        game that is gone (one that only the program's own path finds, as a Ray worker's
        would not)."""
        self._specs.pop(name, None)
        self._forget_module(name)

    def _forget_module(self, name: str) -> None:
        module = self._modules.pop(name, None)
        if module is not None and module not in self._modules.values():
            from zerosum.runtime.workers import WORKER_IMPORTS  # multiprocessing: only here

            if module in WORKER_IMPORTS:
                WORKER_IMPORTS.remove(module)

    def __getitem__(self, name: str) -> GameSpec:
        spec = self._builtin(name)
        if spec is not None:
            return spec
        self._load()
        return self._specs[name]

    def __contains__(self, name: object) -> bool:
        if isinstance(name, str) and self._builtin(name) is not None:
            return True
        self._load()
        return name in self._specs

    def __iter__(self) -> Iterator[str]:
        self._load()
        return iter(list(self._specs))

    def __len__(self) -> int:
        self._load()
        return len(self._specs)


def entry_points(*, group: str) -> Iterable[EntryPoint]:
    """The installed packages' entry points of ``group`` (``importlib.metadata``'s, imported
    here: a tenth of a second that only listing the games or a plugin's name pays)."""
    from importlib.metadata import entry_points as installed

    return installed(group=group)


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
    """Remove the game ``name`` from the registry (tests, and programs that replace a game),
    and its module from the worker processes' imports unless another game still comes from it;
    raises :class:`UnknownGameError` if there is none."""
    GAMES._load()
    if name not in GAMES._specs:
        raise UnknownGameError(f"unknown game {name!r}: nothing to unregister")
    GAMES.remove(name)


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
    "Deferred",
    "Factory",
    "GameSpec",
    "PluginWarning",
    "Reference",
    "UnknownGameError",
    "get_game",
    "register",
    "resolve",
    "spec_of",
    "unregister",
]
