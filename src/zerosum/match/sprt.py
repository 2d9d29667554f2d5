"""The sequential probability ratio test of a match, on pentanomial statistics of game pairs.

A match under test plays its games in pairs: the same opening twice, colours swapped. A pair
scores player A 0, 1/2, 1, 3/2 or 2 points; the **pentanomial** counts ``N0..N4`` are how many
pairs scored each (a win and a loss, and two draws, both score 1 and share ``N2``). Counting
pairs rather than games removes the opening's own bias from the variance, so a test decides in
fewer games than one on W/D/L.

**Normalized Elo.** Let ``x = points / 2`` be a pair's score per game (0, 1/4, 1/2, 3/4, 1),
``mu`` its mean and ``v`` its variance under a distribution ``q`` of the five outcomes. One
game's score then has the standard deviation ``sigma = sqrt(2 v)`` (a pair is two games), and
the normalized Elo is::

    nelo = (mu - 1/2) / sigma * 800 / ln 10

which equals the logistic Elo for small differences without draws, and makes the expected
length of a test depend on its bounds only, not on the draw rate or the book.

**The generalized SPRT.** H0 says ``nelo = elo0``, H1 says ``nelo = elo1``. Neither fixes the
five probabilities, so each is replaced by its maximum likelihood estimate under the
hypothesis's constraint, and the log-likelihood ratio after ``N`` pairs with frequencies
``p_i = N_i / N`` is::

    LLR = N * sum_i p_i * log(q1_i / q0_i)

The constrained estimate ``q`` maximises ``sum_i p_i log q_i`` subject to ``sum_i q_i = 1`` and
``mu(q) - 1/2 = tau * s(q)``, where ``s = sqrt(v)`` and ``tau = sqrt(2) * nelo * ln 10 / 800``.
With the Lagrange conditions, ``q_i = p_i / (1 + theta * f_i)`` for the function::

    f(x) = (x - 1/2) - tau * ((x - mu)^2 + s^2) / (2 s)

whose mean under ``q`` is zero exactly when ``q`` meets the constraint (``mu`` and ``s`` are
those of ``q`` itself). So :func:`constrained_mle` alternates: take ``mu`` and ``s`` of the
current ``q``, solve ``sum_i p_i f_i / (1 + theta f_i) = 0`` for ``theta`` (the left side falls
as ``theta`` grows, so bisection over the ``theta`` that keep every ``1 + theta f_i`` positive
finds the one root), set ``q`` again, until it stops moving. A count of zero is replaced by
:data:`EPSILON` first, so that every outcome keeps some probability and ``s > 0``.

The test stops with H1 (A is at least ``elo1`` better) when the LLR reaches
``log((1 - beta) / alpha)``, with H0 when it falls to ``log(beta / (1 - alpha))``: ``alpha`` is
the chance of accepting H1 when H0 holds, ``beta`` that of accepting H0 when H1 holds. This is
the test fishtest runs, derived here from its published statistics; for the pair counts
``13, 37, 50, 25, 3`` and normalized bounds 0 and 4 it gives LLR -0.549 as fishtest's report of
that test does.

The Elo estimate from pairs: the mean ``mu`` with the standard error ``sqrt(v / N)`` of the
empirical frequencies, turned into logistic Elo as :mod:`.elo` does for games (an estimate
taken where a sequential test stopped is biased away from zero; no correction is applied).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Literal

from zerosum.game import ZerosumError
from zerosum.match.elo import Z_95, EloEstimate, elo_from_score, estimate

NELO_PER_T: Final = 800 / math.log(10)
"""Normalized Elo per unit of ``(mu - 1/2) / sigma`` (about 347.4)."""
MAX_BOUND: Final = 1000.0
"""The largest SPRT bound, either sign (normalized Elo): tests run within a few tens (fishtest's
within ten), and far past a thousand the constrained estimate finds no answer (a bound of
1e308 raised ``ArithmeticError`` after the first pair) or takes seconds per pair."""
EPSILON: Final = 1e-3
"""What a pentanomial count of zero counts as in the likelihood."""
PAIR_SCORES: Final = (0.0, 0.25, 0.5, 0.75, 1.0)
"""A pair's score per game for each pentanomial outcome (A's points / 2)."""

Decision = Literal["H0", "H1"]


class SprtError(ZerosumError, ValueError):
    """SPRT settings that cannot make a test."""


@dataclass(frozen=True)
class SprtSettings:
    """A test of H0 ``nelo = elo0`` against H1 ``nelo = elo1`` (normalized Elo, A over B)."""

    elo0: float
    elo1: float
    alpha: float = 0.05
    """The chance of accepting H1 when H0 holds."""
    beta: float = 0.05
    """The chance of accepting H0 when H1 holds."""
    earlier: Pentanomial = field(default_factory=lambda: Pentanomial())
    """The pairs of earlier runs of the same test that this one continues (counted first: the
    test's LLR is that of the summed counts). Runs on other seeds play other pairs; runs
    continued this way must have compared the same two players at the same time control."""

    def __post_init__(self) -> None:
        if not all(math.isfinite(x) for x in (self.elo0, self.elo1)):
            raise SprtError(f"SPRT bounds {self.elo0}, {self.elo1}: expected finite numbers")
        if not self.elo0 < self.elo1:
            raise SprtError(f"SPRT bounds {self.elo0:g}, {self.elo1:g}: expected elo0 < elo1")
        if not -MAX_BOUND <= self.elo0 < self.elo1 <= MAX_BOUND:
            raise SprtError(
                f"SPRT bounds {self.elo0:g}, {self.elo1:g} are out of range: expected "
                f"normalized Elo within -{MAX_BOUND:g}..{MAX_BOUND:g}"
            )
        for name, value in (("alpha", self.alpha), ("beta", self.beta)):
            if not 0 < value < 0.5:
                raise SprtError(f"{name} {value:g}: expected a probability between 0 and 0.5")
        if self.earlier.pairs:
            value = llr(self.earlier.counts, self.elo0, self.elo1)
            if self.decide(value) is not None:
                counts = ",".join(map(str, self.earlier.counts))
                raise SprtError(
                    f"the earlier pairs {counts} already decide the test (LLR {value:.2f},"
                    f" bounds {self.lower:.2f} and {self.upper:.2f}): nothing left to play"
                )

    @classmethod
    def parse(
        cls, text: str, *, alpha: float = 0.05, beta: float = 0.05, earlier: str | None = None
    ) -> SprtSettings:
        """The bounds written ``ELO0,ELO1`` (normalized Elo), e.g. ``0,5`` or ``-3,1``; the
        earlier pairs, if any, as :meth:`Pentanomial.parse` reads them."""
        first, comma, second = text.partition(",")
        try:
            if not comma:
                raise ValueError
            elo0, elo1 = float(first), float(second)
        except ValueError:
            raise SprtError(
                f"bad SPRT bounds {text!r}: expected ELO0,ELO1 in normalized Elo, e.g. 0,5"
            ) from None
        return cls(elo0, elo1, alpha, beta, Pentanomial.parse(earlier or "0,0,0,0,0"))

    @property
    def lower(self) -> float:
        """The LLR at or below which the test accepts H0."""
        return math.log(self.beta / (1 - self.alpha))

    @property
    def upper(self) -> float:
        """The LLR at or above which the test accepts H1."""
        return math.log((1 - self.beta) / self.alpha)

    def decide(self, llr: float) -> Decision | None:
        """``H1`` or ``H0`` when ``llr`` has crossed a bound, else ``None``."""
        if llr >= self.upper:
            return "H1"
        if llr <= self.lower:
            return "H0"
        return None

    def describe(self) -> str:
        text = f"SPRT nElo [{self.elo0:g}, {self.elo1:g}], alpha {self.alpha:g}, beta {self.beta:g}"
        if self.earlier.pairs:
            text += f", after {self.earlier.pairs} earlier pairs"
        return text


# -- pentanomial statistics -------------------------------------------------------------------


def pair_outcome(points: float) -> int:
    """The pentanomial index (0..4) of a pair in which A scored ``points`` (0, 0.5, .. 2)."""
    index = round(points * 2)
    if not 0 <= index <= 4 or index != points * 2:
        raise ValueError(f"a pair scores 0, 0.5, 1, 1.5 or 2 points, not {points}")
    return index


@dataclass(frozen=True)
class Pentanomial:
    """How many pairs scored A 0, 1/2, 1, 3/2 and 2 points."""

    counts: tuple[int, int, int, int, int] = (0, 0, 0, 0, 0)

    def __post_init__(self) -> None:
        if len(self.counts) != 5 or min(self.counts) < 0:
            raise ValueError(f"pentanomial counts {self.counts}: expected 5 counts >= 0")

    @classmethod
    def parse(cls, text: str) -> Pentanomial:
        """Counts written ``N0,N1,N2,N3,N4``, as a test's report prints them (``7,21,19,17,8``;
        spaces and brackets allowed: ``[7 21 19 17 8]``)."""
        words = text.strip().strip("[]").replace(",", " ").split()
        try:
            counts = tuple(int(word) for word in words)
        except ValueError:
            counts = ()
        if len(counts) != 5 or min(counts) < 0:
            raise SprtError(
                f"bad pentanomial counts {text!r}: expected five whole numbers >= 0,"
                " N0,N1,N2,N3,N4 (the pairs scoring A 0, 1/2, 1, 3/2 and 2 points)"
            )
        return cls((counts[0], counts[1], counts[2], counts[3], counts[4]))

    @classmethod
    def of_pairs(cls, points: Iterable[float]) -> Pentanomial:
        """The counts of pairs that scored A these ``points`` each."""
        counts = [0] * 5
        for value in points:
            counts[pair_outcome(value)] += 1
        return cls((counts[0], counts[1], counts[2], counts[3], counts[4]))

    def __add__(self, other: Pentanomial) -> Pentanomial:
        a, b = self.counts, other.counts
        return Pentanomial((a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4]))

    def add(self, points: float) -> Pentanomial:
        """These counts and one more pair that scored A ``points``."""
        counts = list(self.counts)
        counts[pair_outcome(points)] += 1
        return Pentanomial((counts[0], counts[1], counts[2], counts[3], counts[4]))

    @property
    def pairs(self) -> int:
        return sum(self.counts)

    @property
    def score(self) -> float:
        """A's mean score per game (0.5 before any pair)."""
        if not self.pairs:
            return 0.5
        return sum(n * x for n, x in zip(self.counts, PAIR_SCORES, strict=True)) / self.pairs

    @property
    def variance(self) -> float:
        """The variance of a pair's score per game over the pairs played."""
        if not self.pairs:
            return 0.0
        mu = self.score
        return sum(n * (x - mu) ** 2 for n, x in zip(self.counts, PAIR_SCORES, strict=True)) / (
            self.pairs
        )

    @property
    def normalized_elo(self) -> float | None:
        """``(mu - 1/2) / sigma * 800 / ln 10`` with one game's ``sigma = sqrt(2 v)``; ``None``
        while the variance is zero."""
        if self.variance <= 0:
            return None
        return (self.score - 0.5) / math.sqrt(2 * self.variance) * NELO_PER_T

    def elo(self, wins: int, draws: int, losses: int) -> EloEstimate:
        """A's logistic Elo with its 95% interval from the pairs (the games' ``wins``, ``draws``
        and ``losses`` ride along); while every pair scored the same, the interval of the games
        alone (:func:`~zerosum.match.elo.estimate`)."""
        games = estimate(wins, draws, losses)
        if self.variance <= 0:
            return games
        error = math.sqrt(self.variance / self.pairs)
        low, high = self.score - Z_95 * error, self.score + Z_95 * error
        point = elo_from_score(self.score)
        return EloEstimate(
            wins,
            draws,
            losses,
            None if math.isinf(point) else point,
            elo_from_score(low),
            elo_from_score(high),
            games.los,
        )


