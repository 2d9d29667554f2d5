"""The compiled chess core against Stockfish and the pure-Python tactical search, in one run.

    .venv/bin/python benchmarks/chess_core.py [--time 3] [--python-time 1] \\
        [--perft-depth 5] [--suite-depth 4] [--epd PATH --epd-time 0.5 --positions 1-50] \\
        [--stockfish /usr/games/stockfish]

Prints the command, then the compiled search's node-count signature (each position below to
``--signature-depth``, default 10: the counts repeat exactly, and a search change quotes them
before and after), then:

1. Search speed, one thread each, ``--time`` seconds a middlegame position: the compiled
   tactical search (``CoreSearch``, chess's default engine), Stockfish (``go movetime``, its
   ``nodes`` over its ``time``) and the pure-Python tactical search (``--python-time``); the
   ratio of the compiled search's nodes/s to Stockfish's in the same run.
2. Perft of the compiled board (standard perft, leaves counted in bulk) from the start to
   ``--perft-depth`` and Kiwipete to one less, checked against the suite's counts, with
   leaves/s; then every position of the perft suite (``tests/data/chess/perft.epd``) to
   ``--suite-depth`` (the tests stop at 3), every count checked.
3. With ``--epd``: a test suite (Win At Chess, ``benchmarks/data/win_at_chess_test.epd``:
   ``bm``/``am`` moves in SAN) at ``--epd-time`` seconds a position, solved by the compiled
   search and by Stockfish, each with a 64 MB table cleared before every position.

Stockfish is Debian's ``stockfish`` (``apt-get install -y stockfish``, 15.1 at
``/usr/games/stockfish``); without it its columns are left out. Compare ratios within one run:
the machine may be busy with other work.
"""

from __future__ import annotations

import argparse
import os
import shlex
import sys
import time
from pathlib import Path

import chess
import chess.engine

from zerosum.compiled import chess_board as cb
from zerosum.games.chess import Chess
from zerosum.search.core import Limit
from zerosum.search.tactical import TacticalSearch

PERFT_SUITE = Path(__file__).resolve().parents[1] / "tests" / "data" / "chess" / "perft.epd"
MIDDLEGAMES = [
    ("QGD", "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP1B1PPP/R2QKB1R w KQ - 0 8"),
    ("Kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1"),
    ("Italian", "r2q1rk1/ppp2ppp/2n1bn2/2b1p3/2B1P3/2NP1N2/PPP2PPP/R1BQ1RK1 w - - 0 8"),
    ("IQP", "2r3k1/pp2rppp/2n2n2/q2p4/3P4/P1NQ1N2/1P3PPP/R3R1K1 w - - 0 1"),
]


def search_speed(args: argparse.Namespace, stockfish: chess.engine.SimpleEngine | None) -> None:
    from zerosum.compiled.chess_engine import CoreSearch  # numba: timed by main

    print(f"\n## Search speed, one thread, {args.time:g} s a position", end="")
    print(f" (Python: {args.python_time:g} s)")
    print(
        f"{'position':<10} {'compiled n/s':>13} {'depth':>5} {'Stockfish n/s':>14} {'depth':>5} "
        f"{'Python n/s':>11} {'compiled/SF':>11}"
    )
    totals = {"compiled": [0, 0.0], "stockfish": [0, 0.0], "python": [0, 0.0]}
    for name, fen in MIDDLEGAMES:
        core = CoreSearch(Chess(fen), hash_mb=64)
        found = core.search(Limit(time=args.time))
        fast = found.stats.nodes / found.stats.time_s
        totals["compiled"][0] += found.stats.nodes
        totals["compiled"][1] += found.stats.time_s
        sf_text, sf_depth, ratio = "-", "-", "-"
        if stockfish is not None:
            info = stockfish.analyse(chess.Board(fen), chess.engine.Limit(time=args.time))
            seconds = max(info.get("time", args.time), 1e-3)
            sf = info.get("nodes", 0) / seconds
            totals["stockfish"][0] += info.get("nodes", 0)
            totals["stockfish"][1] += seconds
            sf_text, sf_depth, ratio = f"{sf:,.0f}", str(info.get("depth")), f"{fast / sf:.2f}"
        slow = TacticalSearch(Chess(fen)).search(Limit(time=args.python_time))
        totals["python"][0] += slow.stats.nodes
        totals["python"][1] += slow.stats.time_s
        py = slow.stats.nodes / slow.stats.time_s
        print(
            f"{name:<10} {fast:>13,.0f} {found.depth:>5} {sf_text:>14} {sf_depth:>5} "
            f"{py:>11,.0f} {ratio:>11}"
        )
    rate = {key: nodes / max(seconds, 1e-9) for key, (nodes, seconds) in totals.items()}
    line = f"{'all':<10} {rate['compiled']:>13,.0f} {'':>5} "
    if stockfish is not None:
        line += f"{rate['stockfish']:>14,.0f} {'':>5} {rate['python']:>11,.0f} "
        line += f"{rate['compiled'] / rate['stockfish']:>11.2f}"
    else:
        line += f"{'-':>14} {'':>5} {rate['python']:>11,.0f} {'-':>11}"
    print(line)
    print(f"compiled / Python: {rate['compiled'] / rate['python']:.1f}x")


