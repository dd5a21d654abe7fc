"""Conqueror: 2-4 players race from their corners across a hidden 6x6 board.

Rules and rulings: docs/games/conqueror.md. The game object is :data:`GAME`.
"""

from engine.conqueror.rules import Conqueror
from engine.conqueror.state import ConquerorState

GAME = Conqueror()

__all__ = ["GAME", "Conqueror", "ConquerorState"]