# -- the log-likelihood ratio -----------------------------------------------------------------


def _frequencies(counts: Sequence[float]) -> list[float]:
    regular = [float(n) if n > 0 else EPSILON for n in counts]
    total = sum(regular)
    return [n / total for n in regular]


def _root(p: Sequence[float], f: Sequence[float]) -> float:
    """The ``theta`` with ``sum p_i f_i / (1 + theta f_i) = 0`` and every ``1 + theta f_i > 0``
    (``f`` has both signs)."""
    low, high = -1 / max(f), -1 / min(f)
    for _ in range(200):  # halving the interval until it stops shrinking
        middle = (low + high) / 2
        if middle in (low, high):
            break
        if sum(pi * fi / (1 + middle * fi) for pi, fi in zip(p, f, strict=True)) > 0:
            low = middle
        else:
            high = middle
    return (low + high) / 2


def _moments(q: Sequence[float]) -> tuple[float, float]:
    """The mean and standard deviation of a pair's score per game under ``q``."""
    mu = sum(qi * x for qi, x in zip(q, PAIR_SCORES, strict=True))
    return mu, math.sqrt(sum(qi * (x - mu) ** 2 for qi, x in zip(q, PAIR_SCORES, strict=True)))


def _fixed_point(
    p: Sequence[float], tau: float, start: Sequence[float], tolerance: float
) -> list[float] | None:
    """The constrained estimate for ``tau`` by the alternation of the module docstring from
    ``start``, or ``None`` if a step finds no ``theta`` (``f`` of one sign: ``start`` too far
    from the answer)."""
    q = list(start)
    for _ in range(1000):
        mu, s = _moments(q)
        f = [(x - 0.5) - tau * ((x - mu) ** 2 + s * s) / (2 * s) for x in PAIR_SCORES]
        if max(f) <= 0 or min(f) >= 0:
            return None
        theta = _root(p, f)
        new = [pi / (1 + theta * fi) for pi, fi in zip(p, f, strict=True)]
        total = sum(new)
        new = [x / total for x in new]
        moved = max(abs(a - b) for a, b in zip(new, q, strict=True))
        q = new
        if moved < tolerance:
            break
    return q


