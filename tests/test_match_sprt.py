"""Sequential tests of matches: the LLR, the stop, determinism over executors, the book."""

from __future__ import annotations

import itertools
import json
import math
import random
from collections.abc import Callable, Collection
from concurrent.futures import Future
from typing import Any, TypeVar

import chess
import pytest
from hypothesis import given
from hypothesis import strategies as st

from zerosum.cli import main
from zerosum.game import ZerosumError
from zerosum.match import Match, Pentanomial, SprtError, SprtSettings, llr, parse_player
from zerosum.match.openings import BookError, balanced_openings, parse_epd_book
from zerosum.match.runner import GameRecord, settle
from zerosum.match.sprt import NELO_PER_T, SequentialTest, run_test
from zerosum.runtime.executor import Executor

T = TypeVar("T")

# -- the log-likelihood ratio -----------------------------------------------------------------


def test_llr_of_fishtests_published_example() -> None:
    # Fishtest's statistics page of a test with these pair counts and normalized bounds 0, 4
    # reports "Normalized (exact)" LLR -0.54912.
    assert llr([13, 37, 50, 25, 3], 0, 4) == pytest.approx(-0.54912, abs=5e-5)


def test_llr_of_two_outcomes_by_hand() -> None:
    # 30 pairs scored 1/2 point and 50 scored 3/2: on these two outcomes (x = 1/4 and 3/4) a
    # distribution (1 - r, r) has mean 1/4 + r/2 and deviation sqrt(r (1 - r)) / 2. H0 (nelo
    # 0) needs mean 1/2: r = 1/2. H1 needs (r - 1/2) = tau sqrt(r (1 - r)), tau = sqrt(2) nelo
    # / (800 / ln 10): r = 1/2 + d, d = tau / (2 sqrt(1 + tau^2)). The zero counts weigh
    # EPSILON each, which moves the result by about 1e-4.
    tau = math.sqrt(2) * 20 / NELO_PER_T
    d = tau / (2 * math.sqrt(1 + tau * tau))
    by_hand = 30 * math.log((0.5 - d) / 0.5) + 50 * math.log((0.5 + d) / 0.5)
    assert round(by_hand, 4) == 1.3622
    assert llr([0, 30, 0, 50, 0], 0, 20) == pytest.approx(by_hand, abs=1e-3)


def test_llr_before_any_pair_and_of_symmetric_results() -> None:
    assert llr([0, 0, 0, 0, 0], 0, 5) == 0
    assert llr([5, 10, 20, 10, 5], -5, 5) == pytest.approx(0, abs=1e-9)
    assert llr([1, 0, 0, 0, 1], -5, 5) == pytest.approx(0, abs=1e-9)


counts = st.lists(st.integers(0, 30), min_size=5, max_size=5).filter(lambda c: sum(c) > 0)


@given(counts, st.floats(-30, 30), st.floats(0.5, 30))
def test_llr_mirrors_when_the_players_swap(c: list[int], elo0: float, width: float) -> None:
    # B's view of the same pairs: counts reversed, bounds negated and swapped.
    elo1 = elo0 + width
    assert llr(c[::-1], -elo1, -elo0) == pytest.approx(-llr(c, elo0, elo1), abs=1e-6)


@given(counts, st.floats(-20, 20), st.floats(0.5, 20))
def test_a_won_pair_raises_the_llr_and_a_lost_one_lowers_it(
    c: list[int], elo0: float, width: float
) -> None:
    base = llr(c, elo0, elo0 + width)
    assert llr([c[0], c[1], c[2], c[3], c[4] + 1], elo0, elo0 + width) > base - 1e-9
    assert llr([c[0] + 1, c[1], c[2], c[3], c[4]], elo0, elo0 + width) < base + 1e-9


def test_llr_reaches_far_hypotheses() -> None:
    assert llr([0, 0, 0, 0, 50], -300, 300) > 50  # solved by continuation from the data
    assert llr([50, 0, 0, 0, 0], -300, 300) < -50


# -- settings, pentanomial, Elo ---------------------------------------------------------------


