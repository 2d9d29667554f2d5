"""The compiled search: one negamax alpha-beta written once, specialised per game by numba.

A game plugs in as a :class:`Kernel`: a handful of ``@njit`` functions over its state, a small
``int64`` array that the search changes in place with ``play``/``undo``. :func:`build` closes a
fresh copy of the search over those functions and compiles it (cached on disk, so a second
process skips the compile). The search knows no game; a kernel knows no search.

Scores. Every score is from the side to move. Proven results are ``±(PROVEN + rank)`` where the
kernel's ``rank >= 1`` grows with the speed of the win (connect four uses Pons's score as its
rank); heuristic evaluations stay strictly inside ``(-PROVEN, PROVEN)``. An exact solve never
evaluates, so its values are ``0`` or proven, and :func:`solve` narrows the rank with null-window
searches, as Pons's solver does, instead of searching the whole window once.

The table is two ``int64`` arrays of a power-of-two length, ``keys`` and ``data``. An entry packs
score, move, depth, bound and generation into one word (``_pack``) and stores ``key ^ data`` in
``keys``: a probe accepts it only if ``keys[i] ^ data[i]`` is the key, so an entry torn by a
concurrent writer (the parallel search shares the arrays) reads as a miss, never as a wrong
score. Entries come in buckets of two: the first is depth-preferred (replaced by a deeper search,
and in a depth-limited search by any entry of a newer generation), the second is always
replaced. An exact solve asked to keep them (``KEEP_PROOFS``: a worker of a distributed solve,
whose units are related) keeps a deeper first entry whatever solve stored it, so its later
units, a unit searched again in another window and the children of a stopped unit find the
earlier solves' deepest proofs still there (``docs/parallel.md``); solves of unrelated positions
one after another would only fill the first entries with what they never read again. The
arrays never grow.

What a search may read. A depth-limited search (each iteration is a generation) reads only the
entries of its own iterations (``io[EPOCH]``); older entries read as misses, whatever depth they
were searched to: a reused engine then answers a depth-limited search as a fresh one does (the
same value, depth and nodes), and a heuristic score stored by an earlier search never returns as
a proof. Generations count modulo :data:`GENERATIONS`, so the engines give every entry the last
generation (:func:`restamp`) before a search whose generations could wrap onto entries older
than that (:func:`wraps_onto_old_entries`).
An entry of an earlier iteration with a score that is not proven counts in
``io[STALE]``, as an evaluation does: the search has proven its value only if it counted
neither. An exact solve never evaluates and searches deeper than any depth-limited search can
(:data:`DEPTH_INF`, and a kernel's ``max_ply`` is below half of it), so every entry deep enough
for a solve holds a proof, whichever solve stored it.

Stopping is the caller's: ``io[STOP]`` is polled every 1,024 nodes, ``io[NODE_LIMIT]`` bounds the
node count, and a stopped search sets ``io[ABORTED]`` and returns a meaningless value that the
caller discards. The functions release the GIL, so a Python thread can set ``io[STOP]``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any, Final

import numpy as np

from zerosum.jit import cached_njit, module_fingerprint, with_fingerprint_cache

PROVEN: Final = 999_000
"""Proven scores are ``±(PROVEN + rank)`` with ``rank >= 1``; heuristics lie strictly inside."""
INF: Final = 2_000_000
"""Larger than every score."""
NO_SCORE: Final = -(1 << 40)
"""What ``quick`` and ``decided`` return for an undecided position."""
DEPTH_INF: Final = 250
"""The depth of an exact solve: deeper than any game a kernel plays to the end."""
PROOF_DEPTH: Final = DEPTH_INF // 2
"""The least depth of an exact solve's entries (a kernel's ``max_ply`` is below it, and no
depth-limited search goes deeper than ``max_ply``): an entry this deep is a proof, and settles
a node of an exact solve whatever ply the solve that stored it started at."""

# Bound flags of table entries.
EXACT: Final = 1
LOWER: Final = 2
UPPER: Final = 3

# Slots of the ``io`` array shared between the caller and the search.
NODES: Final = 0
CUTOFFS: Final = 1
PROBES: Final = 2
HITS: Final = 3
STORES: Final = 4
EVALUATIONS: Final = 5
SELDEPTH: Final = 6
STOP: Final = 7
NODE_LIMIT: Final = 8
ABORTED: Final = 9
GENERATION: Final = 10
BEST_MOVE: Final = 11
VARIANT: Final = 12
"""Nonzero in the helpers of a parallel search: they vary the move order near the root."""
STALE: Final = 13
"""Table entries of an earlier generation (an earlier iteration) that settled or narrowed a
node with a score that is not proven: like an evaluation, each may hide a heuristic value, so a
search that counts one has not proven its result."""
EPOCH: Final = 14
"""The first generation (``& 255``) of the current depth-limited search, whose iterations are
the generations from it to ``GENERATION``: entries of older generations read as misses, so what
an engine searched before never changes a result; ``-1`` (an exact solve, whose entries all hold
proofs) reads every entry, and so does :data:`KEEP_PROOFS`."""
KEEP_PROOFS: Final = -2
"""``io[EPOCH]`` of an exact solve that also keeps the deeper entries of earlier solves against
its own (``Engine.solve(keep=True)``): for solves of related positions one after another."""
IO_SIZE: Final = 15
GENERATIONS: Final = 256
"""An entry keeps its generation modulo this (8 bits of the packed word)."""
RETEST: Final = 2
"""``io[STOP]`` set to this by the caller of :func:`solve_live <build>`: the window changed and
the running test no longer matters; the solve aborts it and goes on with the next test (any
other nonzero value stops the solve)."""

# Slots of the ``live`` array of a solve whose window may change while it runs (``solve_live``):
# the caller writes the window, the solve the rank's bounds so far and its running test.
WINDOW_LO: Final = 0
WINDOW_HI: Final = 1
LEAST: Final = 2
"""The rank is at least this (what the tests so far proved)."""
MOST: Final = 3
"""The rank is at most this."""
TEST: Final = 4
"""The rank ``middle`` of the running null-window test ``(middle, middle + 1)``."""
FIRST: Final = 5
"""The rank of the first test, if it lies in the interval (else, and for every later test,
:func:`next_test`'s): a caller that expects the rank at one end of its window (a re-search
after a null-window test failed there) tests next to that end first."""
LIVE_SIZE: Final = 6
_VARIED_PLIES: Final = 2

# Fields of a search-stack frame: ``buf[ply]`` is the node ``ply`` plies below the root, its
# moves stored from ``FRAME`` on.
ALPHA: Final = 0
BETA: Final = 1
DEPTH: Final = 2
FIRST_ALPHA: Final = 3
BEST: Final = 4
BEST_AT: Final = 5
INDEX: Final = 6
COUNT: Final = 7
KEY: Final = 8
RESEARCH: Final = 9
FRAME: Final = 10

_SCORE_BIAS: Final = 1 << 22
_GOLDEN: Final = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed 64-bit integer


@cached_njit(nogil=True)
def _no_probe(st: Any, aux: Any) -> int:
    return NO_SCORE


def no_aux() -> np.ndarray[Any, Any]:
    """The ``aux`` array of a kernel that probes nothing."""
    return np.zeros(0, np.uint8)


@dataclass(frozen=True)
class Kernel:
    """A game's compiled functions; every one takes the state array ``st`` first.

    ``decided(st)``: the exact score if the position is decided at a glance (the game is over,
    or, if the game can tell cheaply, the side to move wins at once or cannot avoid losing at
    once), else ``NO_SCORE``. ``quick(st)``: the same inside the search, where the kernel may
    assume the position was reached by a move that ``moves`` offered.
    ``bounds(st)``: ``(lo, hi)`` scores the position cannot leave (``(-INF, INF)`` if unknown).
    ``rank_range(st)``: ``(lo, hi)`` ranks an exact solve starts from. ``evaluate(st)``: a
    heuristic score. ``key(st)``: a 64-bit key. ``moves(st, out)``: writes the moves worth
    searching, best first, into ``out`` and returns their count (0 means ``no_moves(st)`` is the
    score). ``play(st, move)`` / ``undo(st, move)``: make and take back a move code (``>= 0``).
    """

    name: str
    state_size: int
    max_moves: int
    max_ply: int
    quick: Callable[..., Any]
    decided: Callable[..., Any]
    bounds: Callable[..., Any]
    rank_range: Callable[..., Any]
    evaluate: Callable[..., Any]
    key: Callable[..., Any]
    moves: Callable[..., Any]
    no_moves: Callable[..., Any]
    play: Callable[..., Any]
    undo: Callable[..., Any]
    probe: Callable[..., Any] = _no_probe
    """``probe(st, aux)``: the exact score of a position below the root that the read-only
    array ``aux`` decides (an endgame database, say), else ``NO_SCORE``."""
    load_aux: Callable[[], np.ndarray[Any, Any]] = no_aux
    """Plain Python: the ``aux`` array the search passes to ``probe`` (the caller loads it
    once; empty when there is nothing to probe)."""
    legal: Callable[..., Any] | None = None
    """``legal(st, out)``: every legal move of a position that is not over, in the order of the
    game's ``legal_moves()`` (move ``i`` of one is move ``i`` of the other), and their count. With
    ``over``, what Monte Carlo tree search needs (:mod:`zerosum.compiled.mcts`); ``None``: MCTS
    on this game runs in Python."""
    over: Callable[..., Any] | None = None
    """``over(st)``: the score of a finished game from the side to move (negative: lost, 0:
    drawn, positive: won), else ``NO_SCORE``; exactly when the game's ``outcome()`` is set."""
    decisive: Callable[..., Any] | None = None
    """``decisive(st, out)``: the moves a decisive MCTS playout picks from in a position that is
    not over, as :func:`zerosum.engines.mcts.decisive_moves` lists them (same moves, same order),
    and their count; ``None``: the MCTS search finds them with ``legal``, ``play`` and ``over``
    on copies of the state (slower)."""