def signature(args: argparse.Namespace) -> None:
    """The compiled search's node-count signature: each middlegame to ``--signature-depth`` with
    a fresh 16 MB table, one thread. The counts repeat exactly; a search change quotes them."""
    from zerosum.compiled.chess_engine import CoreSearch  # numba: timed by main

    depth = args.signature_depth
    print(f"\n## Node-count signature (depth {depth}, fresh 16 MB table, one thread)")
    total = 0
    for name, fen in MIDDLEGAMES:
        # A stop callback runs it in a helper thread from the start: no restart after the
        # main thread's first INLINE_NODES nodes to count in.
        never = Limit(depth=depth, stop=lambda: False)
        found = CoreSearch(Chess(fen), hash_mb=16).search(never)
        total += found.stats.nodes
        print(f"{name:<10} {found.stats.nodes:>12,}  value {found.value:>5}  {found.best_move}")
    print(f"{'signature':<10} {total:>12,}")


def perft_speed(args: argparse.Namespace) -> None:
    print(
        f"\n## Perft of the compiled board (depth {args.perft_depth}, suite to {args.suite_depth})"
    )
    rows = []
    for line in PERFT_SUITE.read_text().splitlines():
        if line.strip():
            fen, *counts = line.split(";")
            rows.append((fen.strip(), {int(c.split()[0][1:]): int(c.split()[1]) for c in counts}))
    ok = True
    for name, (fen, counts), depth in (
        ("start", rows[0], args.perft_depth),
        ("Kiwipete", rows[1], args.perft_depth - 1),
    ):
        state = cb.state_of(chess.Board(fen))
        started = time.perf_counter()
        leaves = cb.perft(state, depth)
        seconds = time.perf_counter() - started
        expected = counts.get(depth)
        ok &= expected is None or leaves == expected
        print(
            f"{name:<10} depth {depth}: {leaves:>12,} leaves (suite {expected or '-':>12,}) "
            f"in {seconds:6.2f} s = {leaves / seconds:>12,.0f} leaves/s"
        )
    board = chess.Board()
    started = time.perf_counter()
    leaves = python_chess_perft(board, 4)
    seconds = time.perf_counter() - started
    print(
        f"python-chess start depth 4: {leaves:>9,} leaves in {seconds:6.2f} s = "
        f"{leaves / seconds:>12,.0f} leaves/s (bulk-counted, the same method)"
    )
    started = time.perf_counter()
    total = wrong = 0
    for fen, counts in rows:
        depth = min(args.suite_depth, max(counts))
        leaves = cb.perft(cb.state_of(chess.Board(fen)), depth)
        total += leaves
        if leaves != counts[depth]:
            wrong += 1
            print(f"  MISMATCH {fen} depth {depth}: {leaves} != {counts[depth]}")
    seconds = time.perf_counter() - started
    ok &= wrong == 0
    print(
        f"suite: {len(rows)} positions to depth {args.suite_depth}, {total:,} leaves in "
        f"{seconds:.1f} s ({total / seconds:,.0f} leaves/s), {wrong} wrong"
    )
    if not ok:
        raise SystemExit("perft counts differ from the suite")


