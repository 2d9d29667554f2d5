"""Matches: the Elo arithmetic, the books, colours, workers against serial play, UCI engines."""

from __future__ import annotations

import contextlib
import io
import math
import shlex
import sys
import time
from pathlib import Path

import chess
import chess.pgn
import pytest
from hypothesis import given
from hypothesis import strategies as st
from waiting import HANG_S

from zerosum import GAMES, get_game, solve
from zerosum.game import play_moves
from zerosum.match import (
    EngineSettings,
    Match,
    Opening,
    PlayerError,
    ProcessExecutor,
    TimeControl,
    TimeControlError,
    UciSettings,
    WorkerError,
    elo_from_score,
    estimate,
    parse_player,
    players,
    score_from_elo,
)
from zerosum.match.openings import openings_for, random_openings
from zerosum.match.players import time_budget
from zerosum.match.referee import check_moves

FAKE = str(Path(__file__).with_name("fake_uci.py"))


def fake(*options: str) -> UciSettings:
    """The test's fake UCI engine with ``NAME=VALUE`` options."""
    spec = parse_player(f"uci:{sys.executable} {FAKE}", options)
    assert isinstance(spec, UciSettings)
    return spec


# -- Elo --------------------------------------------------------------------------------------


def test_elo_of_known_scores() -> None:
    assert elo_from_score(0.5) == 0
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))  # 190.85
    assert elo_from_score(0.64) == pytest.approx(99.95, abs=0.01)
    assert elo_from_score(0.25) == pytest.approx(-elo_from_score(0.75))
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    assert score_from_elo(elo_from_score(0.3)) == pytest.approx(0.3)


def test_interval_of_a_known_match() -> None:
    # 6 wins, 2 draws, 2 losses: p = 0.7, per-game variance 0.16, standard error 0.04 ** 0.5.
    result = estimate(6, 2, 2)
    assert result.score == 0.7
    assert result.elo == pytest.approx(-400 * math.log10(1 / 0.7 - 1))  # +147.2
    error = math.sqrt(0.16 / 10)
    assert result.low == pytest.approx(-400 * math.log10(1 / (0.7 - 1.959964 * error) - 1))
    assert result.high == pytest.approx(-400 * math.log10(1 / (0.7 + 1.959964 * error) - 1))
    assert round(result.low) == -33
    assert round(result.high) == 504
    assert result.los == pytest.approx(0.5 * (1 + math.erf(4 / math.sqrt(16))))
    assert result.describe() == "+147 (95%: -33 .. +504)"


def test_a_perfect_score_reports_a_bound() -> None:
    won = estimate(10, 0, 0)
    assert won.elo is None
    assert won.high == math.inf
    assert won.low == pytest.approx(elo_from_score(1 / (1 + 1.959964**2 / 10)))
    assert round(won.low) == 166
    assert won.describe() == ">= +166 (95%; every game won)"
    lost = estimate(0, 0, 10)
    assert lost.elo is None
    assert lost.low == -math.inf
    assert lost.high == pytest.approx(-won.low)
    assert lost.describe() == "<= -166 (95%; every game lost)"


def test_all_draws_give_zero_with_a_finite_interval() -> None:
    drawn = estimate(0, 20, 0)
    assert drawn.elo == 0
    assert drawn.los == 0.5
    assert -math.inf < drawn.low < 0 < drawn.high < math.inf
    assert drawn.high == pytest.approx(-drawn.low)


@given(st.integers(0, 60), st.integers(0, 60), st.integers(0, 60))
def test_the_interval_holds_the_estimate_and_mirrors(wins: int, draws: int, losses: int) -> None:
    result = estimate(wins, draws, losses)
    mirror = estimate(losses, draws, wins)
    assert result.low <= (result.elo if result.elo is not None else result.low) <= result.high
    assert result.low == pytest.approx(-mirror.high)
    assert result.los == pytest.approx(1 - mirror.los)


# -- players, time controls and books ---------------------------------------------------------


