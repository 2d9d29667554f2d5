"""Distributed exact solving: a solve split into work units, results kept in the store.

The tree of the first ``split`` plies below the root is expanded here; every position at its
leaves (transpositions merged) is a *work unit*, solved exactly by the compiled engine in a
task of an :class:`~zerosum.runtime.executor.Executor` (the local pool or Ray). Each unit's
result is put into the :class:`~zerosum.store.Store` the moment it arrives (and so is every inner
position of the tree once its result is proven), so an interrupted solve loses nothing: the
next run finds those results in the store and sends only what is missing.

Which units are sent, and in which order. Every position of the tree carries an interval of
ranks it may still have: a unit not yet solved spans its kernel's ``rank_range``, a solved one
is a point, an inner position takes the negamax of its children's intervals. A unit is
*needed* only if its result can still change the root's value: walking down from the root with
the window ``(a, b)`` in which a position's exact value matters, a child is only worth
knowing if it can beat what its siblings already guarantee (``max(a, guaranteed)``), and only
below ``b`` (``needed_units``). This is alpha-beta over the unit tree with exact leaves: as
results arrive, whole subtrees stop being needed, those units are never sent and running ones
are cancelled. Units go out in the tree's order (depth first, the most promising move first,
as the kernel orders moves), so the results that prune most arrive early. A unit is solved in
the window where its rank matters; only exact results go into the store.

Scouts. A child whose sibling already guarantees its parent more than the parent's window
does is first sent only as a null-window test at that guarantee (does it beat it?), as a scout
search does (``needed``): most children do not, and one null-window search proves it, where
a solve in the whole window would go on to narrow a rank that no longer matters. Only a child
that beats it is then solved in its window.

Windows that move while a unit runs. A unit sent before the results that decide its window
(a sibling sent while its eldest brother still runs, a root move's unit before the root's rank
is known) is told its new window the moment it changes (:meth:`Executor.narrow
<zerosum.runtime.executor.Executor.narrow>`), and goes on in it: the compiled solve reads its
window before each null-window test and drops a running test that the new window no longer
needs (``solve_live``), so a sibling sent in the whole window turns into the scout's null-window
test once its eldest brother answers, with what it proved so far in its table. Such a unit
answers the bounds its tests proved (:attr:`UnitAnswer.proven`), whichever window it ended in.

Units that split while they run. With a ``budget`` (nodes or seconds), a worker that would
otherwise idle (no needed unit left to send) gets work by splitting: the running unit that has
run longest, and at least its budget, is asked to stop
(:meth:`~zerosum.runtime.executor.Executor.split`; it stops within milliseconds) and answers
with what its table proved instead of a rank: bounds on the ranks of the unit and of the
positions up to ``REPORT_PLIES`` below it (``UnitAnswer.bounds``; the exact ones go into the
store), and its worker's table (``UnitAnswer.table``: its deepest entries, those that stand
for the most work, at most ``SNAPSHOT_ENTRIES``). The unit is then *split*: its position
becomes an inner position of the tree and its children become units, which go out in the
windows where they matter, carrying those bounds, with that table loaded into their workers'
tables first, so that they start from everything the stopped unit proved. So idle workers
always have work while the solve is unfinished, and a unit is never split while every worker
is busy (a split costs the table entries that do not fit the snapshot, and transpositions
between units on different workers: the price of splitting). A split position stays split: a
transposition that reaches it later is expanded the same way. The first of the children goes
out first, to the worker that ran the split unit if that worker is free
(:meth:`~zerosum.runtime.executor.Executor.submit_on`; the Ray pool chooses so, local processes
take the next free one): that worker's own table holds the child's subtree, more than the
snapshot does. With ``split_busy``, the running unit first in the tree's order is split once
past its budget even while every worker is busy (tried, not the default: see
``docs/parallel.md``). Without a budget a unit runs to its end.

Workers share their tables. A unit that runs at least ``SHARE_S`` sends its worker's table
back with its rank (a :class:`TableSnapshot`, as a split unit does), and every unit goes out
with the latest tables of the last ``SHARED_TABLES`` workers that sent one; a worker loads
each other worker's table once and skips its own, so a position proven on one node is not
proven again on another when a unit there transposes into it.

Younger brothers of a long unit wait for it. A unit after a running unit in their parent's
move order (its younger brother) goes after the other needed units once that unit was sent at
least ``SIBLINGS_WAIT_S`` ago: their subtrees meet, and on another worker, without the long
unit's table (it is sent back only when it answers), a younger brother's test can cost several
times what it costs with that table (three of five best-move tests on one position cost 3 to
50 times more; ``docs/parallel.md``). Such a unit still goes when nothing else is needed, so no
worker idles for it; the running units and their elder brothers keep their places.

A unit searched again starts from its last run's table. A unit that answers a bound (its
rank lies outside the window it was sent in, a scout's fail high say) after at least
``HANDOVER_NODES`` nodes sends its worker's table back with it; if the unit is needed again in
another window (the re-search after a scout's fail high, a best move's test), that run loads
the table first, as a split unit's children do. A search again in a new window from an empty
table would repeat most of the first run, which the serial solver's own table saves it.

Cancelled units stop. A running unit that a result made unneeded is asked to stop
(:meth:`~zerosum.runtime.executor.Executor.stop`), so its worker is free again within
milliseconds; the bounds it proved before it stopped are taken in as a split unit's are (the
exact ones stored), and the table it sends back is kept for the unit's next run, if it is
needed again later (its worker's table keeps the rest for the units it runs next).

The root's moves (``moves="best"`` or ``"all"``, what ``solve`` prints). The same walk, started
from the root's children instead of the root: for every move's exact rank, each child in the
full window; for the best moves, once the root's rank ``v`` is known, each child in the null
window at ``-v`` (at most ``-v``: the move keeps the rank; above: it does not), as the local
solver's ``best_moves`` does. The root is then expanded even when its rank is stored.
"""

from __future__ import annotations

import os
import socket
import time
from collections import deque
from collections.abc import Callable, Iterable
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Final

import numpy as np

from zerosum.compiled.engine import (
    EXACT,
    LOWER,
    NO_SCORE,
    UPPER,
    _flag,
    _score,
    next_test,
    probe,
    rank_of_lower_bound,
    rank_of_upper_bound,
)
from zerosum.compiled.kernels import compiled_game
from zerosum.compiled.snapshots import TableSnapshot, load_snapshot, snapshot
from zerosum.compiled.solver import Solver
from zerosum.game import Game, ZerosumError
from zerosum.games import get_game
from zerosum.runtime.executor import Executor, Shared, unit_stop, unit_window
from zerosum.search.core import Limit
from zerosum.store import Store