def python_chess_perft(board: chess.Board, depth: int) -> int:
    """python-chess's perft, the last ply counted in bulk as the compiled one counts it."""
    if depth == 1:
        return board.legal_moves.count()
    total = 0
    for move in board.legal_moves:
        board.push(move)
        total += python_chess_perft(board, depth - 1)
        board.pop()
    return total


def epd_suite(args: argparse.Namespace, stockfish: chess.engine.SimpleEngine | None) -> None:
    from zerosum.compiled.chess_engine import CoreSearch  # numba: timed by main

    lines = [line for line in Path(args.epd).read_text().splitlines() if line.strip()]
    first, _, last = args.positions.partition("-")
    chosen = lines[int(first) - 1 : int(last or first)]
    print(f"\n## {Path(args.epd).name} positions {args.positions}, {args.epd_time:g} s each")
    solved = {"compiled": 0, "stockfish": 0}
    core_table = None
    for line in chosen:
        board, ops = chess.Board.from_epd(line)
        good, avoid = ops.get("bm", []), ops.get("am", [])

        def right(
            move: chess.Move, good: list[chess.Move] = good, avoid: list[chess.Move] = avoid
        ) -> bool:
            return move in good if good else move not in avoid

        core = CoreSearch(Chess(board.fen()), hash_mb=64, table=core_table)
        core_table = (core.keys, core.data)
        core.clear()
        move = core.search(Limit(time=args.epd_time)).best_move
        solved["compiled"] += right(move)
        if stockfish is not None:
            stockfish.configure({"Clear Hash": None})
            played = stockfish.play(board, chess.engine.Limit(time=args.epd_time)).move
            solved["stockfish"] += played is not None and right(played)
    text = f"compiled-tactical: {solved['compiled']}/{len(chosen)}"
    if stockfish is not None:
        text += f", Stockfish: {solved['stockfish']}/{len(chosen)}"
    print(text)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--time", type=float, default=3.0)
    parser.add_argument("--python-time", type=float, default=1.0)
    parser.add_argument("--perft-depth", type=int, default=5)
    parser.add_argument("--suite-depth", type=int, default=4)
    parser.add_argument("--epd", help="an EPD test suite (bm/am), e.g. Win At Chess")
    parser.add_argument("--epd-time", type=float, default=0.5)
    parser.add_argument("--positions", default="1-300", help="which positions, e.g. 1-50")
    parser.add_argument("--stockfish", default="/usr/games/stockfish")
    parser.add_argument("--signature-depth", type=int, default=10)
    parser.add_argument("--skip", nargs="*", default=[], choices=["signature", "speed", "perft"])
    args = parser.parse_args()
    print("$ " + shlex.join([Path(sys.executable).name, *sys.argv]))
    print(f"{time.strftime('%Y-%m-%d')}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}")
    started = time.perf_counter()
    from zerosum.compiled.chess_engine import CoreSearch  # numba's cache, or a compile

    CoreSearch(Chess(), hash_mb=1).search(Limit(depth=2))
    print(f"compiled search loaded in {time.perf_counter() - started:.1f} s")
    stockfish = None
    if os.path.exists(args.stockfish):
        stockfish = chess.engine.SimpleEngine.popen_uci(args.stockfish)
        stockfish.configure({"Threads": 1, "Hash": 64})
        print(f"Stockfish: {stockfish.id.get('name')}")
    try:
        if "signature" not in args.skip:
            signature(args)
        if "speed" not in args.skip:
            search_speed(args, stockfish)
        if "perft" not in args.skip:
            perft_speed(args)
        if args.epd:
            epd_suite(args, stockfish)
    finally:
        if stockfish is not None:
            stockfish.quit()
    return 0


if __name__ == "__main__":
    sys.exit(main())