def test_player_syntax() -> None:
    assert parse_player("zerosum") == EngineSettings()
    assert parse_player("level=3, seed=7") == EngineSettings(level=3, seed=7)
    assert parse_player("depth=0,algorithm=alphabeta,time=0.5,hash=8") == EngineSettings(
        depth=0, algorithm="alphabeta", time=0.5, hash_mb=8
    )
    uci = parse_player("uci:/usr/games/stockfish -x 'a b'", ["UCI_Elo=1350", "Hash = 16"])
    assert uci == UciSettings(
        ("/usr/games/stockfish", "-x", "a b"), (("UCI_Elo", "1350"), ("Hash", "16"))
    )
    for bad, words in (
        ("levle=3", "KEY=VALUE"),
        ("level=x", "whole number"),
        ("level=0", "out of range: expected 1..1000"),
        ("time=-1", "out of range"),
        ("depth=3,depth=4", "twice"),
        ("uci:", "no command"),
    ):
        with pytest.raises(PlayerError, match=words):
            parse_player(bad)
    with pytest.raises(PlayerError, match="not a UCI engine"):
        parse_player("level=2", ["Hash=16"])
    with pytest.raises(PlayerError, match="NAME=VALUE"):
        parse_player("uci:x", ["Hash"])


def test_time_controls() -> None:
    assert TimeControl.clock("60+0.6") == TimeControl(base=60, increment=0.6)
    assert TimeControl.clock("10").pgn() == "10"
    assert TimeControl.clock("60+0.6").pgn() == "60+0.6"
    for bad in ("x", "1+y", "-5", "0+1"):
        with pytest.raises(TimeControlError):
            TimeControl.clock(bad)
    with pytest.raises(TimeControlError, match="not two"):
        TimeControl(move_time=1, base=10)
    with pytest.raises(TimeControlError, match="not two"):
        TimeControl(move_time=1, nodes=1000)
    for bad in (0, -1, 2**63):
        with pytest.raises(TimeControlError, match="nodes per move"):
            TimeControl(nodes=bad)
    assert TimeControl(nodes=5000).describe() == "5000 nodes per move"
    assert TimeControl(nodes=5000).pgn() == "-"


def test_nodes_per_move_reach_uci_engines_as_go_nodes(tmp_path: Path) -> None:
    log = tmp_path / "go.log"
    engine = parse_player(f"uci:env FAKE_UCI_GO_LOG={log} {sys.executable} {FAKE}")
    match = Match(
        "chess", engine, fake(), games=1, max_plies=30, time_control=TimeControl(nodes=777)
    )
    assert match.play().games[0].moves
    sent = log.read_text().splitlines()
    assert sent and all(line == "go nodes 777" for line in sent)


def test_nodes_per_move_limit_zerosum_players_without_limits_of_their_own() -> None:
    def games(nodes: int) -> list[tuple[str, ...]]:
        control = TimeControl(nodes=nodes)
        match = Match(
            "connect4",
            parse_player("zerosum"),
            parse_player("zerosum"),
            games=2,
            time_control=control,
            max_plies=8,
        )
        return [record.moves for record in match.play().games]

    assert games(300) == games(300)


def test_every_tictactoe_book_opening_is_a_draw() -> None:
    for opening in openings_for("tictactoe"):
        game = get_game("tictactoe").new()
        play_moves(game, opening.moves)
        assert solve(game).value == 0, opening


def test_every_book_opening_is_legal() -> None:
    books = {name: openings_for(name) for name, spec in GAMES.items() if spec.openings}
    assert {"tictactoe", "connect4", "chess"} <= set(books)
    for game, book in books.items():
        assert len({opening.moves for opening in book}) == len(book) >= 6
        for opening in book:
            check_moves(game, opening.moves)
    board = chess.Board()
    for opening in books["chess"]:
        board.reset()
        for text in opening.moves:
            board.push_uci(text)


def test_random_openings_are_reproducible_and_distinct() -> None:
    first = random_openings("connect4", 5, plies=3, seed=4)
    assert first == random_openings("connect4", 5, plies=3, seed=4)
    assert len({opening.moves for opening in first}) == 5
    assert all(len(opening.moves) == 3 for opening in first)


# -- matches ----------------------------------------------------------------------------------


def test_perfect_tictactoe_players_draw_every_game() -> None:
    result = Match("tictactoe", parse_player("level=5"), parse_player("depth=0,seed=3"), 14).play()
    assert [record.winner for record in result.games] == [None] * 14
    assert (result.elo.draws, result.elo.elo) == (14, 0)
    python = Match(
        "tictactoe", parse_player("depth=0,algorithm=engine"), parse_player("level=5"), games=4
    ).play()
    assert python.elo.draws == 4