DEFAULT_SPLIT: Final = 2
"""Plies below the root where the work units are cut."""
REPORT_PLIES: Final = 3
"""How far below a stopped unit its table's bounds are sent back."""
SHARE_S: Final = 1.0
"""How long a unit given other workers' tables runs before it sends its own back."""
SIBLINGS_WAIT_S: Final = 1.0
"""How long after a unit was sent its younger brothers wait behind the other needed units
(``siblings_wait``), if it still runs."""
SHARED_TABLES: Final = 2
"""How many workers' latest tables go with each unit (the workers that sent one last)."""
SNAPSHOT_ENTRIES: Final = 1 << 18
"""How many table entries (24 bytes each) a stopped unit sends back for its children's units
(:class:`TableSnapshot`)."""
HANDOVER_NODES: Final = 1 << 18
"""How many nodes a unit that answers a bound searches before it sends its table back, for
its next run in another window (:func:`hands_over`)."""
KEPT_TABLES: Final = 32
"""How many such tables the coordinator keeps (the latest; each at most
:data:`SNAPSHOT_ENTRIES` entries)."""
DEFAULT_RATE: Final = 5_000_000.0
"""Nodes per second assumed of a worker until the first answers tell (a budget in nodes)."""
_MAX_DOUBLINGS: Final = 10
_POLL_S: Final = 0.05
_UNBOUNDED: Final = 1 << 30


@dataclass(frozen=True)
class Budget:
    """How long a work unit runs before it may be split, when a worker would otherwise idle
    (either or both); :func:`solve_unit` takes it as a hard limit."""

    nodes: int | None = None
    """Nodes of the unit's search."""
    seconds: float | None = None
    """Seconds of the unit's search."""

    def __post_init__(self) -> None:
        if self.nodes is not None and self.nodes < 1:
            raise ValueError(f"a unit budget of {self.nodes} nodes: expected 1 or more")
        if self.seconds is not None and not self.seconds > 0:
            raise ValueError(f"a unit budget of {self.seconds} s: expected more than 0")

    def limit(self) -> Limit:
        return Limit(nodes=self.nodes, time=self.seconds)


@dataclass(frozen=True)
class UnitAnswer:
    """What a work unit sends back."""

    rank: int | None
    """The rank inside the unit's window, else the bound the engine failed soft to (see
    :func:`solve_unit`); ``None`` if it was stopped (its budget, or the executor)."""
    nodes: int
    """Nodes the unit searched."""
    seconds: float
    """Seconds the unit took."""
    bounds: tuple[tuple[int, int, int], ...] = ()
    """For a stopped unit: ``(canonical key, lo, hi)``, the ranks its table proved for its
    position and those up to :data:`REPORT_PLIES` below it (only where it narrowed them)."""
    table: Any = None
    """For a stopped unit: its worker's table (a :class:`TableSnapshot`), for the tables of its
    children's units if it is split, so that they start from everything it proved."""
    proven: tuple[int, int] | None = None
    """For a unit whose window could move while it ran (:meth:`Executor.narrow
    <zerosum.runtime.executor.Executor.narrow>`): the least and most its rank can be, as its
    tests proved (``rank`` then answers the window it ended in, which the caller may not
    know)."""


@dataclass(frozen=True)
class SharedTable:
    """A worker's table that goes with many units (:data:`SHARED_TABLES`), shared once by the
    executor (in Ray's object store, say): a unit reads it only if it loads it."""

    origin: str
    """:attr:`TableSnapshot.origin` of the table."""
    worker: str
    """:attr:`TableSnapshot.worker` of the table."""
    table: Shared[TableSnapshot]
    """The table, through the executor."""

    def get(self) -> TableSnapshot:
        """The table."""
        return self.table.get()


def hands_over(window: tuple[int, int], answer: UnitAnswer) -> bool:
    """Whether a unit sent in ``window`` that gave ``answer`` sends its table back for its next
    run: its answer is a bound (outside the window, or not exact if its window moved, so the
    unit may be searched again in another one) and it ran at least :data:`HANDOVER_NODES`
    nodes."""
    low, high = window
    if answer.proven is not None:
        bound = answer.proven[0] < answer.proven[1]
    else:
        bound = answer.rank is None or not low < answer.rank < high
    return bound and answer.nodes >= HANDOVER_NODES


KEPT_SOLVERS: Final = 2
"""How many solvers (each with its table) a worker process keeps, the latest used: a worker
that outlives its command (:mod:`zerosum.runtime.pool`) holds no more than these."""


@lru_cache(maxsize=KEPT_SOLVERS)
def _unit_solver(game: str, hash_mb: float) -> Solver:
    return Solver(game, hash_mb=hash_mb)


_loaded: set[str] = set()
"""The shared tables this worker process took in (their origins)."""
_made = [0]
"""How many tables this worker process has sent back."""


def _origin() -> str:
    _made[0] += 1
    return f"{socket.gethostname()}:{os.getpid()}#{_made[0]}"