def constrained_mle(p: Sequence[float], nelo: float, *, tolerance: float = 1e-12) -> list[float]:
    """The distribution ``q`` of the five pair outcomes nearest the frequencies ``p`` (all
    positive, summing to 1) in likelihood among those whose normalized Elo is ``nelo``.

    Started from ``p``, the alternation can step where ``f`` has one sign (a hypothesis far
    from the data: every pair won, H0 at -300); then it walks there from the data's own
    normalized Elo, where ``q = p``, in ever finer steps of ``tau``, each started from the
    last answer."""
    tau = math.sqrt(2) * nelo / NELO_PER_T
    answer = _fixed_point(p, tau, p, tolerance)
    if answer is not None:
        return answer
    mu, s = _moments(p)
    own = (mu - 0.5) / s
    for steps in (4, 16, 64, 256, 1024):
        q: list[float] | None = list(p)
        for step in range(1, steps + 1):
            assert q is not None
            q = _fixed_point(p, own + (tau - own) * step / steps, q, tolerance)
            if q is None:
                break
        if q is not None:
            return q
    raise ArithmeticError(f"no estimate found for normalized Elo {nelo} from {list(p)}")


def llr(counts: Sequence[int], elo0: float, elo1: float) -> float:
    """The generalized log-likelihood ratio of H1 ``nelo = elo1`` over H0 ``nelo = elo0``
    after pairs with pentanomial ``counts`` (see the module docstring); 0 before any pair."""
    pairs = sum(counts)
    if pairs == 0:
        return 0.0
    p = _frequencies(counts)
    q0 = constrained_mle(p, elo0)
    q1 = constrained_mle(p, elo1)
    return pairs * sum(pi * math.log(b / a) for pi, a, b in zip(p, q0, q1, strict=True))