def test_settings_and_bounds() -> None:
    settings = SprtSettings.parse("0,5")
    assert (settings.elo0, settings.elo1, settings.alpha, settings.beta) == (0, 5, 0.05, 0.05)
    assert settings.upper == pytest.approx(math.log(0.95 / 0.05)) == pytest.approx(2.944, abs=1e-3)
    assert settings.lower == pytest.approx(-settings.upper)
    assert SprtSettings(0, 5, alpha=0.01, beta=0.1).lower == pytest.approx(math.log(0.1 / 0.99))
    assert settings.decide(3.0) == "H1" and settings.decide(-3.0) == "H0"
    assert settings.decide(0.0) is None
    for text in ("5", "5,0", "a,b", "0,inf", "1,1", "0,1e308", "-1001,0", "0,1000.5"):
        with pytest.raises(SprtError):
            SprtSettings.parse(text)
    with pytest.raises(SprtError, match="alpha"):
        SprtSettings(0, 5, alpha=0.6)


def test_the_widest_bounds_give_an_llr_for_every_small_match() -> None:
    """At the bounds' limit, every pentanomial of 0 or 3 pairs per outcome has an LLR (a bound
    of 1e308 had none: ``ArithmeticError``)."""
    for counts in itertools.product((0, 3), repeat=5):
        for elo0, elo1 in ((-1000, 1000), (999, 1000), (-1000, -999)):
            assert math.isfinite(llr(counts, elo0, elo1)), (counts, elo0, elo1)


def test_pentanomial_statistics() -> None:
    penta = Pentanomial.of_pairs([0, 0.5, 1, 1, 1.5, 2, 2, 2])
    assert penta.counts == (1, 1, 2, 1, 3) and penta.pairs == 8
    assert penta.score == pytest.approx((0 + 0.25 + 0.5 + 0.5 + 0.75 + 3) / 8)
    mu = penta.score
    xs = [0, 0.25, 0.5, 0.5, 0.75, 1, 1, 1]
    assert penta.variance == pytest.approx(sum((x - mu) ** 2 for x in xs) / 8)
    nelo = penta.normalized_elo
    assert nelo == pytest.approx((mu - 0.5) / math.sqrt(2 * penta.variance) * 800 / math.log(10))
    elo = penta.elo(9, 4, 3)
    error = math.sqrt(penta.variance / 8)
    assert elo.low == pytest.approx(-400 * math.log10(1 / (mu - 1.959964 * error) - 1))
    assert elo.elo == pytest.approx(-400 * math.log10(1 / mu - 1))
    assert (elo.wins, elo.draws, elo.losses) == (9, 4, 3)
    with pytest.raises(ValueError):
        Pentanomial.of_pairs([0.7])
    same = Pentanomial.of_pairs([1, 1])
    assert same.normalized_elo is None and same.elo(0, 4, 0).elo == 0


# -- the sequential stop ----------------------------------------------------------------------


def test_the_test_stops_at_the_first_crossing() -> None:
    settings = SprtSettings(0, 10)
    rng = random.Random(4)
    stream = [rng.choice([1.0, 1.5, 1.5, 2.0, 0.5, 1.0]) for _ in range(400)]
    state, used = run_test(settings, stream)
    assert state.decision == "H1" and state.pentanomial.pairs == used < 400
    assert state.llr == pytest.approx(llr(state.pentanomial.counts, 0, 10))
    # No prefix before it had crossed either bound.
    for length in range(1, used):
        value = llr(Pentanomial.of_pairs(stream[:length]).counts, 0, 10)
        assert settings.lower < value < settings.upper
    assert llr(Pentanomial.of_pairs(stream[:used]).counts, 0, 10) >= settings.upper


def test_losing_pairs_accept_h0_and_a_decided_test_takes_no_more() -> None:
    test = SequentialTest(SprtSettings(0, 5))
    states = []
    while test.state.decision is None:
        states.append(test.add(0.5))
    assert states[-1].decision == "H0" and len(states) > 1
    assert all(s.decision is None for s in states[:-1])
    with pytest.raises(RuntimeError):
        test.add(2.0)
    draws, used = run_test(SprtSettings(0, 5), [1.0] * 50)
    assert draws.decision is None and used == 50  # level, no variance: nothing decided


# -- a test continued from its earlier runs ---------------------------------------------------