def solve_unit(
    game: str,
    position: str,
    window: tuple[int, int],
    weak: bool,
    hash_mb: float,
    budget: Budget | None = None,
    table: Any = None,
    shared: tuple[Any, ...] | None = None,
    handover: bool = True,
    first: int | None = None,
) -> UnitAnswer:
    """A work unit, run in a task: the rank of ``position`` if it lies inside ``window``, else
    a bound (the engine fails soft: an answer at or below the low end is an upper bound, one at
    or above the high end a lower bound), the nodes and seconds it took. A unit stopped by
    ``budget``, or by the executor (:func:`~zerosum.runtime.executor.unit_stop`: cancelled, or
    to be split), answers ``rank=None`` and what its table proved (:class:`UnitAnswer`).

    ``table`` (a :class:`TableSnapshot`, or one shared by the executor: a
    :class:`~zerosum.runtime.executor.Shared`) goes into the table first: what a stopped unit
    above proved. ``shared`` are other workers' tables (:class:`SharedTable`, or
    :class:`TableSnapshot`): each goes into the table once, unless it comes from this worker
    (a shared one is read from the executor's store only then); a unit given them (``()``
    too: none yet) that runs at least :data:`SHARE_S` sends its own table back with its rank,
    for the others. ``handover``: a unit that answers a bound sends its table back for its next run
    (:func:`hands_over`; False when there is only one worker, whose table holds it already).
    ``first``: the rank of its first null-window test, if it lies in the window
    (:meth:`_Tree.first_test`). The unit's window may move while it runs
    (:func:`~zerosum.runtime.executor.unit_window`); it answers the bounds it proved
    (:attr:`UnitAnswer.proven`). The solver (and its table) is kept for the life of the worker
    process."""
    solver = _unit_solver(game, hash_mb)
    engine = solver.engine
    here = f"{socket.gethostname()}:{os.getpid()}"
    if isinstance(table, Shared):
        table = table.get()
    for other in shared or ():
        if table is not None and other.origin == table.origin:
            continue  # loaded below
        if other.worker != here and other.origin not in _loaded:
            _loaded.add(other.origin)
            load_snapshot(
                engine.keys, engine.data, other.get() if isinstance(other, SharedTable) else other
            )
    if table is not None:
        load_snapshot(engine.keys, engine.data, table)
    start = get_game(game).from_position(position)
    stop = unit_stop()  # the executor's request to stop (a cancelled unit), if it can send one
    moved = unit_window()  # the window the coordinator asks for now, if it can send one
    limit = None if budget is None else budget.limit()
    if stop is not None:
        limit = Limit(stop=stop) if limit is None else replace(limit, stop=stop)
    solution = engine.solve(
        solver.state(start),
        weak=weak,
        window=window,
        limit=limit,
        live=moved or (lambda: None),
        first=first,
        keep=True,  # the units of a solve are related: earlier units' proofs stay
    )
    stats = solution.stats
    if solution.complete:
        rank = int(solution.rank)
        proven = solution.bounds
        answer = UnitAnswer(rank, stats.nodes, stats.time_s, proven=proven)
        if (shared is not None and stats.time_s >= SHARE_S) or (
            handover and hands_over(window, answer)
        ):
            answer = replace(
                answer, table=snapshot(engine.keys, engine.data, SNAPSHOT_ENTRIES, _origin())
            )
        return answer
    bounds = table_bounds(solver, start, REPORT_PLIES)
    kept = snapshot(engine.keys, engine.data, SNAPSHOT_ENTRIES, _origin())
    return UnitAnswer(None, stats.nodes, stats.time_s, bounds, kept)


def warm_unit(game: str, hash_mb: float) -> None:
    """What a worker's first unit would load, loaded ahead of it (:meth:`Executor.warm
    <zerosum.runtime.executor.Executor.warm>`): the solver with its table, and the compiled
    solve (a search of one node). A worker that has the solver already (one kept from an
    earlier solve, :mod:`zerosum.runtime.pool`) clears its table instead: every solve starts
    from an empty table, as in a fresh process, so its node counts do not depend on what ran
    before."""
    hits = _unit_solver.cache_info().hits
    solver = _unit_solver(game, hash_mb)
    if _unit_solver.cache_info().hits > hits:  # kept: an earlier solve's table
        solver.engine.clear()
        _loaded.clear()  # what it took in is gone with it (a pool worker lives on)
    new = solver.state(get_game(game).new())
    solver.engine.solve(new, limit=Limit(nodes=1))
    solver.engine.solve(new, limit=Limit(nodes=1), live=lambda: None)  # a unit's solve


def load_coordinator(game: Game[Any]) -> None:
    """Load what :func:`solve_distributed` needs of ``game``'s compiled kernel to build its
    unit tree (numba loads each function from its cache at its first call, about 0.6 s in all
    here), so that a caller can do it while it waits for something else (a cluster to join)."""
    solver = _unit_solver(game.name, 1)
    kernel, state = solver.compiled.kernel, solver.state(game)
    kernel.rank_range(state)
    kernel.decided(state)
    kernel.moves(state, np.zeros(kernel.max_moves, np.int64))
    solver.compiled.canonical_key(game)


def table_bounds(solver: Solver, game: Game[Any], plies: int) -> tuple[tuple[int, int, int], ...]:
    """What ``solver``'s table proved of ``game`` and the positions up to ``plies`` below it:
    ``(canonical key, lo, hi)`` where an entry narrows a position's rank range (every entry of
    an exact solve is a true bound, a fail-soft score with its flag, whichever window it was
    searched in)."""
    kernel = solver.compiled.kernel
    engine = solver.engine
    found: dict[int, tuple[int, int]] = {}

    def walk(position: Game[Any], below: int) -> None:
        if position.outcome() is not None:
            return
        state = solver.state(position)
        entry = int(probe(engine.keys, engine.data, int(kernel.key(state))))
        if entry != 0:
            least, most = (int(end) for end in kernel.rank_range(state))
            lo, hi = least, most
            score, flag = int(_score(entry)), int(_flag(entry))
            if flag in (EXACT, LOWER):
                lo = max(lo, int(rank_of_lower_bound(score)))
            if flag in (EXACT, UPPER):
                hi = min(hi, int(rank_of_upper_bound(score)))
            if (lo, hi) != (least, most) and lo <= hi:
                found[solver.compiled.canonical_key(position)] = (lo, hi)
        if below > 0:
            for move in position.legal_moves():
                child = position.copy()
                child.make(move)
                walk(child, below - 1)

    walk(game.copy(), plies)
    return tuple((key, lo, hi) for key, (lo, hi) in found.items())


def root_tests(lo: int, hi: int, count: int) -> list[int]:
    """The ranks ``middle`` of up to ``count`` null-window tests ``(middle, middle + 1)`` of a
    position whose rank lies in ``[lo, hi]``, to run at once: the engine's next test
    (:func:`~zerosum.compiled.engine.next_test`) first, then the tests that would follow each
    of its outcomes (at most ``middle``: ``[lo, middle]``; above: ``[middle + 1, hi]``), and
    so on, breadth first: whatever the outcomes, the first ``log2(count + 1)`` tests the engine
    would run one after the other are among them (all ``hi - lo`` ranks if ``count`` is as
    large), so one round of them halves the interval that many times."""
    found: list[int] = []
    intervals = deque([(lo, hi)])
    while intervals and len(found) < count:
        low, high = intervals.popleft()
        if low >= high:
            continue
        middle = int(next_test(low, high))
        found.append(middle)
        intervals.extend([(low, middle), (middle + 1, high)])
    return found


@dataclass
class _Node:
    """A position of the unit tree."""

    game: Game[Any]
    key: int
    lo: int
    hi: int
    children: list[_Node] = field(default_factory=list)
    unit: bool = False
    """A leaf sent as a work unit (not proven yet when the tree was built)."""
    move: Any = None
    """The move from the parent that leads here."""
    parent: _Node | None = None

    @property
    def exact(self) -> bool:
        return self.lo == self.hi