# -- the sequential test ----------------------------------------------------------------------


@dataclass(frozen=True)
class SprtState:
    """A test after some pairs: the counts, the LLR and the decision if there is one."""

    settings: SprtSettings
    pentanomial: Pentanomial
    llr: float
    decision: Decision | None

    @property
    def run_pairs(self) -> int:
        """The pairs of this run: the test's, less its earlier runs'
        (:attr:`SprtSettings.earlier`)."""
        return self.pentanomial.pairs - self.settings.earlier.pairs

    def as_dict(self) -> dict[str, Any]:
        nelo = self.pentanomial.normalized_elo
        return {
            "elo0": self.settings.elo0,
            "elo1": self.settings.elo1,
            "alpha": self.settings.alpha,
            "beta": self.settings.beta,
            "llr": round(self.llr, 4),
            "lower_bound": round(self.settings.lower, 4),
            "upper_bound": round(self.settings.upper, 4),
            "decision": self.decision,
            "pairs": self.pentanomial.pairs,
            "pentanomial": list(self.pentanomial.counts),
            "normalized_elo": None if nelo is None else round(nelo, 2),
            "earlier_pairs": self.settings.earlier.pairs,
            "earlier_pentanomial": list(self.settings.earlier.counts),
        }

    def describe(self) -> str:
        """E.g. ``LLR -0.55 (-2.94, 2.94)``, then ``H1 accepted`` once decided."""
        text = f"LLR {self.llr:.2f} ({self.settings.lower:.2f}, {self.settings.upper:.2f})"
        if self.decision == "H1":
            text += f": H1 accepted (nElo >= {self.settings.elo1:g} more likely)"
        elif self.decision == "H0":
            text += f": H0 accepted (nElo <= {self.settings.elo0:g} more likely)"
        return text


class SequentialTest:
    """Pairs fed in order until the LLR crosses a bound; every pair after that is refused."""

    def __init__(self, settings: SprtSettings) -> None:
        self.settings = settings
        start = settings.earlier  # they decide nothing yet (SprtSettings checks)
        value = llr(start.counts, settings.elo0, settings.elo1)
        self.state = SprtState(settings, start, value, None)

    def add(self, points: float) -> SprtState:
        """The test after one more pair in which A scored ``points``."""
        if self.state.decision is not None:
            raise RuntimeError("the test has already decided")
        counts = self.state.pentanomial.add(points)
        value = llr(counts.counts, self.settings.elo0, self.settings.elo1)
        self.state = SprtState(self.settings, counts, value, self.settings.decide(value))
        return self.state


def run_test(settings: SprtSettings, pairs: Iterable[float]) -> tuple[SprtState, int]:
    """Feed the pairs' points in order until the test decides or they run out: the final
    state and how many pairs it took."""
    test = SequentialTest(settings)
    used = 0
    for points in pairs:
        used += 1
        if test.add(points).decision is not None:
            break
    return test.state, used


__all__ = [
    "EPSILON",
    "NELO_PER_T",
    "Decision",
    "Pentanomial",
    "SequentialTest",
    "SprtError",
    "SprtSettings",
    "SprtState",
    "constrained_mle",
    "llr",
    "pair_outcome",
    "run_test",
]
