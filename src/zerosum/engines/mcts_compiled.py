"""Compiled Monte Carlo tree search: :class:`MctsEngine`'s algorithm in numba on a game's kernel.

:class:`CompiledMctsEngine` keeps the twin's interface, limits, results and tree reuse, and
hands the simulations to :mod:`zerosum.compiled.mcts`: on one thread in batches between which
it looks at the limits (the first batch is one simulation, so a stop is seen at once), with
``workers`` > 1 in as many threads on one shared tree until a limit stops them. Its tree is
preallocated from a memory budget (``hash_mb``, as the compiled alpha-beta's table) or sized in
nodes (``max_nodes``, as the twin's). Importing this module imports numba.

On one thread and with the same seed, options and simulation count it builds the twin's tree
(the same visits, values and proofs; progressive bias and evaluation playouts read the kernel's
evaluation, the same numbers as the game's for tic-tac-toe and othello, not for connect four).
Threads give different visit counts from run to run, and the same proven values. The kernel
contract (:mod:`zerosum.compiled.kernels`) is checked at the start position when the engine
is made, and at every node a result reads: a kernel whose move codes are not the game's moves
raises :class:`~zerosum.compiled.kernels.KernelContractError`. A kernel's
``probe`` proves a node as the game's probe does in the twin (morris: both read the endgame
databases of the default store, so the trees agree with a store as without one).
"""

from __future__ import annotations

import threading
import time
from typing import Any, Final

import numpy as np

from zerosum.compiled import DEFAULT_HASH_MB, MAX_HASH_MB
from zerosum.compiled import mcts as kernel_mcts
from zerosum.compiled.kernels import check_contract, check_move_codes, compiled_game
from zerosum.engines.base import EngineError, OnIteration
from zerosum.engines.mcts import (
    DEFAULT_EXPLORATION,
    FIRST_ITERATION,
    GAME_DEFAULTS,
    MctsEngine,
    Node,
    best_child,
)
from zerosum.game import Game, ProtocolError
from zerosum.games import get_game
from zerosum.search.core import Limit, SearchResult

_MASK64: Final = (1 << 64) - 1
_BATCH_SECONDS: Final = 0.005
"""A batch of simulations between two looks at the clock lasts about this long."""
_POLL_SECONDS: Final = 0.002
"""How often the thread that waits for the workers looks at the clock and the stop callback."""


def has_compiled_mcts(name: str) -> bool:
    """Whether the registered game ``name`` has a kernel that offers MCTS (imports numba if
    the game has a kernel at all)."""
    from zerosum.compiled import has_kernel

    return has_kernel(name) and compiled_game(name).kernel.legal is not None