@dataclass(frozen=True)
class DistributedResult:
    """The outcome of :func:`solve_distributed`."""

    rank: int | None
    """The exact rank (Pons's score for connect four; -1/0/1 if weak), None if stopped."""
    units: int
    """Work units in the tree (distinct positions at the split ply or below a split unit, or
    finished earlier), split ones included."""
    from_store: int
    """Units (or the root) whose result was already in the store."""
    solved: int
    """Units solved by tasks in this run."""
    cancelled: int
    """Tasks cancelled because a result made their unit unnecessary."""
    nodes: int
    """Nodes searched by this run's tasks."""
    time_s: float
    """Seconds of the whole call: the root's rank and the moves asked for."""
    stored: bool = False
    """The root's rank came from the store."""
    solve_s: float = 0.0
    """Seconds until the root's rank was proven (the rest of ``time_s`` went to the moves)."""
    solve_nodes: int = 0
    """Nodes of the units that came back before the root's rank was proven (the rest of
    ``nodes`` went to the moves)."""
    moves: tuple[tuple[Any, int], ...] = ()
    """With ``moves="all"``: every legal move with its exact rank for the side to move at the
    root, in the game's order of legal moves (only the ones proven, if stopped); with
    ``moves="best"``: the ones that happened to be proven."""
    best_moves: tuple[Any, ...] = ()
    """With ``moves`` asked for: every move that keeps the root's rank (empty if stopped)."""
    moves_complete: bool = False
    """Everything ``moves`` asked for is known (always True without ``moves``, once solved)."""
    splits: int = 0
    """Units stopped (for idle workers, once past their budget) and split into their
    children."""
    stopped: int = 0
    """Units cancelled while they ran that stopped at once when asked (their worker free
    again, what they proved taken in); counted in ``cancelled`` too."""
    preempted: int = 0
    """Units stopped for needed units earlier in the tree's order (``preempt``) and sent again
    later from their tables."""
    narrowed: int = 0
    """Times a running unit was told that its window moved (:meth:`Executor.narrow
    <zerosum.runtime.executor.Executor.narrow>`) and went on in the new one."""

    @property
    def complete(self) -> bool:
        return self.rank is not None


MAX_TREE: Final = 100_000
"""The most positions the first ``split`` plies may expand to here (in Python, a copy of the
game each): connect four's 7 moves give 16,807 at split 5; ``--split 1000`` expanded the whole
game tree below the root, without end or bound on memory."""


class SplitError(ZerosumError, ValueError):
    """A ``split`` whose tree of work units would be too large to expand."""


