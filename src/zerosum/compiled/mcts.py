"""Monte Carlo tree search with a solver on a game's kernel: no Python per simulation.

This is :class:`zerosum.engines.mcts.MctsEngine`'s algorithm (selection, expansion, playout,
backup, score bounds; read its header first) compiled by numba for a :class:`Kernel` that offers
``legal`` and ``over``. The pure-Python engine is its readable twin: with the same seed, options
and simulation count, one thread of this search builds the same tree, visit for visit, because
both draw from the same generator (SplitMix64: ``below`` here, ``SplitMix64.below`` there) at the
same steps, list moves in the same order and break ties the same way.

The tree lives in preallocated arrays, one row per node, sized once from a memory budget
(:data:`NODE_BYTES` a node): ``nodes`` (``int64``: visits, bounds, move, first child, next
sibling, last child, untried moves, lock, scratch) and ``values`` (``float64``: reward sum,
prior). A node keeps the number of its untried moves; expanding one regenerates the legal moves
and takes the ``k``-th of those without a child yet (in the legal order), as the twin pops
``untried[k]``, so a position may have any number of moves. Children form a list in the order
they were added. Once every row is used the tree is full: simulations go on from the leaves
they reach. With ``expand_after`` > 1, a node below the root lists and grows its moves only
once it has that many visits (the twin's rule). A decisive playout asks the kernel's
``decisive`` for its choices, or, for a kernel without one, finds them by playing every move
and every reply on copies of the state. A simulation plays on a copy of the root's state and
never undoes a move, so a kernel's ``undo`` need not reach back further than its own search
does (morris keeps its history in rings); it plays out at most ``MAX_PLY`` plies, and stops
descending the tree at depth ``MAX_PLY``, as the twin does.

Several threads (``workers``) may share one tree, each with its own position, generator and
path. Then the search takes a node's lock (a compare-and-swap spin lock) to list or expand its
moves, counts visits with atomic adds, adds rewards without a lock (a lost update only blurs a
mean), and marks every node on its way down with a *virtual loss* (one visit lost for the side
that moved into it, undone by the backup) so the other threads look elsewhere. Bounds stay
sound without locks: a bound only ever tightens, every bound read is a valid one, and a thread
writes the tighter of what it computed and what is there. Threads give no repeatable visit
counts; their proven values are exact all the same.

The functions release the GIL; the caller polls time and its stop callback between calls (one
thread) or sets ``io[STOP]`` (threads).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Final

import numpy as np
from numba import types
from numba.core import cgutils as _cgutils
from numba.extending import intrinsic

from zerosum.compiled.engine import (
    NO_SCORE,
    Kernel,
    _cached_njit,
    _fingerprint,
    rank_of_lower_bound,
)
from zerosum.game import MAX_PLY, WIN

# Columns of ``nodes``.
VISITS: Final = 0
LOWER: Final = 1
UPPER: Final = 2
MOVE: Final = 3
FIRST: Final = 4
"""The first child (-1: none)."""
NEXT: Final = 5
"""The next sibling (-1: none)."""
LAST: Final = 6
"""The last child, where the next one is linked (-1: none)."""
UNTRIED: Final = 7
"""The legal moves without a child yet; :data:`NOT_LISTED` before the moves are listed."""
LOCK: Final = 8
SCRATCH: Final = 9
"""The node's new row while the tree is compacted."""
FIELDS: Final = 10
# Columns of ``values``.
TOTAL: Final = 0
"""The sum of the rewards backed up through the node, for the side that moved into it."""
PRIOR: Final = 1
"""The evaluation for the side that moved into the node, in ``(-1, 1)`` (progressive bias)."""
NODE_BYTES: Final = 8 * FIELDS + 8 * 2
"""The memory of one node."""

# Slots of ``io``.
SIZE: Final = 0
"""Rows in use (a failed allocation of a thread may leave it above ``CAPACITY``)."""
CAPACITY: Final = 1
STOP: Final = 2
STARTED: Final = 3
"""Simulations begun (threads)."""
SIMULATIONS: Final = 4
"""Simulations finished (threads)."""
EVALUATIONS: Final = 5
LIMIT: Final = 6
"""The simulations the threads may begin."""
IO_SIZE: Final = 7

NOT_LISTED: Final = -1
UNKNOWN: Final = WIN - 1
"""The bound of a position not over (as in the twin)."""
EVALUATION_SCALE: Final = 200.0
"""An evaluation of ``x`` rewards ``tanh(x / EVALUATION_SCALE)`` (as in the twin)."""
_GOLDEN: Final = -7046029254386353131  # 0x9E3779B97F4A7C15 as a signed 64-bit integer
_MASK63: Final = (1 << 63) - 1