@cached_njit(nogil=True)
def _pack(score: int, move: int, depth: int, flag: int, generation: int) -> int:
    return (
        (score + _SCORE_BIAS)
        | ((move + 1) << 23)
        | (min(depth, 255) << 40)
        | (flag << 48)
        | ((generation & 255) << 50)
    )


@cached_njit(nogil=True)
def _score(data: int) -> int:
    return (data & ((1 << 23) - 1)) - _SCORE_BIAS


@cached_njit(nogil=True)
def _move(data: int) -> int:
    return ((data >> 23) & 0xFFFF) - 1


@cached_njit(nogil=True)
def _depth(data: int) -> int:
    return (data >> 40) & 255


@cached_njit(nogil=True)
def _flag(data: int) -> int:
    return (data >> 48) & 3


@cached_njit(nogil=True)
def _generation(data: int) -> int:
    return (data >> 50) & 255


def wraps_onto_old_entries(start: int, span: int, stamped: int) -> bool:
    """Whether a depth-limited search whose generations may run from ``start`` to ``start +
    span - 1`` could read an entry stored at or after generation ``stamped`` (the table's
    last :func:`restamp`, or its clearing) as one of its own: generations count modulo
    :data:`GENERATIONS`, so an entry that many generations older than the current one reads
    as the current one's. The engines restamp their table before such a search, so that a
    reused engine still answers as a fresh one."""
    return start + span - stamped > GENERATIONS


