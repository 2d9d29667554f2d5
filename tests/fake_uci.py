"""A tiny UCI chess engine for tests: legal moves picked by a fixed rule, instantly.

Run as ``python fake_uci.py``. Options: ``Choice`` (spin; which legal move to pick, so two
engines differ), ``Sleep`` (spin, milliseconds to wait before each move: a slow engine) and
``Crash`` (check: exit instead of answering ``go``). Environment: ``FAKE_UCI_START_SECONDS``
delays the answer to ``uci`` (a slow start), ``FAKE_UCI_READY_SECONDS`` the first answer to
``isready`` (a search that loads slowly); ``FAKE_UCI_ONCE=PATH`` lets the engine start only
while PATH does not exist, and creates it (an engine that cannot start again after a crash);
``FAKE_UCI_LOG=PATH`` appends the engine's process id to PATH as it starts,
``FAKE_UCI_GO_LOG=PATH`` each ``go`` command it is sent.
Deterministic: the same position and options give the same move.
"""

from __future__ import annotations

import os
import sys
import time

import chess


def main() -> None:
    once = os.environ.get("FAKE_UCI_ONCE")
    if once:
        if os.path.exists(once):
            sys.exit(4)
        open(once, "w").close()
    log = os.environ.get("FAKE_UCI_LOG")
    if log:
        with open(log, "a") as out:
            out.write(f"{os.getpid()}\n")
    board = chess.Board()
    options = {"Choice": 0, "Sleep": 0, "Crash": False}
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        command = words[0]
        if command == "uci":
            time.sleep(float(os.environ.get("FAKE_UCI_START_SECONDS", "0")))
            print("id name FakeEngine 1.0")
            print("option name Choice type spin default 0 min 0 max 1000")
            print("option name Sleep type spin default 0 min 0 max 100000")
            print("option name Crash type check default false")
            print("uciok")
        elif command == "isready":
            time.sleep(float(os.environ.pop("FAKE_UCI_READY_SECONDS", "0")))
            print("readyok")
        elif command == "setoption":
            name, value = words[2], words[4]
            options[name] = value == "true" if name == "Crash" else int(value)
        elif command == "position":
            board = chess.Board()
            if "moves" in words:
                for text in words[words.index("moves") + 1 :]:
                    board.push_uci(text)
        elif command == "go":
            go_log = os.environ.get("FAKE_UCI_GO_LOG")
            if go_log:
                with open(go_log, "a") as out:
                    out.write(line.strip() + "\n")
            if options["Crash"]:
                sys.exit(3)
            time.sleep(int(options["Sleep"]) / 1000)
            moves = sorted(board.legal_moves, key=lambda move: move.uci())
            captures = [move for move in moves if board.is_capture(move)]
            pool = captures or moves
            pick = pool[(len(board.move_stack) * 7 + int(options["Choice"])) % len(pool)]
            print(f"info depth 1 score cp 0 pv {pick.uci()}")
            print(f"bestmove {pick.uci()}")
        elif command == "quit":
            return
        sys.stdout.flush()


if __name__ == "__main__":
    main()