class _Tree:
    """The unit tree of a root position and what is known of it."""

    def __init__(
        self,
        solver: Solver,
        store: Store,
        root: Game[Any],
        split: int,
        *,
        weak: bool,
        moves: bool = False,
    ):
        self.solver, self.store, self.weak = solver, store, weak
        self.units: dict[int, list[_Node]] = {}
        """Every unit's key, with the tree positions that are that unit."""
        self.split_keys: set[int] = set()
        """Units stopped and split into their children."""
        self.generation: dict[int, int] = {}
        """How many splits above a unit: with ``doubling``, its budget doubles with each (for
        cold tables, which made the children of a split cost more than their parent; warm
        workers, a split unit's first child on its worker and windows that move made it
        slower, so it is off by default)."""
        self.made: set[int] = set()
        """Every key that was ever a unit."""
        self.tables: dict[int, Any] = {}
        """The table a stopped unit sent back (:class:`TableSnapshot`), for its children's
        units, by their keys, until they are sent."""
        self.known: dict[int, tuple[int, int]] = {}
        """Bounds proven for positions (by answers in a window, or a stopped unit's table)."""
        self.at: dict[int, list[_Node]] = {}
        """The positions of the tree that are not known at once, by key."""
        self.stale: list[_Node] = []
        """Inner positions whose children changed since the last :meth:`update`."""
        self.from_store = 0
        self._split = split
        self._expanded = 0
        """Positions :meth:`_expand` has made (bounded by :data:`MAX_TREE`)."""
        self.root = self._expand(root.copy(), split, expand=moves)
        self.stored = (
            root.outcome() is None and store.get(solver.name, self.root.key, weak=weak) is not None
        )
        """The root's result came from the store."""

    def _expand(self, game: Game[Any], plies: int, *, expand: bool = False) -> _Node:
        """The tree below ``game``, ``plies`` deep; a position whose result is known (stored,
        decided at once) is a leaf, unless ``expand`` asks for its moves anyway."""
        self._expanded += 1
        if self._expanded > MAX_TREE:
            raise SplitError(
                f"split {self._split}: the work units' tree passes {MAX_TREE:,} positions "
                "below the root: expected fewer plies (--split)"
            )
        solver = self.solver
        key = solver.compiled.canonical_key(game)
        if game.outcome() is not None:
            rank = self._weak(solver._terminal_rank(game))
            return _Node(game, key, rank, rank)
        kernel = solver.compiled.kernel
        state = solver.state(game)
        lo, hi = (-1, 1) if self.weak else (int(end) for end in kernel.rank_range(state))
        known = self.store.get(solver.name, key, weak=self.weak)
        decided = int(kernel.decided(state))
        if known is not None:
            self.from_store += 1
            lo = hi = known
        elif decided != NO_SCORE:
            lo = hi = self._weak(int(rank_of_lower_bound(decided)))
        elif key in self.known:
            lo, hi = max(lo, self.known[key][0]), min(hi, self.known[key][1])
        node = _Node(game, key, lo, hi)
        if node.exact and not expand:
            return node
        self.at.setdefault(key, []).append(node)
        if plies == 0 and key not in self.split_keys:
            node.unit = True
            self.units.setdefault(key, []).append(node)
            self.made.add(key)
            return node
        self._grow(node, max(plies, 1))
        self.stale.append(node)
        return node

    def _grow(self, node: _Node, plies: int) -> None:
        """Give ``node`` its children, the tree below each ``plies - 1`` deep."""
        game, kernel = node.game, self.solver.compiled.kernel
        state = self.solver.state(game)
        moves = np.zeros(kernel.max_moves, np.int64)
        count = int(kernel.moves(state, moves))
        order = [int(move) for move in moves[:count]]
        # the kernel's order (best first) for the moves it offers, then the other legal moves
        legal = game.legal_moves()
        for move in sorted(legal, key=lambda m: order.index(m) if m in order else len(order)):
            child = game.copy()
            child.make(move)
            node.children.append(self._expand(child, plies - 1))
            node.children[-1].move = move
            node.children[-1].parent = node

    def split(self, key: int) -> list[int]:
        """The unit ``key`` was stopped to be split: its positions get their children, which
        become units (or are known already), one generation of splits further down; returns
        the keys of those new units."""
        self.split_keys.add(key)
        below = self.generation.get(key, 0) + 1
        units: list[int] = []
        for node in self.units.pop(key, []):
            node.unit = False
            if not node.exact:
                self._grow(node, 1)
                self.stale.append(node)
                for child in node.children:
                    if child.unit:
                        self.generation[child.key] = max(self.generation.get(child.key, 0), below)
                        units.append(child.key)
        return units

    def absorb(self, bounds: Iterable[tuple[int, int, int]]) -> list[tuple[int, int]]:
        """Take in a stopped unit's :attr:`UnitAnswer.bounds`; returns the positions (key,
        rank) they prove exactly, which were not known exactly before."""
        proven = []
        for key, lo, hi in bounds:
            before = self.known.get(key)
            self.learn(key, self._weak(lo), self._weak(hi))
            lo, hi = self.known[key]
            if lo == hi and (before is None or before[0] != before[1]):
                proven.append((key, lo))
        return proven

    def learn(self, key: int, lo: int, hi: int) -> None:
        """Take in bounds proven for the position ``key`` (on the weak scale if the solve is
        weak): kept for the positions of the tree that are (or will be) ``key``."""
        if key in self.known:
            lo, hi = max(lo, self.known[key][0]), min(hi, self.known[key][1])
        self.known[key] = (lo, hi)
        for node in self.at.get(key, []):
            if not node.unit:  # an inner position: recomputed with what is known of it
                self.stale.append(node)
            elif node.lo < lo or node.hi > hi:
                node.lo, node.hi = max(node.lo, lo), min(node.hi, hi)
                if node.parent is not None:
                    self.stale.append(node.parent)

    def _weak(self, rank: int) -> int:
        return (rank > 0) - (rank < 0) if self.weak else rank

    def settle(self, key: int, window: tuple[int, int], rank: int) -> bool:
        """Take in a unit's answer to a solve in ``window``: the rank inside the window, else
        a bound (at most an answer at or below the low end, at least one at or above the high
        end); returns whether the unit is exact now."""
        rank = self._weak(rank)
        low, high = window
        # The engine fails soft: an answer outside the window is a bound, not the rank.
        if low < rank < high:  # exact
            self.learn(key, rank, rank)
        elif rank <= low:  # at most this
            self.learn(key, -_UNBOUNDED, rank)
        else:  # at least this
            self.learn(key, rank, _UNBOUNDED)
        nodes = self.units.get(key, [])
        return bool(nodes) and nodes[0].exact

    def first_test(self, key: int, window: tuple[int, int]) -> int | None:
        """The first null-window test of unit ``key`` in ``window`` when a run of it proved a
        bound at an end of that window (the re-search after a null-window test failed there,
        as in PVS): next to that end, where its rank most often lies (the engine's own first
        test is near the middle, or near an extreme of a wide window); None otherwise."""
        low, high = window
        if high - low <= 1 or key not in self.known:
            return None
        least, most = self.known[key]
        if most == high:  # it is at most ``high``: is it at most ``high - 1``?
            return high - 1
        if least == low:  # at least ``low``: at most ``low``?
            return low
        return None

    def prove(self, key: int, least: int, most: int) -> bool:
        """Take in a unit's answer given as the bounds its tests proved (its window moved while
        it ran, :attr:`UnitAnswer.proven`); returns whether the unit is exact now."""
        self.learn(key, self._weak(least), self._weak(most))
        nodes = self.units.get(key, [])
        return bool(nodes) and nodes[0].exact

    def _recompute(self, node: _Node) -> bool:
        """``node``'s interval from its children's (and what is known of it); returns whether
        it changed."""
        lo = max(-child.hi for child in node.children)
        hi = max(-child.lo for child in node.children)
        if node.key in self.known:  # what a stopped unit proved of itself
            lo, hi = max(lo, self.known[node.key][0]), min(hi, self.known[node.key][1])
        changed = (lo, hi) != (node.lo, node.hi)
        node.lo, node.hi = lo, hi
        return changed

    def update(self, *, full: bool = False) -> list[_Node]:
        """Recompute the inner intervals: the ancestors of what changed since the last call,
        or (``full``) every one; returns the inner positions newly proven."""
        proven: list[_Node] = []

        def walk(node: _Node) -> None:
            # Below an exact position too: the root's moves may still be narrowing.
            for child in node.children:
                walk(child)
            if node.children and not node.exact and self._recompute(node) and node.exact:
                proven.append(node)

        if full:
            self.stale.clear()
            walk(self.root)
        while self.stale:
            node = self.stale.pop()
            if node.exact or not node.children or not self._recompute(node):
                continue
            if node.exact:
                proven.append(node)
            if node.parent is not None:
                self.stale.append(node.parent)
        return proven

    def needed(
        self,
        moves: str | None = None,
        *,
        scouts: bool = True,
        young_wait: bool = False,
        tests: bool = False,
        at_once: int = 1,
        settled: bool = False,
    ) -> dict[int, tuple[int, int]]:
        """The units whose result can still change the root's value, in tree order (see the
        module docstring), each with the rank window ``[low, high]`` in which it matters: a
        solve in that window says the rank, or that it is at most ``low`` or at least
        ``high``. With ``moves="all"``, what can change any root move's rank; with
        ``moves="best"``, once the root is exact, what can still tell whether a move keeps
        its rank ``v`` (a child at most ``-v``: best; at least ``-v + 1``: not).

        ``scouts``: a child whose sibling already guarantees its parent more than the window
        does is first only tested in the null window at that guarantee (does it beat it?),
        as a scout search does; only a child that beats it is then solved in its window.

        ``young_wait``: the units below a position's younger children while its eldest child
        still has needed units are *speculative* (the eldest may refute the position, as the
        young brothers wait rule says); they come after all the others, each part in tree
        order.

        ``settled``: a child is tested in a null window only against a brother's exact rank;
        against a bound a brother has proven so far (it may rise again, and the test with it),
        it is solved in its window, whose end moves with that bound.

        ``tests``: the root's rank is found as the engine finds a unit's, by null-window tests
        that halve its interval (:func:`~zerosum.compiled.engine.next_test`): the units needed
        are those that can decide the current test, each in a null window, none in a wide one.
        ``at_once`` (with ``tests``): up to that many tests at once, the current one and the
        tests that would follow its outcomes (:func:`root_tests`); the later tests' units are
        speculative (after all the current test's), and a unit already needed by an earlier
        test keeps that test's window."""
        wanted: dict[int, tuple[int, int]] = {}
        speculative: set[int] = set()

        def walk(node: _Node, a: int, b: int, guess: bool) -> bool:
            """Whether anything below ``node`` is needed."""
            if node.exact or node.lo >= b or node.hi <= a:
                return False
            if node.unit:
                if node.key not in wanted:
                    wanted[node.key] = (max(a, node.lo), min(b, node.hi))
                    if guess:
                        speculative.add(node.key)
                elif not guess:  # also reached as a certain unit
                    speculative.discard(node.key)
                return True
            guarantees = [-child.hi for child in node.children]
            below = eldest = False
            for index, child in enumerate(node.children):
                others = max((g for i, g in enumerate(guarantees) if i != index), default=a)
                bound = max(a, others)
                young = guess or (young_wait and index > 0 and eldest)
                scout = scouts and others > a and -bound < child.hi and -bound - 1 > -b
                if scout and settled:  # only against a brother's exact rank, not a bound
                    scout = any(
                        i != index and brother.exact and -brother.hi == others
                        for i, brother in enumerate(node.children)
                    )
                if scout:
                    # A sibling guarantees ``bound``: first only whether this child beats it.
                    found = walk(child, -bound - 1, -bound, young)
                else:
                    found = walk(child, -b, -bound, young)
                if index == 0:
                    eldest = found
                below = below or found
            return below

        root = self.root
        if moves == "all":
            for child in root.children:
                walk(child, -_UNBOUNDED, _UNBOUNDED, False)
        elif moves == "best" and root.exact:
            for child in root.children:
                walk(child, -root.lo, -root.lo + 1, False)
        elif tests and root.children and not root.exact:
            for index, middle in enumerate(root_tests(root.lo, root.hi, at_once)):
                walk(root, middle, middle + 1, index > 0)
        else:
            walk(root, -_UNBOUNDED, _UNBOUNDED, False)
        if not speculative:
            return wanted
        first = {key: window for key, window in wanted.items() if key not in speculative}
        return first | {key: wanted[key] for key in wanted if key in speculative}

    def done(self, moves: str | None = None) -> bool:
        """Whether the root's rank (and what ``moves`` asks for) is known."""
        root = self.root
        if moves == "all":
            return root.exact and all(child.exact for child in root.children)
        if moves == "best":
            v = root.lo
            return root.exact and all(c.hi <= -v or c.lo >= -v + 1 for c in root.children)
        return root.exact

    def move_ranks(self) -> list[tuple[Any, int]]:
        """The root's moves proven so far with their ranks for the side to move at the root,
        in the game's order of legal moves."""
        proven = [(c.move, -c.lo) for c in self.root.children if c.exact]
        legal = self.root.game.legal_moves() if self.root.children else []
        return [(move, rank) for move in legal for m, rank in proven if m == move]

    def best(self) -> list[Any]:
        """The root's moves that keep its rank, in the game's order (the root is exact and
        every move decided, see :meth:`done`)."""
        v = self.root.lo
        best = [c.move for c in self.root.children if c.hi <= -v]
        legal = self.root.game.legal_moves() if self.root.children else []
        return [move for move in legal if move in best]