def stamp_before_search(
    keys: Any, data: Any, generation: int, epoch: int | None, max_ply: int, stamped: int
) -> int:
    """Before a depth-limited search from ``generation + 1`` (``epoch`` as ``Engine.search``'s):
    a new series of generations (a search, or a deepening's first iteration) may take one a
    ply up to ``max_ply``; if they could wrap onto entries older than ``stamped``, every entry
    gets ``generation`` first (:func:`restamp`). Returns the table's stamp from then on."""
    start = generation + 1
    span = max_ply if epoch is None or epoch == start else 1
    if not wraps_onto_old_entries(start, span, stamped):
        return stamped
    restamp(keys, data, generation)
    return generation


@cached_njit(nogil=True)
def restamp(keys: Any, data: Any, generation: int) -> None:
    """Give every entry the generation ``generation`` (the last one used): a depth-limited
    search from the next generation on reads them all as misses for the next
    :data:`GENERATIONS` - 1 generations, and exact solves keep reading their proofs."""
    stamp = (generation & 255) << 50
    mask = ~(255 << 50)
    for i in range(data.shape[0]):
        old = data[i]
        if old != 0:
            new = (old & mask) | stamp
            keys[i] = keys[i] ^ old ^ new
            data[i] = new


@cached_njit(nogil=True)
def _readable(entry: int, io: Any) -> bool:
    """Whether the current search reads ``entry`` (``io[EPOCH]``): one stored by one of its
    iterations, or any entry in an exact solve."""
    epoch = io[EPOCH]
    if epoch < 0:
        return True
    return bool(((_generation(entry) - epoch) & 255) <= ((io[GENERATION] - epoch) & 255))


