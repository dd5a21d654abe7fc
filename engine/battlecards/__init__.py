"""Battlecards: World Conflict, Western European Theater: German against British.

Rules and rulings: docs/games/battlecards.md; the notation and view the renderer and cog
share: docs/games/battlecards-interface.md. The game object is :data:`GAME`.
"""

from engine.battlecards.rules import Battlecards
from engine.battlecards.state import BattlecardsState

GAME = Battlecards()

__all__ = ["GAME", "Battlecards", "BattlecardsState"]
