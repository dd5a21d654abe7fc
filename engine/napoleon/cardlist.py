"""Print the card table of docs/games/napoleon.md: ``python -m engine.napoleon.cardlist``.

A module of its own so that running it does not import ``cards`` twice.
"""

import sys

from engine.napoleon.cards import markdown

if __name__ == "__main__":  # pragma: no cover
    sys.stdout.write(markdown())