# -- atomics (numba has none on the CPU: these emit LLVM's) ----------------------------------------

cgutils: Any = _cgutils  # numba's code generation helpers are untyped


def _atomic_add_typing(typingctx: Any, array: Any, index: Any, value: Any) -> Any:
    """``array[index] += value`` atomically (``index`` a tuple); the old value."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array_type, index_type = signature.args[0], signature.args[1]
        ary = context.make_array(array_type)(context, builder, args[0])
        indices = cgutils.unpack_tuple(builder, args[1], len(index_type))
        pointer = cgutils.get_item_pointer(context, builder, array_type, ary, indices)
        amount = context.cast(builder, args[2], signature.args[2], types.int64)
        return builder.atomic_rmw("add", pointer, amount, "seq_cst")

    return types.int64(array, index, value), codegen


def _compare_swap_typing(typingctx: Any, array: Any, index: Any, expected: Any, new: Any) -> Any:
    """Set ``array[index]`` to ``new`` if it is ``expected``, atomically; the old value."""

    def codegen(context: Any, builder: Any, signature: Any, args: Any) -> Any:
        array_type, index_type = signature.args[0], signature.args[1]
        ary = context.make_array(array_type)(context, builder, args[0])
        indices = cgutils.unpack_tuple(builder, args[1], len(index_type))
        pointer = cgutils.get_item_pointer(context, builder, array_type, ary, indices)
        old = context.cast(builder, args[2], signature.args[2], types.int64)
        value = context.cast(builder, args[3], signature.args[3], types.int64)
        pair = builder.cmpxchg(pointer, old, value, "seq_cst", "seq_cst")
        return builder.extract_value(pair, 0)

    return types.int64(array, index, expected, new), codegen


_atomic_add: Any = intrinsic(_atomic_add_typing)
_compare_swap: Any = intrinsic(_compare_swap_typing)


# -- Python helpers --------------------------------------------------------------------------


def signed(word: int) -> int:
    """An unsigned 64-bit word as the ``int64`` with the same bits."""
    word &= (1 << 64) - 1
    return word - (1 << 64) if word >> 63 else word


@dataclass(frozen=True)
class Functions:
    """The search compiled for one kernel. Arguments: ``nodes``, ``values`` and ``io`` from
    :func:`new_tree`, the root's row, and a thread's own arrays: the position ``st`` (the
    kernel's state at the root, never changed), ``rng`` (one word, the generator's state),
    ``path`` (:func:`path_size` words), ``moves`` (the kernel's ``max_moves``) and ``aux``
    (the kernel's ``load_aux()``, read by its ``probe``)."""

    kernel: Kernel
    run: Callable[..., int]
    """``run(st, nodes, values, io, root, rng, path, moves, aux, count, exploration, bias,
    evaluation, decisive, expand_after, solving, budgeted) -> simulations``: up to ``count``
    simulations on one thread, fewer if the root is done (proven; with ``solving``, every root
    move too) or, with no ``budgeted`` limit, the tree is full. ``evaluation`` and ``decisive``
    pick the playout (neither: random)."""
    run_shared: Callable[..., int]
    """The same for one of several threads on one tree: until ``io[STOP]``, ``io[LIMIT]``
    simulations begun by all, a done root or (not ``budgeted``) a full tree."""
    legal: Callable[..., int]
    """``legal(st, out) -> count``: the kernel's ``legal``."""
    done: Callable[..., bool]
    """``done(nodes, root, solving)``: whether ``run`` would stop at once for the root."""
    compact: Callable[..., int]
    """``compact(nodes, values, root, used) -> size``: keep only ``root``'s subtree (of the
    first ``used`` rows), ``root`` at row 0, children in the same order; the new size."""


_BUILT: dict[str, Functions] = {}


def functions(kernel: Kernel, *, threads: bool = False) -> Functions:
    """The search for ``kernel``, built once per process (from numba's disk cache if it can)
    and called once on an empty tree, so that no search pays for loading it; ``threads``
    loads the threads' entry point (``run_shared``) too, which one thread never calls (about
    a fifth of a cold compile: it compiles only when asked for)."""
    if kernel.legal is None or kernel.over is None:
        raise ValueError(f"kernel {kernel.name!r} offers no legal/over: no compiled MCTS")
    if kernel.name not in _BUILT:
        built = _build(kernel)
        _warm_up(built, threads=False)
        _BUILT[kernel.name] = built
    if threads and kernel.name not in _THREADED:
        _warm_up(_BUILT[kernel.name], threads=True)
        _THREADED.add(kernel.name)
    return _BUILT[kernel.name]


_THREADED: set[str] = set()
"""Kernels whose ``run_shared`` is loaded."""


def _warm_up(built: Functions, *, threads: bool) -> None:
    """Compile (or load) the entry points with the argument types the engines pass: one
    thread's, or (``threads``) the threads' ``run_shared``."""
    nodes, values, io = new_tree(2)
    new_root(nodes, values, io)
    io[STOP] = 1
    kernel = built.kernel
    st = np.zeros(kernel.state_size, np.int64)
    words = np.zeros(1, np.int64)
    path, moves = np.zeros(path_size(), np.int64), np.zeros(kernel.max_moves, np.int64)
    arrays = (st, nodes, values, io, 0, words, path, moves, kernel.load_aux())
    if threads:
        built.run_shared(*arrays, 1.0, 0.0, False, False, 1, False, False)
        return
    built.run(*arrays, 0, 1.0, 0.0, False, False, 1, False, False)
    built.done(nodes, 0, False)
    built.compact(nodes, values, 0, 1)


def _build(kernel: Kernel) -> Functions:  # one closure per step, read in order
    fingerprint = _fingerprint(kernel, __name__)
    legal: Any = kernel.legal
    over: Any = kernel.over
    play, evaluate = kernel.play, kernel.evaluate
    probe, rank_range = kernel.probe, kernel.rank_range
    choices: Any = kernel.decisive

    def below(rng: Any, bound: int) -> int:
        """A number in ``[0, bound)`` from the generator (the twin's ``below``)."""
        state = rng[0] + _GOLDEN
        rng[0] = state
        z = (state ^ ((state >> 30) & 0x3FFFFFFFF)) * -4658895280553007687
        z = (z ^ ((z >> 27) & 0x1FFFFFFFFF)) * -7723592293110705685
        z = z ^ ((z >> 31) & 0x1FFFFFFFF)
        return int(((z >> 1) & _MASK63) % bound)

    def up(score: int) -> int:
        if score > 0:
            return 1 - score
        if score < 0:
            return -1 - score
        return 0

    def sign(score: int) -> int:
        return (score > 0) - (score < 0)

    def lock(nodes: Any, node: int) -> None:
        while _compare_swap(nodes, (node, LOCK), 0, 1) != 0:
            pass

    def unlock(nodes: Any, node: int) -> None:
        _compare_swap(nodes, (node, LOCK), 1, 0)

    def select(
        nodes: Any, values: Any, node: int, prune: bool, exploration: float, bias: float
    ) -> int:
        """The twin's ``_select``: the child with the best UCT score among those that can
        still change ``node``'s value; -1 if there is none."""
        best, best_score = -1, -math.inf
        log_visits = math.log(max(nodes[node, VISITS], 1))
        floor = nodes[node, LOWER]
        child = nodes[node, FIRST]
        while child >= 0:
            lower = nodes[child, LOWER]
            if lower == nodes[child, UPPER] or (prune and up(lower) <= floor):
                child = nodes[child, NEXT]
                continue
            visits = nodes[child, VISITS]
            if visits == 0:
                return int(child)
            score = values[child, TOTAL] / visits + exploration * math.sqrt(log_visits / visits)
            if bias != 0.0:
                score += bias * values[child, PRIOR] / (visits + 1)
            if score > best_score:
                best, best_score = child, score
            child = nodes[child, NEXT]
        return int(best)

    def probed(st: Any, aux: Any) -> int:
        """The twin's probe: the exact score of a position the kernel's ``probe`` decides,
        counted from it (a win ``n`` plies later: ``WIN - n``), else ``NO_SCORE``. The kernel's
        ranks count plies to the game's end (morris: ``rank_range``'s top is a win at the next
        ply), which gives ``n``."""
        if aux.shape[0] == 0:
            return NO_SCORE
        score: int = probe(st, aux)
        if score == NO_SCORE or score == 0:
            return score
        rank: int = rank_of_lower_bound(score)
        plies: int = rank_range(st)[1] + 1 - abs(rank)
        return sign(score) * (WIN - plies)

    def expand(
        st: Any,
        nodes: Any,
        values: Any,
        node: int,
        child: int,
        rng: Any,
        moves: Any,
        aux: Any,
        bias: float,
    ) -> None:
        """Make ``child`` the child of ``node`` for a random untried move, made on ``st``."""
        untried = nodes[node, UNTRIED]
        count = legal(st, moves)
        k = below(rng, untried)
        move = -1
        for index in range(count):  # the k-th legal move without a child
            sibling = nodes[node, FIRST]
            while sibling >= 0 and nodes[sibling, MOVE] != moves[index]:
                sibling = nodes[sibling, NEXT]
            if sibling < 0:
                if k == 0:
                    move = moves[index]
                    break
                k -= 1
        if move < 0:
            raise ValueError("the kernel's legal moves changed between two listings")
        play(st, move)
        lower, upper = -UNKNOWN, UNKNOWN
        score = over(st)
        if score != NO_SCORE:
            lower = upper = sign(score) * WIN
        else:
            score = probed(st, aux)
            if score != NO_SCORE:
                lower = upper = score
        nodes[child, VISITS] = 0
        nodes[child, LOWER], nodes[child, UPPER] = lower, upper
        nodes[child, MOVE] = move
        nodes[child, FIRST] = nodes[child, NEXT] = nodes[child, LAST] = -1
        nodes[child, UNTRIED] = NOT_LISTED
        nodes[child, LOCK] = 0
        values[child, TOTAL] = 0.0
        values[child, PRIOR] = -math.tanh(evaluate(st) / EVALUATION_SCALE) if bias > 0 else 0.0
        # Link the child before it leaves the untried moves: a thread that reads no untried
        # move then sees every child (the swaps are full barriers).
        last = nodes[node, LAST]
        if last < 0:
            _compare_swap(nodes, (node, FIRST), -1, child)
        else:
            _compare_swap(nodes, (last, NEXT), -1, child)
        nodes[node, LAST] = child
        _compare_swap(nodes, (node, UNTRIED), untried, untried - 1)

    def update_bounds(nodes: Any, node: int, shared: bool) -> bool:
        """The twin's ``update_bounds``; with ``shared``, never loosens what is there."""
        untried = _atomic_add(nodes, (node, UNTRIED), 0) if shared else nodes[node, UNTRIED]
        lower = upper = -UNKNOWN
        child = nodes[node, FIRST]
        while child >= 0:
            lower = max(lower, up(nodes[child, UPPER]))
            upper = max(upper, up(nodes[child, LOWER]))
            child = nodes[child, NEXT]
        if untried != 0:
            upper = UNKNOWN  # a move not tried yet may still win at once
        old_lower, old_upper = nodes[node, LOWER], nodes[node, UPPER]
        if shared:
            lower, upper = max(lower, old_lower), min(upper, old_upper)
        nodes[node, LOWER], nodes[node, UPPER] = lower, upper
        return bool(lower != old_lower or upper != old_upper)

    def decisive_by_play(st: Any, out: Any) -> int:
        """The twin's ``decisive_moves`` for a kernel without ``decisive``: every move and reply
        played on copies of ``st``."""
        count = legal(st, out)
        after, answered = st.copy(), st.copy()
        replies = np.empty_like(out)
        safe = 0
        for index in range(count):
            move = out[index]
            after[:] = st
            play(after, move)
            score = over(after)
            if score != NO_SCORE:
                if score < 0:  # the side to move after the move lost: a win
                    out[0] = move
                    return 1
                out[safe] = move  # a draw; safe <= index: this slot was read already
                safe += 1
                continue
            threatened = False
            for reply in range(legal(after, replies)):
                answered[:] = after
                play(answered, replies[reply])
                score = over(answered)
                if score != NO_SCORE and score < 0:
                    threatened = True
                    break
            if not threatened:
                out[safe] = move
                safe += 1
        return safe if safe else count

    def playout(st: Any, nodes: Any, leaf: int, rng: Any, moves: Any, decisive: bool) -> float:
        """The twin's ``_playout``, random or decisive: a reward for the leaf's side to move
        (``st``, at the leaf, is left at the playout's end)."""
        if nodes[leaf, LOWER] == nodes[leaf, UPPER]:
            return float(sign(nodes[leaf, LOWER]))
        made = 0
        while made < MAX_PLY and over(st) == NO_SCORE:
            count = choices(st, moves) if decisive else legal(st, moves)
            if count == 0:
                raise ValueError("a position with no legal moves that is not over")
            play(st, moves[below(rng, count)])
            made += 1
        score = over(st)
        reward = 0.0 if score == NO_SCORE else float(sign(score))
        return reward if made % 2 == 0 else -reward

    def simulate(
        st: Any,
        work: Any,
        nodes: Any,
        values: Any,
        io: Any,
        root: int,
        rng: Any,
        path: Any,
        moves: Any,
        aux: Any,
        exploration: float,
        bias: float,
        evaluation: bool,
        decisive: bool,
        expand_after: int,
        prune_root: bool,
        shared: bool,
    ) -> int:
        """One simulation from ``root`` (``st`` at its position) on ``work`` (a copy of ``st``
        made here); the evaluations it made. The steps are the twin's ``_simulate``."""
        capacity = io[CAPACITY]
        depth, node, evaluations = 0, root, 0
        path[0] = root
        work[:] = st
        # Steps 1 and 2. Selection, then the expansion of one untried move.
        while depth < MAX_PLY:
            # A young leaf below the root plays out (threads: not counting this visit).
            if depth > 0 and nodes[node, VISITS] - shared < expand_after:
                break
            if shared:
                lock(nodes, node)
            untried = nodes[node, UNTRIED]
            if untried == NOT_LISTED:
                untried = legal(work, moves)
                if untried == 0:
                    if shared:
                        unlock(nodes, node)
                    raise ValueError("a position with no legal moves that is not over")
                nodes[node, UNTRIED] = untried
            if untried != 0 and io[SIZE] < capacity:
                if shared:
                    child = _atomic_add(io, (SIZE,), 1)
                else:
                    child = io[SIZE]
                    io[SIZE] = child + 1
                if child < capacity:
                    expand(work, nodes, values, node, child, rng, moves, aux, bias)
                    if shared:  # the virtual loss, before another thread can see the child
                        nodes[child, VISITS] = 1
                        values[child, TOTAL] = -1.0
                        unlock(nodes, node)
                    evaluations += bias > 0
                    depth += 1
                    path[depth] = child
                    node = child
                    break
            if shared:
                unlock(nodes, node)
            child = select(nodes, values, node, prune_root or node != root, exploration, bias)
            if child < 0:
                break  # a full tree ends here: play out from this node
            play(work, nodes[child, MOVE])
            if shared:
                _atomic_add(nodes, (child, VISITS), 1)
                values[child, TOTAL] -= 1.0
            depth += 1
            path[depth] = child
            node = child
        # Step 3. Playout: a reward for the leaf's side to move.
        if evaluation and nodes[node, LOWER] != nodes[node, UPPER]:
            reward = math.tanh(evaluate(work) / EVALUATION_SCALE)
            evaluations += 1
        else:
            reward = playout(work, nodes, node, rng, moves, decisive)
        # Step 4. Backup: rewards for the side that moved into each node, then the bounds.
        changed = True
        for d in range(depth, -1, -1):
            step = path[d]
            if not shared:
                nodes[step, VISITS] += 1
                values[step, TOTAL] -= reward
            elif d > 0:  # its visit was counted on the way down, with a loss to take back
                values[step, TOTAL] += 1.0 - reward
            else:
                _atomic_add(nodes, (step, VISITS), 1)
            reward = -reward
            if d < depth and changed:
                changed = update_bounds(nodes, step, shared)
        return evaluations

    def done(nodes: Any, root: int, solving: bool) -> bool:
        """The root is proven (``solving``: and every root move)."""
        if not solving:
            return bool(nodes[root, LOWER] == nodes[root, UPPER])
        if nodes[root, UNTRIED] != 0:
            return False
        child = nodes[root, FIRST]
        while child >= 0:
            if nodes[child, LOWER] != nodes[child, UPPER]:
                return False
            child = nodes[child, NEXT]
        return True

    def run(
        st: Any,
        nodes: Any,
        values: Any,
        io: Any,
        root: int,
        rng: Any,
        path: Any,
        moves: Any,
        aux: Any,
        count: int,
        exploration: float,
        bias: float,
        evaluation: bool,
        decisive: bool,
        expand_after: int,
        solving: bool,
        budgeted: bool,
    ) -> int:
        made = 0
        work = st.copy()
        while made < count:
            if done(nodes, root, solving):
                break
            if not budgeted and io[SIZE] >= io[CAPACITY]:
                break
            io[EVALUATIONS] += simulate(
                st, work, nodes, values, io, root, rng, path, moves, aux, exploration, bias,
                evaluation, decisive, expand_after, not solving, False,
            )  # fmt: skip
            made += 1
        return made

    def run_shared(
        st: Any,
        nodes: Any,
        values: Any,
        io: Any,
        root: int,
        rng: Any,
        path: Any,
        moves: Any,
        aux: Any,
        exploration: float,
        bias: float,
        evaluation: bool,
        decisive: bool,
        expand_after: int,
        solving: bool,
        budgeted: bool,
    ) -> int:
        made = 0
        work = st.copy()
        while io[STOP] == 0 and not done(nodes, root, solving):
            if not budgeted and io[SIZE] >= io[CAPACITY]:
                break
            if _atomic_add(io, (STARTED,), 1) >= io[LIMIT]:
                break
            evaluations = simulate(
                st, work, nodes, values, io, root, rng, path, moves, aux, exploration, bias,
                evaluation, decisive, expand_after, not solving, True,
            )  # fmt: skip
            _atomic_add(io, (EVALUATIONS,), evaluations)
            _atomic_add(io, (SIMULATIONS,), 1)
            made += 1
        return made

    def compact(nodes: Any, values: Any, root: int, used: int) -> int:
        """Number ``root``'s subtree in creation order (a parent before its children, so rows
        only move down and the copy can run in place), then relink it."""
        size = 0
        used = min(used, nodes.shape[0])
        for row in range(used):
            nodes[row, SCRATCH] = -1
        # Mark the subtree: a node's new row goes into SCRATCH; a stack of rows in LOCK.
        nodes[root, SCRATCH] = 0
        top = 0
        nodes[0, LOCK] = root
        stack_rows = 1
        while top < stack_rows:
            node = nodes[top, LOCK]
            top += 1
            child = nodes[node, FIRST]
            while child >= 0:
                nodes[child, SCRATCH] = 0
                nodes[stack_rows, LOCK] = child
                stack_rows += 1
                child = nodes[child, NEXT]
        for row in range(used):
            if nodes[row, SCRATCH] == 0:
                nodes[row, SCRATCH] = size
                size += 1
        for row in range(used):
            new = nodes[row, SCRATCH]
            if new < 0:
                continue
            for field in (FIRST, NEXT, LAST):
                link = nodes[row, field]
                nodes[row, field] = nodes[link, SCRATCH] if link >= 0 else -1
            if row == root:
                nodes[row, NEXT] = -1
            if new != row:
                for field in range(FIELDS):
                    nodes[new, field] = nodes[row, field]
                values[new, TOTAL], values[new, PRIOR] = values[row, TOTAL], values[row, PRIOR]
        for row in range(size):
            nodes[row, LOCK] = 0
        return size

    def cached(function: Callable[..., Any]) -> Any:
        return _cached_njit(function, kernel, fingerprint)

    # Helpers first: each compiled function calls the dispatchers of those it uses.
    below = cached(below)
    up = cached(up)
    sign = cached(sign)
    lock = cached(lock)
    unlock = cached(unlock)
    select = cached(select)
    probed = cached(probed)
    expand = cached(expand)
    update_bounds = cached(update_bounds)
    if choices is None:
        choices = cached(decisive_by_play)
    playout = cached(playout)
    simulate = cached(simulate)
    done = cached(done)
    return Functions(
        kernel=kernel,
        run=cached(run),
        run_shared=cached(run_shared),
        legal=legal,
        done=done,
        compact=cached(compact),
    )


def path_size() -> int:
    """The words of a thread's ``path``: a simulation descends at most ``MAX_PLY`` plies."""
    return MAX_PLY + 2


def capacity_of(hash_mb: float) -> int:
    """The nodes a tree of ``hash_mb`` MiB holds (at least 2)."""
    return max(2, int(hash_mb * (1 << 20)) // NODE_BYTES)


def new_tree(
    capacity: int,
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Empty ``nodes``, ``values`` and ``io`` arrays for a tree of ``capacity`` nodes."""
    nodes = np.zeros((capacity, FIELDS), np.int64)
    values = np.zeros((capacity, 2), np.float64)
    io = np.zeros(IO_SIZE, np.int64)
    io[CAPACITY] = capacity
    return nodes, values, io


def new_root(
    nodes: np.ndarray[Any, Any], values: np.ndarray[Any, Any], io: np.ndarray[Any, Any]
) -> None:
    """Start a tree of one node, the root, at row 0."""
    nodes[0] = (0, -UNKNOWN, UNKNOWN, -1, -1, -1, -1, NOT_LISTED, 0, 0)
    values[0] = 0.0
    io[SIZE] = 1
