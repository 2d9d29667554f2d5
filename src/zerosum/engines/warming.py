"""An engine that answers at once: its pure-Python twin searches while the compiled one loads.

The compiled engines are the fast ones, but their first use on a machine compiles them (up to a
minute for chess) and every later process still spends a second or so importing numba and
loading the machine code from the disk cache. :class:`WarmingEngine` hides both: it holds the
compiled engine's pure-Python twin (the tactical search for the compiled tactical one, the
Python alpha-beta ``engine`` for the compiled alpha-beta, the Python MCTS for the compiled MCTS)
and a *loader* thread that

1. starts a child process that compiles the engine's parts into numba's disk cache, unless
   they are there already (:class:`zerosum.compiled.warm.Warmer`; a lock keeps two processes
   from compiling the same part);
2. once the child is done, loads the parts in this process (from the cache: a second or two),
   opens the compiled engine and warms it up;
3. from then on every call goes to the compiled engine.

Until then the twin answers: a search under a time limit keeps its limit (no compile is ever
on the clock), weaker but at once. A search that the compiled engine becomes ready in the
middle of is handed over: the twin is stopped, and the compiled engine searches the time that
is left, reporting only iterations deeper than those the twin reported; the deeper result of
the two is returned. A search bounded only by its depth, when the parts are already in the
disk cache, lets the twin search only while the loader waits out its delay (its first
iterations are the command's first lines), then waits for the loader: loading takes a second
or two, and the twin, sharing the GIL with it, would only slow both down (the caller shows a
status line meanwhile). Exact
solves and perfect play (``best_moves`` at depth 0) are the twin's only if it proves them within
:data:`TWIN_PROOF_NODES` nodes (all of tic-tac-toe, a connect four position near its end);
otherwise they wait for the compiled engine: the twins solve connect four far too slowly to be
an answer.

Trade-off: the twin and the loader share the GIL, so the twin searches more slowly while numba
loads, and a collection or a long call of the loader delays the twin's look at its clock; and
two engines' tables exist during the hand-over. A caller whose searches must keep a clock
that the hand-over cannot help (UCI: a ``go`` searches with the engine that answers when it
starts) runs them under :meth:`WarmingEngine.hold`: the loader then starts loading only
between such searches. A child that fails leaves the loader
to compile in this process, in the background, as if there were no child.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final

from zerosum.compiled.warm import Part, Warmer, warm_part
from zerosum.engines.base import Engine, OnIteration
from zerosum.game import Game
from zerosum.games import GameSpec
from zerosum.search.core import Limit, SearchResult

LOADER_DELAY_S: Final = 0.5
"""How long the loader waits before it imports numba, which holds the GIL in long stretches:
the command's first lines (a board, uciok, a first iteration) go out before it. A caller that
waits for the compiled engine cuts the delay short."""

TWIN_PROOF_NODES: Final = 20_000
"""How many nodes the twin may spend trying to prove a position (an exact solve, perfect
play) before the call waits for the compiled engine: a few tenths of a second in Python,
enough for tic-tac-toe's whole tree, so that a game's first perfect move does not wait for a
compile. A proof is a proof whoever finds it; a position past the budget loses that much time."""


class WarmingEngine(Engine):
    """The compiled engine ``open_compiled()`` opens, answered for by ``twin`` until it is
    loaded (see the module header). Call :meth:`start` to begin loading (the first search
    does it otherwise); ``load`` loads the parts in this process (default:
    :func:`~zerosum.compiled.warm.warm_part` of each), ``warmer`` compiles them in a child
    (default: a :class:`~zerosum.compiled.warm.Warmer` of ``spec`` and ``parts``)."""

    def __init__(
        self,
        spec: GameSpec,
        parts: Sequence[Part],
        twin: Engine,
        open_compiled: Callable[[], Engine],
        *,
        name: str,
        warmer: Warmer | None = None,
        load: Callable[[], None] | None = None,
    ) -> None:
        self.name = name
        self.spec = spec
        self.twin = twin
        """The pure-Python engine that answers until the compiled one is ready."""
        self.warmer = warmer if warmer is not None else Warmer(spec, parts)
        self.compiled: Engine | None = None
        """The compiled engine, once loaded (``None`` before)."""
        self.error: BaseException | None = None
        """What stopped the loader, if anything failed (the twin then answers for good)."""
        self._parts = tuple(parts)
        self._open_compiled = open_compiled
        self._load = load if load is not None else self._load_parts
        self._loader: threading.Thread | None = None
        self._settled = threading.Event()
        """Set once the loader has finished, with the compiled engine or an error."""
        self._closed = False
        self._hurry = threading.Event()
        """Set when someone waits for the loader (or the engine closes): no delay then."""
        self.delay = LOADER_DELAY_S
        """Seconds the loader waits before loading (see :data:`LOADER_DELAY_S`)."""
        self.answered: Engine | None = None
        """The engine whose result the last call returned (the twin or the compiled one)."""
        self._idle = threading.Condition()
        self._holds = 0
        """How many :meth:`hold` blocks run now (the loader waits for none before loading)."""

    # -- the loader ------------------------------------------------------------------------------

    def start(self) -> None:
        """Start loading the compiled engine (and compiling it in a child if it is not in the
        disk cache); returns at once. Calling it again does nothing."""
        if self._loader is None:
            self.warmer.start()
            self._loader = threading.Thread(
                target=self._run_loader, name="zerosum-loader", daemon=True
            )
            self._loader.start()

    def _load_parts(self) -> None:
        for part in self._parts:
            warm_part(self.spec, part)

    def _run_loader(self) -> None:
        try:
            self.warmer.wait()  # the child's compile, if any
            self._hurry.wait(self.delay)
            with self._idle:  # no search on a clock that loading would slow (see hold)
                self._idle.wait_for(lambda: self._holds == 0 or self._hurry.is_set())
            if self._closed:
                return
            self._load()
            engine = self._open_compiled()
            engine.warm_up()
            with self._idle:  # one step with close(): an engine opened now is closed, not lost
                if not self._closed:
                    self.compiled = engine
            if self.compiled is not engine:
                engine.close()
        except Exception as error:  # the twin goes on answering; the error is kept
            self.error = error
        finally:
            self._settled.set()

    def _hasten(self) -> None:
        """Someone waits for the loader (or the engine closes): no delay, no waiting for
        :meth:`hold` blocks to end."""
        self._hurry.set()
        with self._idle:
            self._idle.notify_all()

    @contextlib.contextmanager
    def hold(self) -> Iterator[None]:
        """Keep the loader from starting to load while the block runs (a search on a clock:
        loading numba in this process would take the GIL from it); loading that has begun
        goes on. Blocks may nest and overlap; :meth:`wait` does not wait for them."""
        with self._idle:
            self._holds += 1
        try:
            yield
        finally:
            with self._idle:
                self._holds -= 1
                self._idle.notify_all()

    @property
    def ready(self) -> bool:
        """Whether the compiled engine answers now."""
        return self.compiled is not None

    @property
    def settled(self) -> bool:
        """Whether the loader has finished (with the compiled engine, or with :attr:`error`)."""
        return self._settled.is_set()

    def wait(self, timeout: float | None = None) -> bool:
        """Start loading if need be and wait (at most ``timeout`` seconds) until the loader
        has finished; whether the compiled engine is ready."""
        self.start()
        self._hasten()
        self._settled.wait(timeout)
        return self.ready

    @property
    def loading_only(self) -> bool:
        """Whether nothing is left to compile: the parts are in the disk cache (or the child
        has finished), only loading them into this process remains."""
        return self.warmer.done() and not self.warmer.failed

    def _wait_unless_stopped(self, limit: Limit) -> None:
        """Wait for the loader, looking at ``limit.stop`` (Ctrl-C) every tenth of a second."""
        self._hasten()
        while not self._settled.wait(0.1):
            if limit.stop is not None and limit.stop():
                return

    def current(self) -> Engine:
        """The engine that answers now: the compiled one once loaded, else the twin."""
        return self.compiled if self.compiled is not None else self.twin

    def status(self, *, waiting: bool = False) -> str:
        """What the engine is doing, for a status line (empty once the compiled engine is
        ready). ``waiting``: for a caller that waits for the compiled engine (a proof the twin
        could not give), so the twin's answering is not mentioned."""
        if self.compiled is not None:
            return ""
        twin = "the Python" + ("" if self.twin.name == "engine" else f" {self.twin.name}")
        if self.settled:
            return f"the compiled engine failed to load ({self.error}); {twin} engine answers"
        kind = self.name.removeprefix("compiled").removeprefix("-")  # "", "tactical", "mcts"
        what = f"{self.spec.name} {kind}".rstrip()
        if self.warmer.done():
            return f"loading the {what} engine's machine code from the disk cache"
        compiling = (
            f"compiling the {what} engine (its first use: about "
            f"{self.warmer.remaining():.0f} s left)"
        )
        return compiling if waiting else f"{compiling}; {twin} engine answers meanwhile"

    @property
    def exact(self) -> bool:  # type: ignore[override]  # a property where the base has a field
        return self.compiled.exact if self.compiled is not None else self.twin.exact

    # -- the engine ------------------------------------------------------------------------------

    def warm_up(self) -> float:
        """Start loading in the background (see :meth:`start`); waits for nothing."""
        self.start()
        return 0.0

    def search(
        self,
        game: Game[Any],
        limit: Limit | None = None,
        *,
        on_iteration: OnIteration | None = None,
    ) -> SearchResult[Any]:
        """The compiled engine's search once it is ready; until then the twin's, handed over
        to the compiled engine if it becomes ready before the limit (not with a node limit:
        the two count nodes differently)."""
        self.start()
        limit = limit or Limit()
        compiled = self.compiled
        if compiled is not None:
            self.answered = compiled
            return compiled.search(game, limit, on_iteration=on_iteration)
        started = time.perf_counter()
        outer = limit.stop
        handing_over = limit.nodes is None
        # Bounded only by depth, with nothing left to compile: the twin's first iterations
        # while the loader waits out its delay, then wait for the loader (see the header).
        brief = limit.only_depth and self.loading_only

        def stop() -> bool:
            if outer is not None and outer():
                return True
            if brief and time.perf_counter() - started >= self.delay:
                return True
            return handing_over and self.ready

        reported = 0

        def seen(result: SearchResult[Any]) -> None:
            nonlocal reported
            reported = max(reported, result.depth)
            if on_iteration is not None:
                on_iteration(result)

        twin_limit = Limit(depth=limit.depth, nodes=limit.nodes, time=limit.time, stop=stop)
        found = self.twin.search(game, twin_limit, on_iteration=seen)
        self.answered = self.twin
        if brief and not found.complete and not (outer is not None and outer()):
            self._wait_unless_stopped(limit)
        compiled = self.compiled
        if (
            compiled is None
            or not handing_over
            or found.complete
            or (outer is not None and outer())
            or (limit.time is not None and time.perf_counter() - started >= limit.time)
        ):
            return found

        def deeper(result: SearchResult[Any]) -> None:
            if result.depth > reported and on_iteration is not None:
                on_iteration(result)

        taken = compiled.search(game, limit.since(started), on_iteration=deeper)
        if taken.complete or taken.depth >= found.depth:
            self.answered = compiled
            return taken
        return found

    def _proved(
        self, prove: Callable[[Engine, Limit | None], SearchResult[Any]], limit: Limit | None
    ) -> SearchResult[Any]:
        """``prove`` (an exact solve or perfect play) by the compiled engine, or by the twin if
        that is not ready and the twin's proof takes at most :data:`TWIN_PROOF_NODES` nodes
        (and no more than ``limit`` allows; a twin that is not :attr:`exact` does not try).
        Otherwise it waits for the compiled engine
        (or ``limit``'s stop, Ctrl-C: then the twin's unfinished result), which gets the rest
        of ``limit``'s time; the twin's for good if the compiled engine failed to load."""
        self.start()
        limit = limit or Limit()
        started = time.perf_counter()
        if self.compiled is None and self.twin.exact:
            budget = TWIN_PROOF_NODES if limit.nodes is None else min(limit.nodes, TWIN_PROOF_NODES)
            tried = prove(self.twin, Limit(nodes=budget, time=limit.time, stop=limit.stop))
            self.answered = self.twin
            if (tried.complete and tried.solved) or budget == limit.nodes:  # or budget spent
                return tried
            if limit.time is not None and time.perf_counter() - started >= limit.time:
                return tried
            self._wait_unless_stopped(limit)
            if limit.stop is not None and limit.stop() and self.compiled is None:
                return tried
        elif self.compiled is None:  # a twin that proves nothing (the tactical search)
            self.wait()
        self.answered = self.current()
        return prove(self.answered, limit.since(started))

    def solve(self, game: Game[Any], *, limit: Limit | None = None) -> SearchResult[Any]:
        """The exact solve: the twin's if it proves the position at once, else the compiled
        engine's once it is loaded (see :meth:`_proved`)."""
        return self._proved(lambda engine, limited: engine.solve(game, limit=limited), limit)

    def _best_moves(
        self, game: Game[Any], depth: int, seed: int | None, limit: Limit | None
    ) -> SearchResult[Any]:
        """Perfect play (``depth`` 0) as :meth:`solve` proves; a player at a depth is the
        twin until the compiled engine is ready."""
        if depth == 0:
            return self._proved(
                lambda engine, limited: engine._best_moves(game, 0, seed, limited), limit
            )
        self.start()
        self.answered = self.current()
        return self.answered._best_moves(game, depth, seed, limit)

    def reset(self) -> None:
        self.twin.reset()
        if self.compiled is not None:
            self.compiled.reset()

    def close(self) -> None:
        """Close both engines; a child still compiling is left to fill the cache."""
        with self._idle:  # the loader sets the compiled engine only while not closed
            self._closed = True
            compiled = self.compiled
        self._hasten()
        self.twin.close()
        if compiled is not None:
            compiled.close()


__all__ = ["WarmingEngine"]
