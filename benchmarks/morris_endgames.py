"""Build the morris endgame databases and check them: build time and size of every class.

Builds every class up to ``--max-men`` (default four) men a side into a fresh store (or
``--store PATH``, skipping what it holds: point it at a store built by ``build-endgames
--max-men 6 --workers 2`` to check that one), prints each class's positions, symmetry classes,
stored entries, wins, losses, draws, longest win and loss, build time, the building process's
peak memory and the compressed size, then checks ``--sample`` random positions of every class
(and a quarter as many positions it decides, half of them among its longest) by one-ply
consistency against the morris game's legal moves (the stored value must be the best of its
moves' values), checks the compiled engine's probe against the pure-Python probe on as many
positions of every class, and times the probe the search calls.

Run from the repository root::

    .venv/bin/python benchmarks/morris_endgames.py [--store PATH] [--max-men N] [--sample N]
"""

from __future__ import annotations

import argparse
import os
import random
import sqlite3
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from zerosum.endgames.board import NINE_MENS_MORRIS
from zerosum.endgames.database import ClassInfo, Endgames
from zerosum.games.morris import Morris
from zerosum.games.morris_endgames import probe, solve_endgame


def random_game(rng: random.Random, mover: int, other: int) -> Morris:
    points = rng.sample(range(24), mover + other)
    board = ["."] * 24
    for p in points[:mover]:
        board[p] = "W"
    for p in points[mover:]:
        board[p] = "B"
    return Morris.from_position(f"{''.join(board)} w 0 0")