def test_pentanomial_counts_are_read_as_a_report_prints_them() -> None:
    assert Pentanomial.parse("7,21,19,17,8").counts == (7, 21, 19, 17, 8)
    assert Pentanomial.parse("[7 21 19 17 8]") == Pentanomial.parse(" 7, 21, 19, 17, 8 ")
    for bad in ("7,21,19,17", "7,21,19,17,8,1", "7,21,-1,17,8", "7,21,x,17,8", "1.5,0,0,0,0", ""):
        with pytest.raises(SprtError, match="expected five whole numbers >= 0"):
            Pentanomial.parse(bad)


def test_a_continued_test_is_the_test_of_the_summed_pairs() -> None:
    earlier = Pentanomial((3, 10, 12, 14, 6))  # LLR 0.56 at [0, 20]: undecided
    settings = SprtSettings(0, 20, earlier=earlier)
    assert SequentialTest(settings).state.llr == llr(earlier.counts, 0, 20)
    points = [2.0, 1.5, 1.0, 1.5, 0.5, 2.0] * 40
    state, used = run_test(settings, points)
    fresh, fresh_used = run_test(SprtSettings(0, 20), points)
    assert state.decision == fresh.decision == "H1" and used < fresh_used
    assert state.run_pairs == used and state.pentanomial.pairs == earlier.pairs + used
    # each step is the test of the earlier pairs and the run's so far, summed
    for pairs in (1, used - 1, used):
        summed = earlier + Pentanomial.of_pairs(points[:pairs])
        value = llr(summed.counts, 0, 20)
        assert settings.decide(value) == (state.decision if pairs == used else None)
    assert state.pentanomial == earlier + Pentanomial.of_pairs(points[:used])
    assert state.llr == llr(state.pentanomial.counts, 0, 20)
    assert "after 45 earlier pairs" in settings.describe()


def test_earlier_pairs_that_already_decide_are_refused() -> None:
    for counts in ("2,10,20,30,20", "20,30,20,10,2"):  # LLR 3.33 and -3.83 at [0, 20]
        with pytest.raises(SprtError, match="already decide the test"):
            SprtSettings.parse("0,20", earlier=counts)


# -- matches under a test: the same result wherever the games run -----------------------------


def _match(games: int = 60) -> Match:
    return Match(
        "connect4",
        parse_player("depth=4,algorithm=engine,seed=5"),
        parse_player("depth=1,algorithm=engine,seed=9"),
        games=games,
        seed=3,
        sprt=SprtSettings(0, 100),
    )


def _signature(records: Collection[GameRecord]) -> list[tuple[object, ...]]:
    return [(r.index, r.a_first, r.opening, r.moves, r.ending) for r in records]