def _siblings_last(
    tree: _Tree,
    wanted: dict[int, tuple[int, int]],
    running: dict[Future[UnitAnswer], tuple[int, tuple[int, int]]],
    sent: set[int],
    began: dict[Future[UnitAnswer], float],
    since: float,
) -> dict[int, tuple[int, int]]:
    """``wanted`` with the younger brothers of the units running since ``since`` or earlier
    (the units after such a unit in its parent's move order) after the others, each part in
    its order; a running unit is never moved. A long unit's table, which it sends back when it
    answers, holds much of what its younger brothers' tests search (their subtrees meet), so
    they wait for it while other needed units can go first. ``sent``: the running units' keys."""
    eldest: dict[int, int] = {}
    """By parent (its id): the place among its children of its first long running unit."""
    for future, (key, _) in running.items():
        if began[future] > since:
            continue
        for node in tree.units.get(key, []):
            if node.parent is not None:
                place = _place(node)
                eldest[id(node.parent)] = min(eldest.get(id(node.parent), place), place)
    if not eldest:
        return wanted

    def younger(key: int) -> bool:
        return key not in sent and any(
            node.parent is not None
            and id(node.parent) in eldest
            and _place(node) > eldest[id(node.parent)]
            for node in tree.units.get(key, [])
        )

    later = {key for key in wanted if younger(key)}
    return {key: wanted[key] for key in wanted if key not in later} | {
        key: wanted[key] for key in wanted if key in later
    }


def _place(node: _Node) -> int:
    """``node``'s place among its parent's children (their move order)."""
    assert node.parent is not None
    return next(i for i, child in enumerate(node.parent.children) if child is node)