def test_connect4_colours_swap_and_openings_repeat() -> None:
    a, b = parse_player("level=1"), parse_player("depth=3,algorithm=alphabeta")
    result = Match("connect4", a, b, games=6).play()
    records = result.games
    assert [record.a_first for record in records] == [True, False] * 3
    assert [record.opening.moves for record in records] == [
        ("1",),
        ("1",),
        ("2",),
        ("2",),
        ("3",),
        ("3",),
    ]
    for record in records:
        game = get_game("connect4").new()
        play_moves(game, record.moves)  # every move legal
        assert game.outcome() is not None or record.ending.reason.startswith("move limit")
        if record.winner is not None:
            # The winner made the last move: first player if the move count is odd.
            first_won = len(record.moves) % 2 == 1
            assert (record.winner == "A") == (first_won == record.a_first)
    elo = result.elo
    assert elo.wins + elo.draws + elo.losses == 6
    assert elo.wins == sum(record.winner == "A" for record in records)


def _signature(records: object) -> list[tuple[object, ...]]:
    return [(r.index, r.a_first, r.moves, r.ending) for r in records]  # type: ignore[attr-defined]


def test_two_workers_play_the_same_games_as_one() -> None:
    match = Match(
        "connect4",
        parse_player("depth=4,algorithm=engine,seed=5"),
        parse_player("depth=3,algorithm=alphabeta,seed=9"),
        games=6,
        seed=11,
    )
    serial = match.play()
    seen: list[int] = []
    parallel = match.play(workers=2, on_game=lambda record: seen.append(record.index))
    assert sorted(seen) == list(range(6))
    assert _signature(parallel.games) == _signature(serial.games)
    # Another match seed changes the random choices among best moves.
    other = Match(match.game, match.a, match.b, games=6, seed=12).play()
    assert _signature(other.games) != _signature(serial.games)


def test_a_chess_match_between_uci_engines_writes_pgn() -> None:
    match = Match(
        "chess",
        fake("Choice=1"),
        fake("Choice=2"),
        games=2,
        time_control=TimeControl(move_time=0.05),
        openings=[Opening("Italian Game", ("e2e4", "e7e5", "g1f3", "b8c6", "f1c4", "f8c5"))],
    )
    result = match.play()
    assert result.names == ("FakeEngine 1.0 (Choice=1)", "FakeEngine 1.0 (Choice=2)")
    pgn = io.StringIO(result.pgn())
    for record in result.games:
        game = chess.pgn.read_game(pgn)
        assert game is not None
        headers = game.headers
        white, black = result.names if record.a_first else result.names[::-1]
        assert (headers["White"], headers["Black"]) == (white, black)
        assert headers["Result"] == record.result
        assert headers["Opening"] == "Italian Game"
        assert [move.uci() for move in game.mainline_moves()] == list(record.moves)
        board = game.end().board()
        outcome = board.outcome(claim_draw=True)
        assert outcome is not None and outcome.result() == record.result


def test_a_crashing_engine_loses_and_is_restarted() -> None:
    result = Match(
        "chess", fake("Crash=true"), fake(), games=2, time_control=TimeControl(move_time=0.05)
    ).play()
    assert [record.winner for record in result.games] == ["B", "B"]
    assert all("player failed: A" in record.ending.reason for record in result.games)


def test_a_slow_engine_loses_on_time() -> None:
    # A sleeps 1.8 s a move on a 1.5 s clock: it oversteps it whatever the load. B answers at
    # once and has the whole 1.5 s for its one move (game 2): a loaded machine's delays stay
    # far inside that, and a referee that did not keep clocks would let A play on.
    result = Match(
        "chess",
        fake("Sleep=1800"),
        fake(),
        games=2,
        time_control=TimeControl(base=1.5, increment=0.01),
    ).play()
    assert [record.winner for record in result.games] == ["B", "B"]
    assert all(record.ending.reason == "time forfeit" for record in result.games)
    # A flagged on its first move, as white and as black
    assert [len(record.moves) - len(record.opening.moves) for record in result.games] == [0, 1]
    assert result.games[0].pgn is not None and '[Termination "time forfeit"]' in result.games[0].pgn


CLOCK_OPENING = Opening("late middle game", tuple("352331443376367466661751415427"))
"""A connect four position 30 plies in, not decided: at most six moves a side remain."""