@cached_njit(nogil=True)
def _bucket(key: int, size: int) -> int:
    return ((key * _GOLDEN) >> 24) & (size - 2)


@cached_njit(nogil=True)
def probe(keys: Any, data: Any, key: int) -> int:
    """The entry stored for ``key`` (packed), or 0."""
    i = _bucket(key, keys.shape[0])
    for j in range(i, i + 2):
        d = data[j]
        if d != 0 and keys[j] ^ d == key:
            return int(d)
    return 0


@cached_njit(nogil=True)
def table_move(keys: Any, data: Any, key: int) -> int:
    """The best move stored for ``key``, or -1."""
    entry = probe(keys, data, key)
    return _move(entry) if entry != 0 else -1


@cached_njit(nogil=True)
def store(keys: Any, data: Any, key: int, packed: int, aging: bool = True) -> None:
    """Write an entry into ``key``'s bucket by the replacement scheme of the module header;
    ``aging=False`` (an exact solve that keeps proofs, :data:`KEEP_PROOFS`) keeps a deeper first
    entry of any generation."""
    i = _bucket(key, keys.shape[0])
    old = data[i]
    if (
        old == 0
        or keys[i] ^ old == key
        or (aging and _generation(old) != _generation(packed))
        or _depth(packed) >= _depth(old)
    ):
        keys[i] = key ^ packed
        data[i] = packed
    else:
        keys[i + 1] = key ^ packed
        data[i + 1] = packed


@cached_njit(nogil=True)
def rank_of_lower_bound(score: int) -> int:
    """The smallest rank whose score is at least ``score`` (0 stands for a draw)."""
    if score <= -(PROVEN + 1):
        return score + PROVEN
    if score <= 0:
        return 0
    if score <= PROVEN + 1:
        return 1
    return score - PROVEN


@cached_njit(nogil=True)
def rank_of_upper_bound(score: int) -> int:
    """The largest rank whose score is at most ``score``."""
    if score >= PROVEN + 1:
        return score - PROVEN
    if score >= 0:
        return 0
    if score >= -(PROVEN + 1):
        return -1
    return score + PROVEN


@cached_njit(nogil=True)
def score_of_rank(rank: int) -> int:
    """The proven score of ``rank`` (positive: the side to move wins), 0 for a draw."""
    if rank > 0:
        return PROVEN + rank
    if rank < 0:
        return rank - PROVEN
    return 0


@cached_njit(nogil=True)
def popcount(bits: int) -> int:
    """The number of set bits."""
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