def solve_distributed(
    game: Game[Any],
    *,
    executor: Executor,
    store: Store,
    split: int = DEFAULT_SPLIT,
    weak: bool = False,
    hash_mb: float = 16,
    limit: Limit | None = None,
    on_unit: Callable[[Game[Any], int], None] | None = None,
    moves: str | None = None,
    budget: Budget | None = None,
    scouts: bool = True,
    share_tables: bool = True,
    preempt: bool = False,
    young_wait: bool = False,
    root_tests: bool = False,
    tests_at_once: int = 1,
    doubling: bool = False,
    narrow: bool = True,
    edges: bool = True,
    siblings_wait: bool = True,
    split_busy: bool = False,
    settled_scouts: bool = False,
) -> DistributedResult:
    """The exact rank of ``game`` from work units solved on ``executor`` (see the module
    docstring), every result kept in ``store``. ``on_unit(position, rank)`` is called as each
    unit's result arrives. A limit (time, or its stop callback) stops it early with
    ``rank=None``; what was proven stays in the store for the next run. With ``budget``, a
    unit that has run at least that long is split into its children when a worker would
    otherwise idle (see the module docstring). ``scouts=False`` sends every unit in its whole
    window, without the null-window tests first (:meth:`_Tree.needed`), ``share_tables=False``
    no worker's table to the others (for comparisons). ``root_tests`` finds the root's rank by
    null-window tests, as the engine does, ``tests_at_once`` of them at once (see
    :func:`root_tests`). ``doubling=True``: a unit's budget doubles with each split above it
    (the default until the twenty-sixth session). ``narrow=False``: a running unit whose window
    moves is not told (it goes on in the window it was sent in), for comparisons;
    ``edges=False``: a unit searched again after a bound starts with the engine's usual test,
    not next to that bound
    (:meth:`_Tree.first_test`); ``siblings_wait=False``: the younger brothers of a long running
    unit are sent in the tree's order, not after the other needed units (see the module
    docstring). ``split_busy``: the running unit first in the tree's order is split once past
    its budget even while every worker is busy (see the module docstring);
    ``settled_scouts``: null-window tests only against a brother's exact rank
    (:meth:`_Tree.needed`). (The options ``preempt``, ``young_wait``, ``root_tests``,
    ``split_busy`` and ``settled_scouts`` are off by default: see ``docs/parallel.md``.)

    ``moves="best"`` also finds every best move (once the rank is known, each root move's
    subtree is solved in the null window that tells whether it keeps the rank, as the local
    :meth:`~zerosum.compiled.solver.Solver.best_moves` does); ``moves="all"`` every root move's
    exact rank (the root's moves are solved each in the full window, the rank following from
    them). A limit may then stop it with the rank known but not every move."""
    compiled_game(game.name)  # a clear error for a game without a kernel
    if split < 1:
        raise ValueError(f"split {split} is out of range: expected 1 or more plies")
    if moves not in (None, "best", "all"):
        raise ValueError(f"moves={moves!r}: expected None, 'best' or 'all'")
    if tests_at_once < 1:
        raise ValueError(f"tests_at_once={tests_at_once}: expected 1 or more tests")
    started = time.perf_counter()
    limit = limit or Limit()
    executor.warm(warm_unit, game.name, hash_mb)  # while the unit tree is built here
    # One worker: its table holds every unit's work already, so no table is shared or handed
    # over (choosing and sending one costs tens of milliseconds a unit).
    alone = executor.workers == 1
    sharing = share_tables and not alone
    solver = _unit_solver(game.name, 1)
    tree = _Tree(solver, store, game, split, weak=weak, moves=moves is not None)
    running: dict[Future[UnitAnswer], tuple[int, tuple[int, int]]]
    running = {}
    stopping: dict[Future[UnitAnswer], tuple[int, tuple[int, int]]]
    stopping = {}
    """Units cancelled while they ran and asked to stop: their answers (what they proved before
    they stopped) are still taken in."""
    began: dict[Future[UnitAnswer], float] = {}
    """When each running unit was sent (the executor's clock)."""
    splitting: set[Future[UnitAnswer]] = set()
    """Running units asked to stop so that they can be split (their answers still to come)."""
    preempting: set[Future[UnitAnswer]] = set()
    """Running units asked to stop for needed units earlier in the tree's order (``preempt``):
    sent again later, from the tables they send back."""
    again: dict[int, Any] = {}
    """The tables units that answered a bound sent back, by unit, for their next run in
    another window (the latest :data:`KEPT_TABLES`)."""
    home: dict[int, Future[UnitAnswer]] = {}
    """The first child unit of each split unit, with that unit's run: sent to the same worker
    if it is free (:meth:`Executor.submit_on`), whose table holds that child's subtree."""
    recent: dict[str, Any] = {}
    """The latest table each worker sent back (:class:`TableSnapshot`), the latest last."""
    rate = [0, 0.0]
    """Nodes and seconds of the answers so far: the workers' rate, for a budget in nodes."""

    def least_run(budget: Budget) -> float:
        """Seconds a unit runs before it may be split (a budget in nodes at the workers'
        rate so far)."""
        seconds = [] if budget.seconds is None else [budget.seconds]
        if budget.nodes is not None:
            speed = rate[0] / rate[1] if rate[1] > 0 and rate[0] > 0 else DEFAULT_RATE
            seconds.append(budget.nodes / speed)
        return min(seconds)

    def due(future: Future[UnitAnswer]) -> bool:
        """Whether the running unit ``future`` may be split: not being stopped already, and
        it has run its budget (doubled with each split above it, if ``doubling``)."""
        if budget is None or future in splitting or future in preempting:
            return False
        turns = min(tree.generation.get(running[future][0], 0), _MAX_DOUBLINGS) if doubling else 0
        least: float = least_run(budget) * 2**turns
        return executor.clock() - began[future] >= least

    solved = cancelled = nodes = splits = stopped = preempted = narrowed = 0
    proven: list[tuple[float, int]] = []
    """When the root's rank was proven: (seconds, nodes) so far."""

    def note_root() -> None:
        if tree.root.exact and not proven:
            proven.append((time.perf_counter() - started, nodes))

    def result() -> DistributedResult:
        root = tree.root
        done = tree.done(moves)
        solve_s, solve_nodes = proven[0] if proven else (time.perf_counter() - started, nodes)
        return DistributedResult(
            root.lo if root.exact else None,
            len(tree.made),
            tree.from_store,
            solved,
            cancelled,
            nodes,
            time.perf_counter() - started,
            stored=tree.stored,
            moves=tuple(tree.move_ranks()) if moves is not None else (),
            best_moves=tuple(tree.best()) if moves is not None and done else (),
            moves_complete=done,
            solve_s=solve_s,
            solve_nodes=solve_nodes,
            splits=splits,
            stopped=stopped,
            preempted=preempted,
            narrowed=narrowed,
        )

    def keep(key: int, table: Any) -> None:
        """``table`` for the next run of the unit ``key``."""
        again.pop(key, None)
        again[key] = table
        while len(again) > KEPT_TABLES:
            del again[next(iter(again))]

    def stop_running() -> int:
        for future in [*running, *stopping]:
            executor.cancel(future)
        count = len(running)
        running.clear()
        stopping.clear()
        splitting.clear()
        preempting.clear()
        return count

    for node in tree.update(full=True):
        store.put(solver.name, node.key, node.lo, weak=weak)
    note_root()
    try:
        while not tree.done(moves):
            # Step 1. Cancel what is no longer needed, send what is, most promising first.
            wanted = tree.needed(
                moves,
                scouts=scouts,
                young_wait=young_wait,
                tests=root_tests,
                at_once=tests_at_once,
                settled=settled_scouts,
            )
            for future, unit in list(running.items()):
                if unit[0] not in wanted:
                    del running[future]
                    began.pop(future, None)
                    splitting.discard(future)
                    preempting.discard(future)
                    cancelled += 1
                    if executor.stop(future):  # it stops now; what it proved comes back
                        stopping[future] = unit
                elif (
                    narrow
                    and wanted[unit[0]] != unit[1]
                    and future not in splitting
                    and executor.narrow(future, wanted[unit[0]])
                ):  # its window moved (a sibling answered, say): it goes on in the new one
                    running[future] = (unit[0], wanted[unit[0]])
                    narrowed += 1
            sent = {key for key, _ in running.values()}
            queue = wanted
            if siblings_wait and len(running) < executor.workers:
                since = executor.clock() - SIBLINGS_WAIT_S
                queue = _siblings_last(tree, wanted, running, sent, began, since)
            for key in [key for key in home if key not in wanted]:
                del home[key]  # no longer needed: its worker is anyone's
            if home:  # a split unit's first child goes on at once, on the worker that ran it
                queue = {key: queue[key] for key in home} | queue
            for key, window in queue.items():
                if len(running) >= executor.workers:
                    break
                if key not in sent:
                    position = tree.units[key][0].game.position()
                    table = again.pop(key, None)
                    above = tree.tables.pop(key, None)  # a split parent's (older)
                    table = above if table is None else table
                    shared = tuple(recent.values())[-SHARED_TABLES:] if sharing else None
                    task = (
                        solve_unit,
                        game.name,
                        position,
                        window,
                        weak,
                        hash_mb,
                        None,
                        table,
                        shared,
                        not alone,
                        tree.first_test(key, window) if edges else None,
                    )
                    ran = home.pop(key, None)
                    if ran is None:
                        future = executor.submit(*task)
                    else:
                        future = executor.submit_on(ran, *task)
                    running[future] = (key, window)
                    began[future] = executor.clock()
            # Step 1b. With ``preempt``: needed units that wait for a worker while units later
            # in the tree's order run (the most speculative ones): the latest of those, once
            # past their budget, stop and go back to the queue, sent again from their tables.
            # The tree's order (``wanted``), not the queue that ``siblings_wait`` reorders.
            if preempt and budget is not None and len(running) >= executor.workers:
                order = {key: index for index, key in enumerate(wanted)}
                sent = {key for key, _ in running.values()}
                waiting = [order[key] for key in wanted if key not in sent]
                waiting = waiting[len(splitting) + len(preempting) :]
                now, least = executor.clock(), least_run(budget)
                later = sorted(
                    (
                        future
                        for future in running
                        if future not in splitting
                        and future not in preempting
                        and now - began[future] >= least
                    ),
                    key=lambda future: -order[running[future][0]],
                )
                for first, future in zip(waiting, later, strict=False):
                    if order[running[future][0]] <= first:
                        break
                    if executor.split(future):
                        preempting.add(future)
            # Step 2. Workers that would idle: the units that have run longest (at least their
            # budget) stop and are split, their children going to the idle workers.
            idle = executor.workers - len(running) - len(splitting) - len(preempting)
            if budget is not None and idle > 0:
                for future in sorted(running, key=began.__getitem__):
                    if idle <= 0:
                        break
                    if not due(future):
                        continue
                    if executor.split(future):
                        splitting.add(future)
                        idle -= 1
            # Step 2b. With ``split_busy``: the running unit first in the tree's order (the one
            # the rest wait on most) is split once past its budget, even while no worker idles.
            if budget is not None and split_busy and running:
                order = {key: index for index, key in enumerate(wanted)}
                leftmost = min(running, key=lambda run: order.get(running[run][0], len(order)))
                if leftmost not in splitting and due(leftmost) and executor.split(leftmost):
                    splitting.add(leftmost)
            # Step 3. Take in every result that arrives: store it, then narrow the tree; a
            # unit stopped to be split is split, what its table proved kept.
            done = executor.wait([*running, *stopping], _POLL_S)
            for future in done:
                asked = future in stopping
                back = future in preempting
                preempting.discard(future)
                key, window = stopping.pop(future) if asked else running.pop(future)
                began.pop(future, None)
                splitting.discard(future)
                if future.cancelled():
                    continue
                answer = future.result()
                if sharing and answer.table is not None:
                    recent.pop(answer.table.worker, None)
                    recent[answer.table.worker] = SharedTable(
                        answer.table.origin, answer.table.worker, executor.share(answer.table)
                    )
                    while len(recent) > SHARED_TABLES:  # the others are never sent again
                        del recent[next(iter(recent))]
                nodes += answer.nodes
                rate[0] += answer.nodes
                rate[1] += answer.seconds
                finished: list[int] = []
                if answer.rank is None:  # stopped: keep what it proved (and split it)
                    for proven_key, rank in tree.absorb(answer.bounds):
                        store.put(solver.name, proven_key, rank, weak=weak)
                        if proven_key in tree.units:
                            finished.append(proven_key)
                    if asked:  # cancelled: no longer needed now, so not split
                        stopped += 1
                        if key not in finished and answer.table is not None:
                            keep(key, answer.table)  # if it is needed again (another test)
                    elif back:  # back to the queue, to start again from its table
                        preempted += 1
                        if key not in finished and answer.table is not None:
                            keep(key, answer.table)
                    else:  # stopped to be split
                        splits += 1
                        if key not in finished:
                            children = tree.split(key)
                            if children:
                                home[children[0]] = future
                            once = None if answer.table is None else executor.share(answer.table)
                            for child in children:
                                tree.tables[child] = once
                else:
                    solved += 1
                    if (
                        tree.settle(key, window, answer.rank)
                        if answer.proven is None
                        else tree.prove(key, *answer.proven)
                    ):
                        finished.append(key)
                        store.put(solver.name, key, tree.units[key][0].lo, weak=weak)
                    elif answer.table is not None and hands_over(window, answer):
                        keep(key, answer.table)  # for its run in another window
                if on_unit is not None:
                    for done_key in finished:
                        on_unit(tree.units[done_key][0].game, tree.units[done_key][0].lo)
            for node in tree.update():
                store.put(solver.name, node.key, node.lo, weak=weak)
            note_root()
            # Step 4. The caller's limit.
            if (limit.time is not None and time.perf_counter() - started >= limit.time) or (
                limit.stop is not None and limit.stop()
            ):
                cancelled += stop_running()
                return result()
    except BaseException:
        stop_running()
        raise
    cancelled += stop_running()
    return result()