def decided_games(
    rng: random.Random, endgames: Endgames, mover: int, other: int, count: int
) -> list[Morris]:
    """``count`` positions the class decides (wins or losses), half of them among its longest,
    read from the stored table (random positions of the larger classes are nearly all draws)."""
    from zerosum.endgames.orbits import orbits
    from zerosum.endgames.retro import spread, subsets

    table = endgames.table(mover, other)
    decided = np.flatnonzero(table)
    longest = np.flatnonzero(table == table.max()) if len(decided) else decided
    picks = [int(i) for i in rng.sample(list(longest[:10_000]), min(count // 2, len(longest)))]
    picks += [int(decided[rng.randrange(len(decided))]) for _ in range(count - len(picks))]
    others = subsets(24 - mover, other)
    reps = orbits(NINE_MENS_MORRIS, mover).rep
    games = []
    for index in picks if len(decided) else []:
        mine = int(reps[index // len(others)])
        theirs = int(spread(int(others[index % len(others)]), mine, 24))
        board = ["W" if mine >> p & 1 else "B" if theirs >> p & 1 else "." for p in range(24)]
        games.append(Morris.from_position(f"{''.join(board)} w 0 0"))
    return games


def check_compiled_probe(
    rng: random.Random, endgames: Endgames, infos: list[ClassInfo], sample: int
) -> None:
    """The compiled engine's probe (``zerosum.compiled.morris.probe``, reading the mapped
    probe file of the default store) against the pure-Python probe, on ``sample`` random
    positions of every class and a quarter as many it decides."""
    from zerosum.compiled import morris as kernel
    from zerosum.compiled.engine import NO_SCORE
    from zerosum.compiled.solver import rank_of
    from zerosum.endgames.mapped import probe_path

    fresh = not probe_path(endgames.path).exists()
    timed = time.perf_counter()
    aux = kernel.endgame_tables()
    loaded = time.perf_counter() - timed
    how = "written, then mapped" if fresh else "mapped"
    print(f"\ncompiled probe: {len(aux):,} bytes {how} in {loaded:.2f} s")
    for info in infos:
        games = [random_game(rng, info.mover, info.other) for _ in range(sample)]
        games += decided_games(rng, endgames, info.mover, info.other, sample // 4)
        states = [np.array(kernel.state_of(game), np.int64) for game in games]
        kernel.probe(states[0], aux)  # compiled (or loaded from the cache) before the clock
        timed = time.perf_counter()
        found = [kernel.probe(state, aux) for state in states]
        first = (time.perf_counter() - timed) / len(states)
        timed = time.perf_counter()
        again = [kernel.probe(state, aux) for state in states]
        each = (time.perf_counter() - timed) / len(states)
        assert again == found
        bad = 0
        for game, score in zip(games, found, strict=True):
            exact = probe(game, endgames)
            if exact is None:
                bad += score != NO_SCORE
                continue
            rank = rank_of(score)
            moves = kernel.RANK_BASE - abs(rank) if rank else 0
            bad += (int(np.sign(rank)), moves) != (int(exact[0]), exact[1])
        print(
            f"  {info.name}: {bad} of {len(games)} differ from the pure-Python probe; "
            f"{first * 1e6:.1f} us a call from Python, {each * 1e6:.1f} us again (the pages "
            "read)",
            flush=True,
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--store", type=Path, help="build into this file (default: a new one)")
    parser.add_argument("--sample", type=int, default=2000, help="positions checked per class")
    parser.add_argument("--max-men", type=int, default=4, help="men a side, 3..6")
    args = parser.parse_args()
    print(f"$ {' '.join([os.path.basename(sys.executable), *sys.argv])}")
    path = args.store or Path(tempfile.mkdtemp()) / "endgames.sqlite"

    header = (
        f"{'class':<6} {'positions':>14} {'classes':>12} {'entries':>12} {'wins':>14} "
        f"{'losses':>12} {'draws':>14} {'win':>4} {'loss':>4} {'build s':>8} {'peak MB':>8} "
        f"{'stored KB':>10}"
    )
    print(f"store {path}\n\n{header}")

    def show(info: ClassInfo) -> None:
        with sqlite3.connect(path) as db:
            (size,) = db.execute(
                "SELECT length(data) FROM endgame_tables WHERE mover = ? AND other = ?",
                (info.mover, info.other),
            ).fetchone()
        print(
            f"{info.name:<6} {info.entries:>14,} {info.classes:>12,} {info.stored:>12,} "
            f"{info.wins:>14,} {info.losses:>12,} {info.draws:>14,} {info.longest_win:>4} "
            f"{info.longest_loss:>4} {info.build_s:>8.1f}{'' if info.built_now else '*'} "
            f"{info.peak_mb:>8,.0f} {size / 1024:>10,.0f}",
            flush=True,
        )

    started = time.perf_counter()
    with Endgames(path) as endgames:
        infos = endgames.build(args.max_men, on_class=show)
        seconds = time.perf_counter() - started
        print(
            f"\ntotal {sum(i.entries for i in infos):,} positions; {seconds:.1f} s wall "
            "(a pair x-y/y-x is solved together: each shows half its time; * = found stored)"
        )

        rng = random.Random(1)
        print(
            f"\none-ply consistency against Morris.legal_moves, {args.sample} random positions "
            f"a class and {args.sample // 4} it decides (half among its longest)"
        )
        for info in infos:
            bad = 0
            outcomes = {"win": 0, "loss": 0, "draw": 0}
            checked = time.perf_counter()
            games = [random_game(rng, info.mover, info.other) for _ in range(args.sample)]
            games += decided_games(rng, endgames, info.mover, info.other, args.sample // 4)
            for game in games:
                solution = solve_endgame(game, endgames)
                outcomes[solution.result.word] += 1
                if not solution.consistent:
                    bad += 1
                    print(f"  inconsistent: {game.position()}")
            print(
                f"  {info.name}: {bad} of {len(games)} inconsistent; {outcomes} "
                f"({time.perf_counter() - checked:.1f} s)",
                flush=True,
            )

        os.environ["ZEROSUM_ENDGAMES"] = str(path)
        check_compiled_probe(rng, endgames, infos, args.sample)
        games = [random_game(rng, 3, 3) for _ in range(2000)]
        for game in games:
            game.probe()  # load the table
        timed = time.perf_counter()
        for game in games:
            game.probe()
        each = (time.perf_counter() - timed) / len(games)
        assert all(probe(game, endgames) == game.probe() for game in games)
        print(f"\nMorris.probe: {each * 1e6:.1f} us a position (3-3, table loaded)")


if __name__ == "__main__":
    main()
