"""Export connect four's opening book from a store that ``zerosum book`` filled; check it.

The book is built in two steps, the first resumable:

    nice -n 19 zerosum book connect4 --plies 4 --store c4book.sqlite --hash 1024 --no-book
    python benchmarks/connect4_book.py export --store c4book.sqlite --plies 5

``zerosum book`` solves each position of four plies (or takes the best of its moves' stored
scores) and proves one best move of it, whose five-ply position's score it stores too; the
shallower positions take the best of their moves. ``export`` reads one ply deeper than the
book is complete, so that the book holds those best moves: a perfect player answers every
position of the book from it.

``export`` lists every position of at most ``--plies`` stones (one per mirror pair), reads
the scores the store holds, gives each shallower position whose moves are all known the best
of them (negamax), and writes every known score to the book file
(``src/zerosum/games/data/connect4_book.bin`` by default); the book's header records the
depth to which it is complete. It prints, ply by ply, how many positions the book holds, and
the file's size.

``check`` compares a random sample of the book's entries with Pascal Pons's C++ solver (built
apart: its ``c4solver`` reads lines of moves and prints ``moves score``):

    python benchmarks/connect4_book.py check --pons /tmp/pons/c4solver --sample 20 --seed 1

(``--record FILE`` appends the sample's positions with Pons's scores to ``FILE``: the tests
read ``tests/data/connect4/book_pons_sample``.)
"""

from __future__ import annotations

import argparse
import random
import subprocess
import sys
import time
from pathlib import Path

from zerosum.games.connect4 import Connect4
from zerosum.games.connect4_book import (
    OpeningBook,
    canonical_key,
    check_book,
    read_book,
    write_book,
)
from zerosum.store import Store

BOOK = Path(__file__).resolve().parent.parent / "src/zerosum/games/data/connect4_book.bin"


def layers(plies: int) -> list[dict[int, Connect4]]:
    """Every position of 0..``plies`` stones that is not over, one per mirror pair, by key."""
    found: list[dict[int, Connect4]] = [{canonical_key(Connect4()): Connect4()}]
    for _ in range(plies):
        following: dict[int, Connect4] = {}
        for game in found[-1].values():
            for move in game.legal_moves():
                child = game.copy()
                child.make(move)
                if child.outcome() is None:
                    following.setdefault(canonical_key(child), child)
        found.append(following)
    return found


def export(args: argparse.Namespace) -> int:
    started = time.perf_counter()
    found = layers(args.plies)
    scores: dict[int, int] = {}
    with Store(args.store) as store:
        for layer in found:
            for key in layer:
                score = store.get("connect4", key)
                if score is not None:
                    scores[key] = score
    stored = len(scores)
    partial = OpeningBook(0, scores)
    for layer in reversed(found[:-1]):  # negamax up from the deepest known scores
        for key, game in layer.items():
            if key not in scores:
                moves = partial.move_scores(game)
                if moves is not None:
                    scores[key] = max(score for _, score in moves)
    complete = -1
    for layer in found:
        if any(key not in scores for key in layer):
            break
        complete += 1
    book = OpeningBook(complete, scores)
    check_book(book)
    size = write_book(args.out, book)
    print(f"{stored} scores in {args.store}, {len(scores) - stored} derived from their moves")
    for ply, layer in enumerate(found):
        known = [key for key in layer if key in scores]
        every = sum(1 for game in layer.values() if book.move_scores(game) is not None)
        answered = sum(1 for game in layer.values() if book.best_moves(game))
        print(
            f"  ply {ply}: {len(known):,} of {len(layer):,} positions known, "
            f"{answered:,} with a best move, {every:,} with every move's score"
        )
    print(f"complete to ply {book.plies}; {len(book):,} entries; {args.out}: {size:,} bytes")
    print(f"{time.perf_counter() - started:.1f} s")
    return 0


def check(args: argparse.Namespace) -> int:
    book = read_book(args.book)
    check_book(book)
    found = layers(args.plies)
    named = {key: game.position() for layer in found for key, game in layer.items()}
    entries = sorted(key for key in book.scores if key in named)
    sample = random.Random(args.seed).sample(entries, min(args.sample, len(entries)))
    lines = "".join(named[key] + "\n" for key in sample)
    print(f"{len(book):,} entries, every key canonical and every score its moves' best")
    print(f"asking {args.pons} for {len(sample)} positions (seed {args.seed})", flush=True)
    started = time.perf_counter()
    done = subprocess.run(
        [args.pons], input=lines, capture_output=True, text=True, check=True
    ).stdout.split("\n")
    theirs = {words[0]: int(words[1]) for words in (line.split() for line in done) if words}
    agree = 0
    for key in sample:
        mine, pons = book.scores[key], theirs.get(named[key])
        agree += mine == pons
        if mine != pons:
            print(f"  {named[key]}: book {mine}, Pons {pons}")
    print(
        f"agreement {agree} of {len(sample)} sampled entries; "
        f"Pons took {time.perf_counter() - started:.0f} s"
    )
    if args.record is not None:  # the positions and Pons's scores, for the tests
        with args.record.open("a") as record:
            record.writelines(f"{named[key]} {theirs[named[key]]}\n" for key in sample)
    return 0 if agree == len(sample) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    commands = parser.add_subparsers(required=True)
    out = commands.add_parser("export", help="write the book file from a store")
    out.add_argument("--store", required=True, help="the SQLite store zerosum book filled")
    out.add_argument("--plies", type=int, default=5, help="the deepest positions to read")
    out.add_argument("--out", type=Path, default=BOOK, help=f"the book file (default {BOOK})")
    out.set_defaults(run=export)
    test = commands.add_parser("check", help="compare a sample with Pons's solver")
    test.add_argument("--pons", required=True, help="Pons's c4solver binary")
    test.add_argument("--book", type=Path, default=BOOK, help="the book file")
    test.add_argument("--sample", type=int, default=20, help="how many entries")
    test.add_argument("--plies", type=int, default=5, help="the deepest entries to sample")
    test.add_argument("--record", type=Path, help="append 'MOVES SCORE' (Pons's) to this file")
    test.add_argument("--seed", type=int, default=1, help="the sample's seed")
    test.set_defaults(run=check)
    args = parser.parse_args(argv)
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