class CompiledMctsEngine(MctsEngine):
    """MCTS with a solver on the kernel of the registered game ``game`` (see the header).

    The options are the twin's, plus ``hash_mb`` (the tree's memory in MiB; default
    :data:`~zerosum.compiled.DEFAULT_HASH_MB`) or ``max_nodes`` (its size in nodes, which wins
    if both are given) and ``workers`` (threads sharing the tree). ``playout`` and
    ``expand_after`` left ``None`` are the game's (:data:`GAME_DEFAULTS`). Raises
    :class:`EngineError` for a bad option or a game without such a kernel.
    """

    def __init__(
        self,
        game: str,
        *,
        exploration: float = DEFAULT_EXPLORATION,
        playout: str | None = None,
        bias: float = 0.0,
        expand_after: int | None = None,
        hash_mb: float | None = None,
        max_nodes: int | None = None,
        seed: int | None = None,
        workers: int = 1,
    ) -> None:
        if hash_mb is not None and not (0 < hash_mb <= MAX_HASH_MB):
            raise EngineError(
                f"hash_mb {hash_mb} is out of range: expected a size in MiB in (0, {MAX_HASH_MB}]"
            )
        if workers < 1:
            raise EngineError(f"workers {workers} is out of range: expected at least 1")
        if not has_compiled_mcts(game):
            raise EngineError(f"game {game!r} has no kernel for compiled MCTS")
        if max_nodes is None:
            max_nodes = kernel_mcts.capacity_of(DEFAULT_HASH_MB if hash_mb is None else hash_mb)
        defaults = GAME_DEFAULTS.get(game, {})
        super().__init__(
            exploration=exploration,
            playout=defaults.get("playout", "random") if playout is None else playout,
            bias=bias,
            expand_after=defaults.get("expand_after", 1) if expand_after is None else expand_after,
            max_nodes=max_nodes,
            seed=seed,
        )
        self.workers = workers
        self.game_name = game
        """The registered game whose positions the engine searches."""
        mapping = compiled_game(game)
        # The kernel contract (zerosum.compiled.kernels), before anything compiles: a kernel
        # whose codes are not the game's moves is an error, never a silent wrong move.
        check_contract(game, mapping, get_game(game).new())
        self._kernel = mapping.kernel
        self._state_of = mapping.state
        self._functions = kernel_mcts.functions(self._kernel, threads=workers > 1)
        self._aux = self._kernel.load_aux()
        """What the kernel's probe reads (morris: the endgame databases), loaded once."""
        self._nodes, self._values, self._io = kernel_mcts.new_tree(max_nodes)
        self._st = np.zeros(self._kernel.state_size, np.int64)
        self._rows = 0
        """Rows of the tree in use (0: no tree)."""
        self._chunk = 1
        self._threads_running = False
        """Whether worker threads grow the tree while a report reads it."""

    # -- the steps of the twin's loop ------------------------------------------------------------

    def _start(self, game: Game[Any]) -> None:
        if game.name != self.game_name:  # the kernel's arrays are sized for one game
            raise EngineError(
                f"this engine searches {self.game_name} positions: got a {game.name} position"
            )
        self._st = self._state(game)
        found = self._follow_rows(game) if game is self._game and self._rows else None
        nodes = self._nodes
        if found is not None:
            proven = nodes[found, kernel_mcts.LOWER] == nodes[found, kernel_mcts.UPPER]
            if proven and nodes[found, kernel_mcts.FIRST] < 0:
                found = None  # proven without children: the root needs its moves' children
        if found is None:
            kernel_mcts.new_root(nodes, self._values, self._io)
            self._rows = 1
        else:
            used = min(int(self._io[kernel_mcts.SIZE]), self.max_nodes)
            self._rows = self._functions.compact(nodes, self._values, found, used)
            self._io[kernel_mcts.SIZE] = self._rows
        self._game, self._root_game = game, game.copy()
        self._chunk = 1

    def _done(self, *, solving: bool) -> bool:
        return bool(self._functions.done(self._nodes, 0, solving))

    def _full(self) -> bool:
        return int(self._io[kernel_mcts.SIZE]) >= self.max_nodes

    def _batch(self, limit: Limit, simulations: int, next_report: int) -> int:
        count = next_report - simulations
        if limit.nodes is not None:
            count = min(count, limit.nodes - simulations)
        if limit.time is not None or limit.stop is not None:
            count = min(count, self._chunk)
        return max(count, 1)

    def _simulations(
        self, game: Game[Any], count: int, *, solving: bool, budgeted: bool
    ) -> tuple[int, int]:
        io, rng = self._io, np.array([kernel_mcts.signed(self._rng.state)], np.int64)
        path, moves = self._buffers()
        io[kernel_mcts.EVALUATIONS] = 0
        started = time.perf_counter()
        made = self._functions.run(
            self._st, self._nodes, self._values, io, 0, rng, path, moves, self._aux, count,
            self.exploration, self.bias, *self._playout_flags(), solving, budgeted,
        )  # fmt: skip
        elapsed = time.perf_counter() - started
        if elapsed < _BATCH_SECONDS:  # double the batch until one takes about _BATCH_SECONDS
            self._chunk *= 2
        elif elapsed > 4 * _BATCH_SECONDS and self._chunk > 1:
            self._chunk //= 2
        self._rng.state = int(rng[0]) & _MASK64
        self._rows = min(int(io[kernel_mcts.SIZE]), self.max_nodes)
        return int(made), int(io[kernel_mcts.EVALUATIONS])

    # -- threads ---------------------------------------------------------------------------------

    def _run(
        self, game: Game[Any], limit: Limit, on_iteration: OnIteration | None, *, solving: bool
    ) -> SearchResult[Any]:
        """The twin's loop on one thread; with ``workers`` > 1, the threads on one tree while
        this thread watches the limits and reports each doubling of the simulations."""
        if self.workers == 1 or game.outcome() is not None:
            return super()._run(game, limit, on_iteration, solving=solving)
        started = time.perf_counter()
        self._start(game)
        budgeted = limit.nodes is not None or limit.time is not None or limit.depth is not None
        io = self._io
        budget = limit.nodes if limit.nodes is not None else np.iinfo(np.int64).max
        if limit.depth is not None:
            budget = min(budget, FIRST_ITERATION << (limit.depth - 1))
        for slot in (kernel_mcts.STOP, kernel_mcts.STARTED, kernel_mcts.SIMULATIONS):
            io[slot] = 0
        io[kernel_mcts.EVALUATIONS] = 0
        io[kernel_mcts.LIMIT] = budget
        errors: list[BaseException] = []
        threads = [
            threading.Thread(
                target=self._work, args=(index, solving, budgeted, errors), daemon=True
            )
            for index in range(self.workers)
        ]
        if limit.stop is not None and limit.stop():
            io[kernel_mcts.STOP] = 1  # stopped already: the threads begin no simulation
        self._threads_running = True
        try:
            for thread in threads:
                thread.start()
            iteration, next_report = 0, FIRST_ITERATION
            while True:
                # As in the twin, the time is not looked at before a first simulation is done.
                expired = (
                    limit.time is not None
                    and io[kernel_mcts.SIMULATIONS] > 0
                    and time.perf_counter() - started >= limit.time
                )
                if expired or (limit.stop is not None and limit.stop()):
                    io[kernel_mcts.STOP] = 1
                # One report for every doubling passed since the last look (the last of them).
                simulations = int(io[kernel_mcts.SIMULATIONS])
                reached = iteration
                while simulations >= next_report and next_report <= budget:
                    reached += 1
                    next_report *= 2
                if reached > iteration:
                    iteration = reached
                    if on_iteration is not None and simulations < budget:  # the last: at the end
                        on_iteration(self._threads_result(game, iteration, started, solving))
                running = [thread for thread in threads if thread.is_alive()]
                if not running:
                    break
                running[0].join(_POLL_SECONDS)
        finally:  # a report that raises stops the threads too: none outlives its search
            if any(thread.is_alive() for thread in threads):
                io[kernel_mcts.STOP] = 1
            for thread in threads:
                if thread.ident is not None:
                    thread.join()
            self._threads_running = False
            self._rows = min(int(io[kernel_mcts.SIZE]), self.max_nodes)
            io[kernel_mcts.SIZE] = self._rows
        if errors:
            raise ProtocolError(f"the {game.name} kernel failed in MCTS: {errors[0]}")
        simulations = int(io[kernel_mcts.SIMULATIONS])
        while simulations >= next_report and next_report <= budget:  # since the last look
            iteration += 1
            next_report *= 2
        proven = self._done(solving=solving)
        complete = proven or (limit.depth is not None and simulations >= budget)
        if proven and simulations > (next_report // 2 if iteration else 0):
            iteration += 1
        result = self._threads_result(game, iteration, started, solving, complete=complete)
        if on_iteration is not None and complete:
            on_iteration(result)
        return result

    def _work(self, index: int, solving: bool, budgeted: bool, errors: list[BaseException]) -> None:
        """One worker thread: simulations on the shared tree until a limit stops them all."""
        seed = (0 if self.seed is None else self.seed) + index  # a stream per thread
        path, moves = self._buffers()
        try:
            self._functions.run_shared(
                self._st, self._nodes, self._values, self._io, 0,
                np.array([kernel_mcts.signed(seed)], np.int64), path, moves, self._aux,
                self.exploration, self.bias, *self._playout_flags(), solving, budgeted,
            )  # fmt: skip
        except Exception as error:  # reported by the thread that waits
            errors.append(error)
            self._io[kernel_mcts.STOP] = 1

    def _playout_flags(self) -> tuple[bool, bool, int]:
        """The kernel search's ``evaluation``, ``decisive`` and ``expand_after`` arguments."""
        return self.playout == "evaluation", self.playout == "decisive", self.expand_after

    def _threads_result(
        self, game: Game[Any], iteration: int, started: float, solving: bool, **flags: bool
    ) -> SearchResult[Any]:
        io = self._io
        simulations, evaluations = (
            int(io[kernel_mcts.SIMULATIONS]),
            int(io[kernel_mcts.EVALUATIONS]),
        )
        return self._result(game, iteration, simulations, evaluations, started, solving, **flags)

    # -- the tree as the twin's nodes, for results ---------------------------------------------

    def _root_view(self, game: Game[Any]) -> Node:
        position = game.copy()
        return self._view(0, None, position, self._state(position))

    def _view(self, row: int, move: Any, game: Game[Any], st: np.ndarray[Any, Any]) -> Node:
        """Row ``row`` (``game`` and ``st`` at its position) as a twin's node with its children,
        and the best child's children, down the best line."""
        node = self._leaf(row, move)
        nodes = self._nodes
        untried = int(nodes[row, kernel_mcts.UNTRIED])
        if untried == kernel_mcts.NOT_LISTED:
            return node
        legal = game.legal_moves()
        codes = self._legal_codes(st)
        check_move_codes(self.game_name, game, codes, every=True)  # a KernelContractError
        move_of = dict(zip(codes, legal, strict=True))
        rows: list[int] = []
        child = int(nodes[row, kernel_mcts.FIRST])
        while child >= 0:
            rows.append(child)
            node.children.append(self._leaf(child, move_of[int(nodes[child, kernel_mcts.MOVE])]))
            child = int(nodes[child, kernel_mcts.NEXT])
        tried = {int(nodes[r, kernel_mcts.MOVE]) for r in rows}
        node.untried = [m for code, m in zip(codes, legal, strict=True) if code not in tried]
        # A thread links a new child before its move leaves the untried count, so a report
        # read while threads run can see both; a tree at rest must agree.
        agrees = self._threads_running or len(node.untried) == untried
        assert agrees, "a node's untried count disagrees with its children"
        best = best_child(node)
        if best is not None:
            at = node.children.index(best)
            after = st.copy()  # a copy, not undo: a kernel's undo may not reach this far back
            self._kernel.play(after, int(nodes[rows[at], kernel_mcts.MOVE]))
            game.make(best.move)
            node.children[at] = self._view(rows[at], best.move, game, after)
            game.undo()
        return node

    def _leaf(self, row: int, move: Any) -> Node:
        nodes, values = self._nodes, self._values
        node = Node(
            move,
            int(nodes[row, kernel_mcts.LOWER]),
            int(nodes[row, kernel_mcts.UPPER]),
            float(values[row, kernel_mcts.PRIOR]),
        )
        node.visits = int(nodes[row, kernel_mcts.VISITS])
        node.total = float(values[row, kernel_mcts.TOTAL])
        return node

    # -- tree reuse --------------------------------------------------------------------------------

    def _follow_rows(self, game: Game[Any]) -> int | None:
        """The row of ``game``'s position among the old root's descendants, if any (the twin's
        ``_follow``, comparing the kernel's keys)."""
        before = self._root_game
        if before is None:
            return None
        plies = game.ply() - before.ply()
        if plies < 0:
            return None
        nodes, key = self._nodes, self._kernel.key
        target = key(self._st)
        st = self._state(before)
        level: list[tuple[int, tuple[int, ...]]] = [(0, ())]
        for _ in range(plies):
            deeper = []
            for row, line in level:
                child = int(nodes[row, kernel_mcts.FIRST])
                while child >= 0:
                    deeper.append((child, (*line, int(nodes[child, kernel_mcts.MOVE]))))
                    child = int(nodes[child, kernel_mcts.NEXT])
            level = deeper
        for row, line in level:
            for code in line:
                self._kernel.play(st, code)
            same = key(st) == target
            for code in reversed(line):
                self._kernel.undo(st, code)
            if same:
                return row
        return None

    # -- helpers ----------------------------------------------------------------------------------

    def _state(self, game: Game[Any]) -> np.ndarray[Any, Any]:
        st = np.zeros(self._kernel.state_size, np.int64)
        values = self._state_of(game)
        st[: len(values)] = values
        return st

    def _legal_codes(self, st: np.ndarray[Any, Any]) -> list[int]:
        out = np.zeros(max(self._kernel.max_moves, 1), np.int64)
        count = self._functions.legal(st, out)
        return [int(code) for code in out[:count]]

    def _buffers(self) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
        """A thread's path and move list."""
        return (
            np.zeros(kernel_mcts.path_size(), np.int64),
            np.zeros(self._kernel.max_moves, np.int64),
        )

    @property
    def tree_size(self) -> int:
        return self._rows

    @property
    def memory_bytes(self) -> int:
        """The bytes of the preallocated tree (fixed for the engine's life)."""
        return int(self._nodes.nbytes + self._values.nbytes)

    def reset(self) -> None:
        super().reset()
        self._rows = 0

    def close(self) -> None:
        """Forget the tree and give its memory back (the engine is not used again)."""
        self.reset()
        self._nodes, self._values, self._io = kernel_mcts.new_tree(0)


__all__ = ["CompiledMctsEngine", "has_compiled_mcts"]