class ShuffledExecutor(Executor):
    """Runs its units when asked for results, a random few at a time, in a random order."""

    workers = 4

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)
        self.queued: list[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = []
        self.ran = 0

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        future: Future[T] = Future()
        self.queued.append((future, fn, args))
        return future

    def wait(self, futures: Collection[Future[Any]], timeout: float) -> set[Future[Any]]:
        self.rng.shuffle(self.queued)
        for _ in range(self.rng.randint(1, len(self.queued))):
            future, fn, args = self.queued.pop()
            if future.set_running_or_notify_cancel():
                future.set_result(fn(*args))
                self.ran += 1
        return {future for future in futures if future.done()}

    def close(self) -> None:
        self.queued.clear()


def test_a_test_decides_after_the_same_pair_in_any_finishing_order() -> None:
    serial = _match().play()
    assert serial.sprt is not None and serial.sprt.decision == "H1"
    pairs = serial.sprt.pentanomial.pairs
    assert len(serial.games) == 2 * pairs < 60
    shuffled = ShuffledExecutor(seed=1)
    pairs_seen: list[int] = []
    played = _match().play(
        executor=shuffled, on_pair=lambda state: pairs_seen.append(state.pentanomial.pairs)
    )
    assert pairs_seen == list(range(1, pairs + 1))  # fed in pair order
    assert shuffled.ran >= len(played.games)
    assert _signature(played.games) == _signature(serial.games)
    assert played.sprt == serial.sprt
    assert played.as_dict()["sprt"] == serial.as_dict()["sprt"]


def test_two_workers_give_the_result_of_one() -> None:
    serial = _match().play()
    parallel = _match().play(workers=2)
    assert _signature(parallel.games) == _signature(serial.games)
    assert parallel.sprt == serial.sprt
    assert settle(parallel.games, SprtSettings(0, 100)) == (serial.sprt, len(serial.games) // 2)


def test_a_test_without_a_decision_plays_every_pair() -> None:
    result = _match(games=4).play()
    assert result.sprt is not None and result.sprt.decision is None
    assert len(result.games) == 4 and result.sprt.pentanomial.pairs == 2
    with pytest.raises(ZerosumError, match="even"):
        _match(games=5).play()


# -- the balanced book ------------------------------------------------------------------------


def test_the_chess_book_loads_and_every_position_is_legal_level_and_going_on() -> None:
    openings = balanced_openings("chess")
    assert len(openings) >= 200
    assert len({o.name for o in openings}) == len({o.moves for o in openings}) == len(openings)
    for opening in openings:
        board = chess.Board()
        for text in opening.moves:
            move = chess.Move.from_uci(text)
            assert move in board.legal_moves, (opening.name, text)
            board.push(move)
        assert not board.is_game_over(), opening.name
        assert 6 <= len(opening.moves) <= 8
    # The shuffled order depends on the seed only.
    assert [o.name for o in balanced_openings("chess", seed=2)] == [
        o.name for o in balanced_openings("chess", seed=2)
    ]
    assert balanced_openings("chess", seed=2) != balanced_openings("chess", seed=3)


def test_the_books_positions_are_those_of_their_moves_and_near_level() -> None:
    from importlib import resources

    text = resources.files("zerosum.match").joinpath("data", "openings.epd").read_text()
    for line in text.splitlines():
        board, operations = chess.Board.from_epd(line)
        replay = chess.Board()
        for text_move in str(operations["c0"]).split():
            replay.push_uci(text_move)
        assert replay.epd() == board.epd()
        assert abs(int(str(operations["ce"]))) <= 50


def test_book_lines_without_moves_are_refused() -> None:
    book = parse_epd_book('# comment\n\n8/8/8/8/8/8/8/K6k w - - id "x"; c0 "e2e4";\n')
    assert [(o.name, o.moves) for o in book] == [("x", ("e2e4",))]
    with pytest.raises(BookError, match="line 1"):
        parse_epd_book('8/8/8/8/8/8/8/K6k w - - id "x";', source="book")


def test_games_without_a_balanced_book_use_their_own() -> None:
    assert {o.name for o in balanced_openings("connect4")} == {
        o.name for o in balanced_openings("connect4", seed=5)
    }


# -- the command line -------------------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    captured = capsys.readouterr()
    return status, captured.out, captured.err


ARGS = (
    "match",
    "connect4",
    "--a",
    "depth=4,algorithm=engine,seed=5",
    "--b",
    "depth=1,algorithm=engine,seed=9",
    "--seed",
    "3",
    "--games",
    "60",
    "--sprt",
    "0,100",
)


def test_command_line_text_and_json(capsys: pytest.CaptureFixture[str]) -> None:
    expected = _match().play()
    assert expected.sprt is not None
    status, out, _ = _run(capsys, *ARGS)
    assert status == 0
    lines = out.splitlines()
    assert "SPRT nElo [0, 100], alpha 0.05, beta 0.05, at most 60 games" in lines[0]
    pairs = expected.sprt.pentanomial.pairs
    verdict = [line for line in lines if line.startswith("SPRT nElo")]
    assert verdict == [
        f"SPRT nElo [0, 100], alpha 0.05, beta 0.05: LLR {expected.sprt.llr:.2f} (-2.94, 2.94):"
        f" H1 accepted (nElo >= 100 more likely) after {pairs} pairs"
    ]
    counts = " ".join(map(str, expected.sprt.pentanomial.counts))
    assert any(line.startswith(f"pentanomial [{counts}]") for line in lines)
    status, out, _ = _run(capsys, *ARGS, "--json", "--workers", "2")
    data = json.loads(out)
    assert status == 0 and data["complete"] is True
    assert data["games"] == 2 * pairs == len(data["records"])
    sprt = data["sprt"]
    assert sprt["decision"] == "H1" and sprt["pairs"] == pairs
    assert sprt["pentanomial"] == list(expected.sprt.pentanomial.counts)
    assert sprt["llr"] == round(expected.sprt.llr, 4)
    assert sprt["lower_bound"] == -2.9444 and sprt["upper_bound"] == 2.9444
    assert {"elo", "elo_low", "elo_high", "elo_text", "normalized_elo"} <= set(sprt)


def test_the_command_line_continues_a_test_from_its_earlier_pairs(
    capsys: pytest.CaptureFixture[str],
) -> None:
    fresh = _match().play()
    assert fresh.sprt is not None
    status, out, _ = _run(capsys, *ARGS, "--sprt-earlier", "2,0,0,0,0", "--json")
    data = json.loads(out)
    sprt = data["sprt"]
    assert status == 0 and sprt["decision"] == "H1"
    run = Pentanomial.of_pairs(
        data["records"][2 * i]["score_a"] + data["records"][2 * i + 1]["score_a"]
        for i in range(data["games"] // 2)
    )
    assert sprt["earlier_pairs"] == 2 and sprt["earlier_pentanomial"] == [2, 0, 0, 0, 0]
    assert sprt["pentanomial"] == [2 + run.counts[0], *run.counts[1:]]
    assert sprt["pairs"] == 2 + run.pairs
    assert sprt["llr"] == round(llr(sprt["pentanomial"], 0, 100), 4)
    # the same games as the fresh test, and more of them: two lost pairs to make up
    assert run.pairs > fresh.sprt.pentanomial.pairs
    fresh_moves = [record.moves for record in fresh.games]
    assert [r["moves"] for r in data["records"][: len(fresh_moves)]] == [
        list(m) for m in fresh_moves
    ]
    status, out, _ = _run(capsys, *ARGS, "--sprt-earlier", "2,0,0,0,0")
    verdict = [line for line in out.splitlines() if line.startswith("SPRT nElo")]
    assert status == 0 and verdict[0].endswith(
        f"after {2 + run.pairs} pairs (2 earlier and {run.pairs} in this run)"
    )
    assert any(line.startswith("Elo A - B over this run's pairs: ") for line in out.splitlines())


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--sprt", "5"], "bad SPRT bounds '5'"),
        (["--sprt", "0,5", "--sprt-earlier", "1,2,3"], "bad pentanomial counts '1,2,3'"),
        (["--sprt-earlier", "1,2,3,4,5"], "give --sprt ELO0,ELO1 too"),
        (["--sprt", "0,20", "--sprt-earlier", "2,10,20,30,20"], "already decide the test"),
        (["--sprt", "5,0"], "expected elo0 < elo1"),
        (["--sprt", "0,5", "--games", "7"], "expected an even number"),
        (["--sprt", "0,5", "--alpha", "0.7"], "out of range"),
        # issue 24: a bound of 1e308 played its first pair, then raised ArithmeticError
        (["--sprt", "0,1e308", "--games", "2"], "expected normalized Elo within -1000..1000"),
    ],
)
def test_bad_sprt_options_exit_2(
    capsys: pytest.CaptureFixture[str], extra: list[str], words: str
) -> None:
    status, _, err = _run(capsys, "match", "tictactoe", "--a", "level=1", "--b", "level=1", *extra)
    assert status == 2
    assert err.startswith("zerosum: error: ") and words in err, err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_the_status_line_of_a_running_test() -> None:
    from zerosum.cli.match import _sprt_status

    state, _ = run_test(SprtSettings(0, 5), [2.0, 1.0, 0.5])
    elo = state.pentanomial.elo(3, 2, 1)
    line = _sprt_status(state, 100, elo)
    assert line.startswith(f"3 pairs of 50; LLR {state.llr:.2f} (-2.94, 2.94); A +3 =2 -1;")
    assert "pentanomial [0 1 1 0 1]; Elo " + elo.describe() in line
    earlier = SprtSettings(0, 5, earlier=Pentanomial((3, 10, 12, 14, 6)))
    state, _ = run_test(earlier, [2.0, 1.0, 0.5])
    line = _sprt_status(state, 100, elo)
    assert line.startswith(f"3 pairs of 50 (+45 earlier); LLR {state.llr:.2f} (-2.94, 2.94);")
    assert "pentanomial [3 11 13 14 7]" in line
