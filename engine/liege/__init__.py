"""European Conquest: Battle of Liège: 2-4 Generals buy an army and fight across the board.

Rules and rulings: docs/games/liege.md; the notation and view the renderer and cog share:
docs/games/liege-interface.md. The game object is :data:`GAME`.
"""

from engine.liege.rules import Liege
from engine.liege.state import LiegeState

GAME = Liege()

__all__ = ["GAME", "Liege", "LiegeState"]
