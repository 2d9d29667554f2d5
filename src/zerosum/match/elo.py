"""The Elo difference a match score implies, with a 95% interval.

``n`` games with ``w`` wins, ``d`` draws and ``l`` losses (from player A's point of view)
score ``p = (w + d/2) / n``. Under the logistic Elo model a rating difference ``D`` predicts
the score ``1 / (1 + 10^(-D/400))``, so the estimate is its inverse::

    elo(p) = -400 * log10(1/p - 1)

The 95% interval is the normal approximation that match tools such as cutechess-cli and
fastchess report. A game scores 1, 1/2 or 0; the sample variance of one game's score is::

    s2 = (w * (1 - p)^2 + d * (1/2 - p)^2 + l * p^2) / n

(the trinomial variance, which gives draws their true, smaller spread), the mean score has
standard error ``se = sqrt(s2 / n)``, and the interval ``[elo(p - 1.96 se), elo(p + 1.96 se)]``
follows because ``elo`` is increasing. An end of the score interval at or beyond 0 or 1 makes
that end of the Elo interval unbounded (``-inf`` / ``inf``).

When every game ended the same way (all wins, all losses or all draws) the sample variance is 0
and the normal interval would shrink to a point, claiming far too much. The interval is then the
Wilson score interval of ``p`` over ``n`` games, which uses the binomial variance ``p(1 - p)``,
the largest a score with mean ``p`` can have, so it errs on the wide side. For 10 wins out of 10
it bounds the score below by ``1 / (1 + 1.96^2 / 10) = 0.722``: A is at least 166 Elo stronger
at 95%, with no upper bound; the point estimate itself is unbounded and reported as ``None``.

The likelihood of superiority ``los = (1 + erf((w - l) / sqrt(2 (w + l)))) / 2`` is the
probability that A is the stronger player given the decisive games (0.5 when there are none).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Final

Z_95: Final = 1.959963984540054
"""The two-sided 95% quantile of the standard normal distribution."""


def elo_from_score(score: float) -> float:
    """The Elo difference that predicts the expected ``score`` in 0..1 (``±inf`` at the ends)."""
    if score <= 0.0:
        return -math.inf
    if score >= 1.0:
        return math.inf
    return -400.0 * math.log10(1.0 / score - 1.0)


def score_from_elo(elo: float) -> float:
    """The expected score of a player ``elo`` points stronger (the inverse of the above)."""
    return 1.0 / (1.0 + math.pow(10.0, -elo / 400.0))


def wilson_interval(score: float, games: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval of a proportion ``score`` observed over ``games`` trials."""
    z2n = z * z / games
    centre = (score + z2n / 2) / (1 + z2n)
    half = z / (1 + z2n) * math.sqrt(score * (1 - score) / games + z2n / (4 * games))
    low = 0.0 if score <= 0 else max(0.0, centre - half)
    high = 1.0 if score >= 1 else min(1.0, centre + half)
    return low, high


@dataclass(frozen=True)
class EloEstimate:
    """A match result from player A's point of view and the Elo difference it implies."""

    wins: int
    draws: int
    losses: int
    elo: float | None
    """A's Elo advantage over B; ``None`` when unbounded (A won or lost every game)."""
    low: float
    """The lower end of the 95% interval (``-inf`` when unbounded)."""
    high: float
    """The upper end of the 95% interval (``inf`` when unbounded)."""
    los: float
    """The likelihood of superiority: the probability that A is the stronger player."""

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def points(self) -> float:
        """A's score in points: a win counts 1, a draw 1/2."""
        return self.wins + self.draws / 2

    @property
    def score(self) -> float:
        """A's score as a fraction of the games (0.5 before any game)."""
        return self.points / self.games if self.games else 0.5

    def describe(self) -> str:
        """The estimate in words, e.g. ``+108 (95%: +0 .. +231)`` or ``>= +166 (95%)``."""
        if self.games == 0:
            return "no games"
        interval = f"95%: {_signed(self.low)} .. {_signed(self.high)}"
        if self.elo is None:
            if self.high == math.inf:
                return f">= {_signed(self.low)} (95%; every game won)"
            return f"<= {_signed(self.high)} (95%; every game lost)"
        return f"{_signed(self.elo)} ({interval})"


def _signed(value: float) -> str:
    if math.isinf(value):
        return "+inf" if value > 0 else "-inf"
    return f"{round(value):+d}"


def estimate(wins: int, draws: int, losses: int) -> EloEstimate:
    """The Elo estimate and its 95% interval from a match's W/D/L (see the module docstring)."""
    if min(wins, draws, losses) < 0:
        raise ValueError(f"negative game counts: {wins}, {draws}, {losses}")
    games = wins + draws + losses
    decisive = wins + losses
    los = 0.5 if decisive == 0 else 0.5 * (1 + math.erf((wins - losses) / math.sqrt(2 * decisive)))
    if games == 0:
        return EloEstimate(0, 0, 0, 0.0, -math.inf, math.inf, los)
    score = (wins + draws / 2) / games
    variance = (wins * (1 - score) ** 2 + draws * (0.5 - score) ** 2 + losses * score**2) / games
    if variance > 0:
        error = math.sqrt(variance / games)
        low, high = score - Z_95 * error, score + Z_95 * error
    else:
        low, high = wilson_interval(score, games)
    elo = elo_from_score(score)
    return EloEstimate(
        wins,
        draws,
        losses,
        None if math.isinf(elo) else elo,
        elo_from_score(low),
        elo_from_score(high),
        los,
    )
