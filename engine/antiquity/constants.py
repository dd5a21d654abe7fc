"""Antiquity's tunable numbers (docs/games/antiquity.md publishes them).

Every cost, limit and target of the game is here and nowhere else, so balancing by
simulation (``python -m engine.antiquity.simulate``) changes only this file. The rules read
these names; change the values, not the names or their shapes.
"""

from __future__ import annotations

# -- the wheel ---------------------------------------------------------------------------
#: Steps a marker may move for free; each step beyond costs one resource.
FREE_STEPS = 3
#: The most steps a marker may move in one turn.
MAX_STEPS = 7

# -- resources at the start ----------------------------------------------------------------
#: What every nation starts with.
START: dict[str, int] = {"marble": 3, "iron": 3, "gold": 2}
#: Extra gold per seat after the first (seat k, 0-based, gets k * SEAT_GOLD): makes up for
#: playing later in the round.
SEAT_GOLD = 0

# -- production ------------------------------------------------------------------------------
#: What a city gives on its resource's field, without and with a temple.
CITY_YIELD = 1
TEMPLE_YIELD = 3
#: Democracy: extra marble on a Marble action; Currency: extra gold on a Gold action.
DEMOCRACY_BONUS = 1
CURRENCY_BONUS = 1

# -- costs -------------------------------------------------------------------------------------
TEMPLE_COST = 2          # marble
LEGION_COST = 1          # iron
GALLEY_COST = 1          # iron
FIRST_COST = 5           # gold: the first nation to buy a know-how (earns a Scholar)
KNOWHOW_COST = 3         # gold: every later buyer
#: Founding a city: one of each resource (and a city stone).
FOUND_COST: dict[str, int] = {"marble": 1, "iron": 1, "gold": 1}

# -- limits -------------------------------------------------------------------------------------
TEMPLES = 15             # the shared bank
LEGIONS = 15             # per nation
GALLEYS = 12             # per nation
STONES = 25              # city stones per nation

# -- personalities and the end ----------------------------------------------------------------
#: King: one each time the nation's city count first reaches one of these.
KING_CITIES: tuple[int, ...] = (5, 10, 15, 20, 25)
#: Citizen: one each time its temple count first reaches one of these.
CITIZEN_TEMPLES: tuple[int, ...] = (3, 6, 9, 12, 15)
#: Navigator: one each time the number of different seas holding its galleys first
#: reaches one of these.
NAVIGATOR_SEAS: tuple[int, ...] = (4, 7)
#: Personalities a nation needs at the end of its own turn to win, by player count.
TARGET: dict[int, int] = {2: 7, 3: 7, 4: 8, 5: 8, 6: 7}
#: The default round limit (the lobby option ``rounds``) and the limits offered.
ROUNDS = 60
ROUND_CHOICES: tuple[int, ...] = (30, 40, 50, 60, 80, 100)
