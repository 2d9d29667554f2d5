"""OpenSpiel both ways (``pip install 'zerosum[openspiel]'``).

* pyspiel's games in zerosum: ``openspiel:NAME(params)`` in every front end, through
  :class:`~zerosum.games.openspiel.OpenSpielGame` (re-exported here with
  :func:`~zerosum.games.openspiel.register_evaluation`);
* zerosum's engines in OpenSpiel: :class:`Bot`, a ``pyspiel.Bot``.

Importing this package imports ``pyspiel``.
"""

from zerosum.games.openspiel import OpenSpielGame, register_evaluation
from zerosum.openspiel.bot import BUILTIN, Bot, Translation, translation

__all__ = ["BUILTIN", "Bot", "OpenSpielGame", "Translation", "register_evaluation", "translation"]
