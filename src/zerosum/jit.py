"""numba's on-disk cache, keyed so that a change in any module a compiled function uses shows.

numba's ``@njit(cache=True)`` keys a function's cached machine code by the modification time
and size of the function's own source file. But a compiled function inlines the compiled
functions it calls and freezes the module-level arrays it reads as constants: when only a
module it imports changes (the chess board's evaluation, say, under the chess search), the
search's file is unchanged and numba loads the old machine code, which still evaluates the old
way. No error, just stale results.

:func:`cached_njit` compiles with the same disk cache, keyed instead by :func:`fingerprint`:
a digest of the source of the function's module and of every module of the same package it
imports, directly or through other modules (found by reading their ``import`` lines, import
names inside ``TYPE_CHECKING`` blocks included, which only makes the key stricter). Editing any
of them compiles afresh once; an unchanged tree loads from the cache as before.

Trade-off: the key is per module closure, not per function, so an edit anywhere in that closure
recompiles every cached function of the module, including those that do not use the edited
code.
"""

from __future__ import annotations

import hashlib
import os
import re
import sys
from collections.abc import Callable
from functools import cache
from typing import TYPE_CHECKING, Any, TypeVar

if TYPE_CHECKING:
    from numba.core.dispatcher import Dispatcher

F = TypeVar("F", bound=Callable[..., Any])

_FROM = re.compile(r"^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.M)
_IMPORT = re.compile(r"^[ \t]*import[ \t]+([\w.]+)", re.M)


def module_source(name: str) -> str | None:
    """The source text of module ``name`` of an imported package, read from the package's
    folder (nothing is imported), or ``None`` if there is no such file."""
    package = sys.modules.get(name.split(".")[0])
    path = getattr(package, "__file__", None)
    if path is None:
        return None
    # Plain strings and one open per candidate: most names tried are not modules (the names
    # a module imports from another), and pathlib's checks cost more than the reading.
    base = os.path.join(os.path.dirname(path), *name.split(".")[1:])
    for candidate in (base + ".py", os.path.join(base, "__init__.py")):
        try:
            with open(candidate, encoding="utf-8") as source:
                return source.read()
        except (FileNotFoundError, NotADirectoryError, IsADirectoryError):
            continue
    return None


def imported_modules(source: str, package: str) -> set[str]:
    """The modules of ``package`` that ``source`` imports: ``import package.x`` and
    ``from package.x import y`` give ``package.x``, and ``package.x.y`` in case ``y`` is a
    module (a name that is not finds no source and drops out of :func:`fingerprint`)."""
    source = re.sub(r"#[^\n]*", "", source)
    found = set(_IMPORT.findall(source))
    for module, names in _FROM.findall(source):
        found.add(module)
        for name in re.split(r"[,\s()]+", names):
            if name.isidentifier() and name != "as":
                found.add(f"{module}.{name}")
    return {module for module in found if module == package or module.startswith(package + ".")}


def fingerprint(name: str, source: Callable[[str], str | None] = module_source) -> str:
    """The digest of module ``name``'s source and of every module of its package that it
    imports, directly or not (``source`` reads a module's text; ``None``: not a module)."""
    package = name.split(".")[0]
    seen: dict[str, str] = {}
    waiting = [name]
    while waiting:
        module = waiting.pop()
        if module in seen:
            continue
        text = source(module)
        if text is None:
            continue
        seen[module] = text
        waiting.extend(imported_modules(text, package) - seen.keys())
    digest = hashlib.sha256()
    for module in sorted(seen):
        digest.update(f"{module}\0{seen[module]}\0".encode())
    return digest.hexdigest()


_read_once = cache(module_source)


@cache
def module_fingerprint(name: str) -> str:
    """One digest per module and process (every function of a module shares it), each source
    file read once per process."""
    return fingerprint(name, _read_once)


@cache
def fingerprint_cache() -> type[Any]:
    """numba's ``FunctionCache`` keyed by a fingerprint (a string that changes whenever the
    compiled code would) instead of the source file's time stamp; made on first use, so that
    importing this module does not import numba (the fingerprints above need none)."""
    from numba.core.caching import FunctionCache

    class FingerprintCache(FunctionCache):
        """numba's on-disk cache of one function, its entries keyed by a fingerprint."""

        def __init__(self, py_func: Callable[..., Any], fingerprint: str) -> None:
            super().__init__(py_func)  # type: ignore[no-untyped-call]  # numba's is untyped
            self._fingerprint = fingerprint

        def _index_key(self, sig: Any, codegen: Any) -> tuple[Any, ...]:
            return (sig, codegen.magic_tuple(), (self._fingerprint,))

    return FingerprintCache


def with_fingerprint_cache(function: F, key: str, **options: Any) -> Dispatcher[F]:
    """``function`` compiled by ``njit(**options)`` with a disk cache keyed by ``key``, one
    specialization per argument types, constants included (:func:`without_literals`)."""
    from numba import njit

    dispatcher: Dispatcher[F] = njit(**options)(function)
    dispatcher._cache = fingerprint_cache()(function, key)  # type: ignore[attr-defined]
    without_literals(dispatcher)
    return dispatcher


def without_literals(dispatcher: Dispatcher[Any]) -> None:
    """Make compiled callers of ``dispatcher`` type their constant arguments as plain
    numbers: numba compiles a separate copy of a function for each literal value a compiled
    caller passes (``moves(st, out, 0)``, ``moves(st, out, 1)`` and ``moves(st, out, kind)``
    were three compiles of the whole move generator, a fifth of the chess search's compile).
    The callee is compiled once for ``int64`` and each call converts its constant; LLVM
    still folds the constant where it inlines the call. (A function that needs a literal
    argument, through ``numba.literally``, cannot be compiled this way.)"""
    from numba.core import types

    original = dispatcher.get_call_template
    unliteral: Callable[[Any], Any] = types.unliteral  # numba's is untyped

    def get_call_template(args: Any, kws: Any) -> Any:
        plain = tuple(unliteral(argument) for argument in args)
        return original(plain, {name: unliteral(value) for name, value in kws.items()})

    dispatcher.get_call_template = get_call_template  # type: ignore[method-assign]


def cached_njit(*signatures: Any, **options: Any) -> Callable[[F], Dispatcher[F]]:
    """``@njit(*signatures, cache=True, **options)``, keyed by :func:`fingerprint` of the
    function's module: a change in a module it imports compiles it again instead of loading
    stale code. Signatures given are compiled (or loaded) at once, as numba does."""

    def decorate(function: F) -> Dispatcher[F]:
        from numba.core import typeinfer

        dispatcher = with_fingerprint_cache(
            function, module_fingerprint(function.__module__), **options
        )
        if signatures:  # compiled (or loaded) now, as numba's njit does with signatures
            # known to type inference before the decorator returns, so the function may call
            # itself
            with typeinfer.register_dispatcher(dispatcher):
                for signature in signatures:
                    dispatcher.compile(signature)
            dispatcher.disable_compile()
        return dispatcher

    return decorate