def solve_bounds(weak: bool, window: tuple[int, int] | None) -> tuple[int, int]:
    """The rank interval a solve narrows: everything, ``(-1, 1)`` for a weak solve, cut to
    ``window`` if one is given."""
    lo, hi = (-1, 1) if weak else (-INF, INF)
    if window is not None:
        lo, hi = max(lo, window[0]), min(hi, window[1])
    return lo, hi


@cached_njit(nogil=True)
def next_test(lo: int, hi: int) -> int:
    """The rank ``middle`` whose null window ``(middle, middle + 1)`` tests ``[lo, hi]`` next:
    the midpoint, pulled halfway towards zero (most positions are close games)."""
    middle = lo + (hi - lo) // 2
    if middle <= 0 and -((-lo) // 2) < middle:
        return -((-lo) // 2)
    if middle >= 0 and hi // 2 > middle:
        return hi // 2
    return middle


@cached_njit(nogil=True)
def narrowed(lo: int, hi: int, middle: int, value: int) -> tuple[int, int]:
    """``[lo, hi]`` after the null-window test at ``middle`` returned the fail-soft ``value``."""
    if value <= score_of_rank(middle):
        return lo, min(middle, rank_of_upper_bound(value))
    return max(middle + 1, rank_of_lower_bound(value)), hi


@dataclass(frozen=True)
class Compiled:
    """The search functions compiled for one kernel."""

    kernel: Kernel
    negamax: Callable[..., int]
    """``negamax(st, alpha, beta, depth, keys, data, io, buf, aux) -> score``, fail-soft;
    ``buf`` is the search stack from :func:`new_stack`, ``aux`` the kernel's ``load_aux()``."""
    solve: Callable[..., int]
    """``solve(st, lo, hi, keys, data, io, buf, aux) -> rank``: the exact rank, clamped to ``[lo,
    hi]`` (a weak solve passes ``(-1, 1)``, a full one ``(-INF, INF)``)."""
    solve_live: Callable[..., int]
    """``solve_live(st, lo, hi, keys, data, io, buf, aux, live) -> rank``: the same, clamped to
    ``[lo, hi]`` and to the window in ``live`` (:data:`WINDOW_LO`, :data:`WINDOW_HI`), which the
    caller may change while it runs (its first test at :data:`FIRST` if that lies inside):
    each test reads it, and a test that no longer matters is
    aborted when the caller sets ``io[STOP]`` to :data:`RETEST`. The rank's bounds proven so
    far are in ``live`` (:data:`LEAST`, :data:`MOST`), whatever the window was."""


def _fingerprint(kernel: Kernel, builder: str = __name__) -> str:
    """The cache key of the search module ``builder`` builds for ``kernel``: the
    :func:`~zerosum.jit.module_fingerprint` of ``builder``, of the kernel's modules and of the
    modules of the compiled functions the kernel calls by name (the cached search inlines them
    too, whatever package they come from)."""
    names = {builder}
    for function in _kernel_functions(kernel):
        called = [function.__globals__.get(name) for name in function.__code__.co_names]
        names.update(
            source.__module__
            for source in [function, *(c.py_func for c in called if hasattr(c, "py_func"))]
        )
    keys = "".join(module_fingerprint(name) for name in sorted(names))
    return hashlib.sha256(keys.encode()).hexdigest()


def _kernel_functions(kernel: Kernel) -> list[Any]:
    values = (getattr(kernel, field.name) for field in fields(kernel))
    return [value.py_func for value in values if hasattr(value, "py_func")]


def _cached_njit(function: Callable[..., Any], kernel: Kernel, fingerprint: str) -> Any:
    """``function`` compiled with a disk cache of its own for ``kernel``.

    numba keys a closure's cache entries by pickling the closed-over values, and a pickled
    dispatcher carries an identity that is new in every process, so the built search would
    compile again in every process. The key is instead ``fingerprint`` (:func:`_fingerprint`):
    stable across processes, and new whenever this module or the kernel's modules change.
    """
    function.__qualname__ = f"{function.__name__}_{kernel.name}"
    return with_fingerprint_cache(function, fingerprint, nogil=True)


def build(kernel: Kernel) -> Compiled:
    """Compile the generic search for ``kernel``'s game (or load it from numba's disk cache)."""
    if not 0 < kernel.max_ply < PROOF_DEPTH:
        # Else a depth-limited search could store heuristic entries deep enough for a solve.
        raise ValueError(
            f"kernel {kernel.name!r}: max_ply {kernel.max_ply} is out of range: "
            f"expected 1..{PROOF_DEPTH - 1}"
        )
    fingerprint = _fingerprint(kernel)
    quick = kernel.quick
    decided_at = kernel.decided
    rank_range = kernel.rank_range
    bounds = kernel.bounds
    evaluate = kernel.evaluate
    key_of = kernel.key
    moves = kernel.moves
    no_moves = kernel.no_moves
    play = kernel.play
    undo = kernel.undo
    probe_at = kernel.probe

    def negamax(
        st: Any,
        alpha: int,
        beta: int,
        depth: int,
        keys: Any,
        data: Any,
        io: Any,
        buf: Any,
        aux: Any,
    ) -> int:
        """Fail-soft negamax alpha-beta with PVS: a result ``<= alpha`` is an upper bound, one
        ``>= beta`` a lower bound, anything between exact.

        The recursion runs on an explicit stack (``buf[ply]`` holds the node's moves after its
        ``FRAME`` fields), because numba cannot cache recursive functions. A node is *entered*
        (steps 1-5), then each child's value *returns* to it (steps 6-7).
        """
        ply = 0
        frame = buf[0]
        frame[ALPHA], frame[BETA], frame[DEPTH] = alpha, beta, depth
        entering = True
        value = 0
        while True:
            if entering:
                frame = buf[ply]
                alpha, beta, depth = frame[ALPHA], frame[BETA], frame[DEPTH]
                # Step 1. Count the node; look at the stop flag and the node budget now and then.
                io[NODES] += 1
                if ply > io[SELDEPTH]:
                    io[SELDEPTH] = ply
                if (io[NODES] & 1023) == 0 and (io[STOP] != 0 or io[NODES] >= io[NODE_LIMIT]):
                    io[ABORTED] = 1
                    return 0
                # Step 2. Positions decided at a glance or by the kernel's probe (below the
                # root, which must search a move), and the horizon.
                value = quick(st) if ply > 0 else decided_at(st)
                if value == NO_SCORE and ply > 0:
                    value = probe_at(st, aux)
                if value == NO_SCORE and depth <= 0:
                    io[EVALUATIONS] += 1
                    value = evaluate(st)
                # Step 3. Narrow the window to the scores this position can still reach.
                if value == NO_SCORE:
                    lo, hi = bounds(st)
                    if beta > hi:
                        beta = hi
                        if alpha >= beta:
                            value = beta
                    if value == NO_SCORE and alpha < lo:
                        alpha = lo
                        if alpha >= beta:
                            value = alpha
                # Step 4. Transposition table: a deep enough entry may settle the node or
                # narrow the window; its move is searched first.
                table_move = -1
                key = 0
                if value == NO_SCORE:
                    key = key_of(st)
                    io[PROBES] += 1
                    entry = probe(keys, data, key)
                    if entry != 0 and _readable(entry, io):
                        io[HITS] += 1
                        table_move = _move(entry)
                        if ply > 0 and _depth(entry) >= min(depth, PROOF_DEPTH):
                            stored = _score(entry)
                            flag = _flag(entry)
                            if _generation(entry) != io[GENERATION] and -PROVEN <= stored <= PROVEN:
                                io[STALE] += 1
                            if flag == EXACT:
                                value = stored
                            elif flag == LOWER and stored > alpha:
                                alpha = stored
                            elif flag == UPPER and stored < beta:
                                beta = stored
                            if value == NO_SCORE and alpha >= beta:
                                value = stored
                # Step 5. Generate the moves, the table move first, and enter the first one
                # with the full window.
                if value == NO_SCORE:
                    row = frame[FRAME:]
                    count = moves(st, row)
                    if count == 0:
                        value = no_moves(st)
                    else:
                        if table_move >= 0:
                            for i in range(count):
                                if row[i] == table_move:
                                    for j in range(i, 0, -1):
                                        row[j] = row[j - 1]
                                    row[0] = table_move
                                    break
                        if io[VARIANT] != 0 and ply < _VARIED_PLIES and count > 2:
                            # A helper of a parallel search takes the moves after the first
                            # in a rotated order, so the helpers spread over the tree.
                            turn = (io[VARIANT] + ply) % (count - 1)
                            for _ in range(turn):
                                first = row[1]
                                for j in range(1, count - 1):
                                    row[j] = row[j + 1]
                                row[count - 1] = first
                        frame[ALPHA], frame[BETA], frame[FIRST_ALPHA] = alpha, beta, alpha
                        frame[BEST], frame[BEST_AT], frame[INDEX] = -INF, 0, 0
                        frame[COUNT], frame[KEY], frame[RESEARCH] = count, key, 0
                        play(st, row[0])
                        child = buf[ply + 1]
                        child[ALPHA], child[BETA], child[DEPTH] = -beta, -alpha, depth - 1
                        ply += 1
                        continue
                # The node was settled without searching a move.
                if ply == 0:
                    return value
                ply -= 1
                entering = False

            # Step 6. A child returned ``value``; its move is still on the board. Moves after
            # the first are searched with a null window first and searched again with the
            # full window if they might raise alpha (principal variation search).
            frame = buf[ply]
            alpha, beta, index = frame[ALPHA], frame[BETA], frame[INDEX]
            move = frame[FRAME + index]
            score = -value
            if index > 0 and frame[RESEARCH] == 0 and alpha < score < beta:
                frame[RESEARCH] = 1
                child = buf[ply + 1]
                child[ALPHA], child[BETA], child[DEPTH] = -beta, -score, frame[DEPTH] - 1
                ply += 1
                entering = True
                continue
            undo(st, move)
            frame[RESEARCH] = 0
            if score > frame[BEST]:
                frame[BEST], frame[BEST_AT] = score, index
                if score > alpha:
                    alpha = score
                    frame[ALPHA] = alpha
            if alpha >= beta:
                io[CUTOFFS] += 1
            elif index + 1 < frame[COUNT]:
                index += 1
                frame[INDEX] = index
                play(st, frame[FRAME + index])
                child = buf[ply + 1]
                child[ALPHA], child[BETA], child[DEPTH] = -alpha - 1, -alpha, frame[DEPTH] - 1
                ply += 1
                entering = True
                continue

            # Step 7. Every move is searched or one refuted the window: store the result with
            # its bound and return it to the parent.
            best = frame[BEST]
            best_move = frame[FRAME + frame[BEST_AT]]
            if best <= frame[FIRST_ALPHA]:
                flag = UPPER
            elif best >= beta:
                flag = LOWER
            else:
                flag = EXACT
            io[STORES] += 1
            store(
                keys,
                data,
                frame[KEY],
                _pack(best, best_move, frame[DEPTH], flag, io[GENERATION]),
                io[EPOCH] != KEEP_PROOFS,
            )
            if ply == 0:
                io[BEST_MOVE] = best_move
                return int(best)
            value = best
            ply -= 1

    def solve(st: Any, lo: int, hi: int, keys: Any, data: Any, io: Any, buf: Any, aux: Any) -> int:
        """The exact rank by null-window searches that halve ``[lo, hi]`` (narrowed to the
        kernel's ``rank_range``), probing near zero
        first (most positions are close games). A rank outside ``[lo, hi]`` comes back as the
        nearer end, except for positions decided at a glance (a weak solve passes ``(-1, 1)``
        and reads only the sign)."""
        decided = decided_at(st)
        if decided != NO_SCORE:
            return rank_of_lower_bound(decided)
        least, most = rank_range(st)
        lo, hi = max(lo, least), min(hi, most)
        while lo < hi:
            middle = next_test(lo, hi)
            value = search(
                st,
                score_of_rank(middle),
                score_of_rank(middle + 1),
                DEPTH_INF,
                keys,
                data,
                io,
                buf,
                aux,
            )
            if io[ABORTED] != 0:
                break
            lo, hi = narrowed(lo, hi, middle, value)
        return lo

    def solve_live(
        st: Any, lo: int, hi: int, keys: Any, data: Any, io: Any, buf: Any, aux: Any, live: Any
    ) -> int:
        """``solve`` in a window that may change while it runs (see :class:`Compiled`)."""
        decided = decided_at(st)
        if decided != NO_SCORE:
            rank = rank_of_lower_bound(decided)
            live[LEAST], live[MOST] = rank, rank
            return rank
        least, most = rank_range(st)
        live[LEAST], live[MOST] = least, most
        start = st.copy()  # an aborted test leaves ``st`` where it stopped
        low, high = max(least, lo, live[WINDOW_LO]), min(most, hi, live[WINDOW_HI])
        while low < high:
            middle = next_test(low, high)
            if low <= live[FIRST] < high:
                middle = live[FIRST]
            live[FIRST] = NO_SCORE  # the first test only
            live[TEST] = middle
            value = search(
                st,
                score_of_rank(middle),
                score_of_rank(middle + 1),
                DEPTH_INF,
                keys,
                data,
                io,
                buf,
                aux,
            )
            if io[ABORTED] != 0:
                if io[STOP] != RETEST or io[NODES] >= io[NODE_LIMIT]:
                    break
                io[STOP], io[ABORTED] = 0, 0  # the window moved: the next test
                st[:] = start
            else:
                least, most = narrowed(least, most, middle, value)
                live[LEAST], live[MOST] = least, most
            low, high = max(least, lo, live[WINDOW_LO]), min(most, hi, live[WINDOW_HI])
        # The rank, else the bound that the last window asked about: at least ``least`` (at or
        # above its high end), or at most ``most`` (at or below its low end).
        return int(least) if least >= min(most, hi, live[WINDOW_HI]) else int(most)

    search = _cached_njit(negamax, kernel, fingerprint)
    return Compiled(
        kernel=kernel,
        negamax=search,
        solve=_cached_njit(solve, kernel, fingerprint),
        solve_live=_cached_njit(solve_live, kernel, fingerprint),
    )


def table_entries(hash_mb: float) -> int:
    """The largest power-of-two entry count (at least 1,024) that fits ``hash_mb`` MiB."""
    entries = 1024
    while entries * 2 * 16 <= hash_mb * (1 << 20):
        entries *= 2
    return entries


def new_table(hash_mb: float) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Empty ``keys`` and ``data`` arrays using at most ``hash_mb`` MiB together (16 bytes per
    entry, a power-of-two count of at least 1,024 entries, half of ``hash_mb`` or more)."""
    entries = table_entries(hash_mb)
    keys, data = np.zeros(entries, np.int64), np.zeros(entries, np.int64)
    keys.fill(0)  # touch every page now rather than inside the first searches
    data.fill(0)
    return keys, data


def new_stack(kernel: Kernel) -> np.ndarray[Any, Any]:
    """The search stack for ``kernel``: a frame per ply."""
    return np.zeros((kernel.max_ply + 2, FRAME + kernel.max_moves), np.int64)


def new_io() -> np.ndarray[Any, Any]:
    io = np.zeros(IO_SIZE, np.int64)
    io[NODE_LIMIT] = np.iinfo(np.int64).max
    io[BEST_MOVE] = -1
    io[EPOCH] = -1
    return io