def test_zerosum_players_keep_a_clock(monkeypatch: pytest.MonkeyPatch) -> None:
    # Every move of a zerosum player without limits of its own gets a share of its clock (the
    # behaviour under test, checked on the budgets it asked for: a player ignoring the clock
    # asks for none). Whether a game also ends without a time forfeit is not checked: a search
    # polls its clock every so many nodes, and on a loaded machine those nodes take long
    # enough to pass a short budget late in a 2 s game.
    budgets: list[tuple[float, float]] = []

    def spy(turn: players.Turn) -> float | None:
        seconds = time_budget(turn)
        assert turn.clocks is not None and seconds is not None
        budgets.append((seconds, turn.clocks[turn.side]))
        return seconds

    monkeypatch.setattr(players, "time_budget", spy)
    result = Match(
        "connect4",
        parse_player("algorithm=engine"),
        parse_player("algorithm=alphabeta"),
        games=2,
        time_control=TimeControl(base=2, increment=0.05),
        openings=[CLOCK_OPENING],
    ).play()
    played = sum(len(record.moves) - len(CLOCK_OPENING.moves) for record in result.games)
    assert len(budgets) == played > 0  # every move was planned on the clock
    assert all(0 < seconds <= left / 2 for seconds, left in budgets)


def test_bad_players_fail_before_any_game() -> None:
    with pytest.raises(PlayerError, match="chess only"):
        Match("connect4", fake(), parse_player("level=1")).play()
    with pytest.raises(PlayerError, match="cannot start UCI engine"):
        Match("chess", parse_player("uci:/nonexistent/engine"), fake()).play()
    with pytest.raises(PlayerError, match="Nonsense"):
        Match("chess", fake("Nonsense=1"), fake()).play()
    with pytest.raises(PlayerError, match="out of range"):
        Match("tictactoe", parse_player("level=9"), parse_player("level=1")).play()


@pytest.mark.slow  # waits out an engine's load
def test_an_engine_slow_to_load_is_waited_for_up_to_its_load_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The first isready may take far longer than a move (a cold compile): LOAD_TIMEOUT, not
    # UCI_TIMEOUT, bounds it, and running out of it says what the engine failed to do.
    monkeypatch.setenv("FAKE_UCI_READY_SECONDS", "20")
    monkeypatch.setattr(players, "LOAD_TIMEOUT", 0.5)
    player = players.UciPlayer(players.UciSettings((sys.executable, FAKE)))
    with pytest.raises(
        PlayerError, match=r"did not answer isready within 0\.5 s: expected readyok"
    ):
        player.start()
    assert player.engine is None


@pytest.mark.parametrize(
    ("command", "timeout", "reason"),
    [
        # /bin/cat waited 30 s, then said nothing: an echo of 'uci' now fails at once
        (("cat",), 600.0, "it printed 'uci' back (an echo, not an engine)"),
        (("true",), 600.0, "died unexpectedly (exit code: 0); it printed nothing"),
        (("sleep", "600"), 0.5, "no 'uciok' within 0.5 s; it printed nothing"),
        # a shell prints at once; a Python program may take over 0.5 s to start on a loaded
        # machine (it had then printed nothing yet): 5 s, ten times that margin
        (
            ("sh", "-c", "echo hello; exec sleep 600"),
            5.0,
            "no 'uciok' within 5 s; it printed 'hello'",
        ),
    ],
    ids=["echo", "exits", "silent", "banner"],
)
def test_a_program_that_is_no_uci_engine_is_named_with_what_it_printed(
    monkeypatch: pytest.MonkeyPatch, command: tuple[str, ...], timeout: float, reason: str
) -> None:
    monkeypatch.setattr(players, "UCI_TIMEOUT", timeout)
    player = players.UciPlayer(players.UciSettings(command))
    with pytest.raises(PlayerError) as refused:
        player.start()
    message = str(refused.value)
    assert message.startswith("cannot start UCI engine") and reason in message, message
    assert message.endswith("expected a UCI engine, which answers 'uci' with 'uciok'")
    assert player.engine is None


def test_a_failing_task_is_reported_from_the_worker() -> None:
    with ProcessExecutor(1) as executor:
        assert sorted(executor.map_unordered(math.sqrt, [4.0, 9.0])) == [(0, 2.0), (1, 3.0)]
        with pytest.raises(WorkerError, match="math domain error"):
            list(executor.map_unordered(math.sqrt, [-1.0]))


def _has_uci_command() -> bool:
    from zerosum.cli import build_parser

    return "uci" in build_parser().format_usage()


