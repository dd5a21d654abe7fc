"""Print the card tables of docs/games/battlecards.md: ``python -m engine.battlecards.cardlist``.

A module of its own so that running it does not import ``cards`` twice (the package
imports ``cards`` first, which ``python -m engine.battlecards.cards`` would warn about).
"""

import sys

from engine.battlecards.cards import markdown

if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(markdown())
