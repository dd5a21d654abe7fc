"""Antiquity: nations of the ancient Mediterranean found cities, build temples, arm legions
and galleys and conquer, turning an action wheel (2-6 players).

Rules, rulings, notation and the position format: docs/games/antiquity.md. The game
object is :data:`GAME`.
"""

from engine.antiquity.rules import Antiquity
from engine.antiquity.state import AntiquityState

GAME = Antiquity()

__all__ = ["GAME", "Antiquity", "AntiquityState"]
