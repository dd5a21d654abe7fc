"""Napoleonic Wars: 1805-1815, the French Empire against the Allies across 17 countries.

Rules, rulings, notation, the card list and the position format: docs/games/napoleon.md.
The game object is :data:`GAME`.
"""

from engine.napoleon.rules import Napoleon
from engine.napoleon.state import NapoleonState

GAME = Napoleon()

__all__ = ["GAME", "Napoleon", "NapoleonState"]