@pytest.mark.slow  # a chess match over UCI
@pytest.mark.skipif(not _has_uci_command(), reason="zerosum has no uci command on this branch")
def test_zerosum_uci_plays_a_match() -> None:
    zerosum = parse_player(f"uci:{Path(sys.executable).with_name('zerosum')} uci")
    result = Match("chess", zerosum, fake(), games=2, time_control=TimeControl(move_time=0.05))
    played = result.play()
    assert played.names[1] == "FakeEngine 1.0"
    assert all(record.moves for record in played.games)


def test_an_engine_that_cannot_restart_forfeits(tmp_path: Path) -> None:
    # Game 1: the engine starts, then crashes; games 2 and 3: it cannot start again.
    once = f"FAKE_UCI_ONCE={tmp_path / 'started'}"
    crashing = parse_player(f"uci:env {once} {sys.executable} {FAKE}", ["Crash=true"])
    match = Match("chess", crashing, fake(), games=3)
    result = match.play(names=("crashing", "fake"))  # given names: no engine started to ask
    reasons = [record.ending.reason for record in result.games]
    assert [record.winner for record in result.games] == ["B", "B", "B"]
    assert (
        reasons[0]
        == "player failed: A: engine error: engine process died unexpectedly (exit code: 3)"
    )
    assert all(
        reason.startswith("player failed: A: cannot start UCI engine") for reason in reasons[1:]
    )


def test_zerosum_plays_chess_in_process_against_a_uci_engine() -> None:
    match = Match("chess", parse_player("depth=1"), fake(), games=2, max_plies=24)
    result = match.play()
    assert result.names == ("zerosum depth=1", "FakeEngine 1.0")
    for record in result.games:
        board = chess.Board()
        for text in record.moves:
            board.push_uci(text)  # every move legal
        assert len(record.moves) <= 24
        assert record.pgn is not None and "[Round" in record.pgn


# -- engine processes end on every path -------------------------------------------------------


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (from /proc: a zombie has ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state != "Z"


def _gone(*pids: int) -> bool:
    """Wait until none of ``pids`` runs (polling an observable state); whether they ended."""
    deadline = time.monotonic() + HANG_S
    while any(_alive(pid) for pid in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    return not any(_alive(pid) for pid in pids)


def _children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):
            found += [int(child) for child in (task / "children").read_text().split()]
    return found


def _interrupted() -> None:
    raise KeyboardInterrupt


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
@pytest.mark.parametrize("isolate", [True, False], ids=["own group", "caller's group"])
def test_an_engine_interrupted_while_it_quits_is_killed(
    monkeypatch: pytest.MonkeyPatch, isolate: bool
) -> None:
    """A Ctrl-C while the engine quits (a second Ctrl-C of a stopping match) used to leave it
    running: the kill after ``quit`` was skipped."""
    player = players.UciPlayer(players.UciSettings((sys.executable, FAKE)), isolate=isolate)
    player.start()
    assert player.engine is not None
    pid = player.engine.transport.get_pid()
    monkeypatch.setattr(player.engine, "quit", _interrupted)
    with pytest.raises(KeyboardInterrupt):
        player.close()
    assert player.engine is None
    assert _gone(pid)
    player.close()  # twice: nothing left to do


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_an_engine_that_does_not_quit_is_killed_with_its_process_group(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # An engine that started a process of its own (a helper that would outlive it).
    script = f"sleep 3600 & exec {shlex.quote(sys.executable)} {shlex.quote(FAKE)}"
    player = players.UciPlayer(players.UciSettings(("sh", "-c", script)))
    player.start()
    assert player.engine is not None
    pid = player.engine.transport.get_pid()
    helpers = _children(pid)
    assert helpers  # the sleep, started before the exec
    monkeypatch.setattr(player.engine, "quit", lambda: None)  # ignores quit: still running
    player.close()
    assert _gone(pid, *helpers)


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="needs Linux /proc")
def test_every_player_is_closed_when_closing_one_is_interrupted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from zerosum.match import runner

    started = []
    for role in ("A", "B"):
        player = runner._player(role, "chess", fake())
        player.new_game("chess", "0/0")
        assert isinstance(player, players.UciPlayer) and player.engine is not None
        started.append(player.engine.transport.get_pid())
        monkeypatch.setattr(player.engine, "quit", _interrupted)
    with pytest.raises(KeyboardInterrupt):
        runner.close_players()
    assert not runner._players
    assert _gone(*started)
