"""Antiquity's action notation and its friendly commands (docs/games/antiquity.md).

    go maneuver1                 choose the wheel field (also `go maneuver i`, `go know-how`)
    temple attica                Temple field: a temple in your city
    legion attica                Arming field: a legion in a province with your city
    galley aegaeum               Arming field: a galley in a sea on your city's coast
    learn monarchy               Know-how field
    move 2 attica macedonia      Maneuver: 2 units that have not moved (the count may also
                                 come last; regions may be typed out: `Mare Syriacum`, and
                                 a city names its province: `Tyros`)
    fight aegaeum romans         Maneuver: both lose as many units as the smaller side has
    found creta                  Maneuver: a city on an empty site
    conquer phoenicia 1          Maneuver: 1 of the units removed is a legion, the rest
                                 galleys
    abandon attica               Maneuver, with no city stone left
    end                          end the turn
    resign
"""

from __future__ import annotations

from engine.antiquity import constants as C
from engine.antiquity.board import NATIONS, PROVINCES, REGIONS, SEAS
from engine.antiquity.state import FIELD_NAMES, KNOWHOW, KNOWHOW_NAMES, WHEEL
from engine.core import IllegalAction
from engine.notation import (
    Action,
    Phrases,
    count_and_rest,
    is_number,
    looks_like_number,
    parse_number,
)
from engine.verbs import NUMBER, Arg, Verb

HELP = ("Actions: `go maneuver1`, `temple attica`, `legion attica`, `galley aegaeum`, "
        "`learn monarchy`, `move 2 attica macedonia`, `fight aegaeum romans`, `found creta`, "
        "`conquer phoenicia 1`, `abandon attica`, `end`, `resign`.")

#: Other ways to name a region (lower-case, single spaces) -> its id: its name, its city's
#: name, and a few modern or English names.
REGION_ALIASES: dict[str, str] = {
    "rome": "latium", "carthage": "africa", "athens": "attica", "alexandria": "aegyptus",
    "jerusalem": "judaea", "byzantium": "thracia", "syracuse": "sicilia",
    "corinth": "peloponnesus", "massilia": "narbonensis", "marseille": "narbonensis",
    "tyre": "phoenicia", "antioch": "syria", "knossus": "creta", "crete": "creta",
    "cyrene": "cyrenaica", "thebes": "thebais", "ephesus": "asia", "cisalpina": "cisalpina",
    "sicily": "sicilia", "egypt": "aegyptus", "greece": "attica", "spain": "tarraconensis",
    "atlantic": "atlanticus", "atlantic ocean": "atlanticus", "balearic sea": "balearicum",
    "ligurian sea": "ligusticum", "tyrrhenian sea": "tyrrhenum", "sardinian sea": "sardoum",
    "adriatic": "adriaticum", "adriatic sea": "adriaticum", "ionian sea": "ionium",
    "libyan sea": "libycum", "aegean": "aegaeum", "aegean sea": "aegaeum",
    "carpathian sea": "carpathium", "egyptian sea": "aegyptium", "syrian sea": "syriacum",
}
for _p in PROVINCES.values():
    REGION_ALIASES.setdefault(_p.name.lower(), _p.id)
    REGION_ALIASES.setdefault(_p.city.lower(), _p.id)
for _s in SEAS.values():
    REGION_ALIASES.setdefault(_s.name.lower(), _s.id)
_REGION_PHRASES = Phrases(REGIONS, REGION_ALIASES, lambda bad: (
    f"`{bad[:30]}` is not a province or a sea of the map (write its id, e.g. `phoenicia`, "
    "its name or its city, e.g. `Tyros`)."))

FIELD_ALIASES: dict[str, str] = {
    "maneuver i": "maneuver1", "maneuver 1": "maneuver1", "maneuver ii": "maneuver2",
    "maneuver 2": "maneuver2", "manoeuvre i": "maneuver1", "manoeuvre 1": "maneuver1",
    "manoeuvre ii": "maneuver2", "manoeuvre 2": "maneuver2", "manoeuvre1": "maneuver1",
    "manoeuvre2": "maneuver2", "know-how": "knowhow", "know how": "knowhow",
}
for _f in WHEEL:
    FIELD_ALIASES.setdefault(FIELD_NAMES[_f].lower(), _f)
_FIELD_PHRASES = Phrases(WHEEL, FIELD_ALIASES)

KNOWHOW_ALIASES: dict[str, str] = {KNOWHOW_NAMES[k].lower(): k for k in KNOWHOW}
KNOWHOW_ALIASES.update({"the wheel": "wheel"})
_KNOWHOW_PHRASES = Phrases(KNOWHOW, KNOWHOW_ALIASES)

NATION_ALIASES: dict[str, str] = {}
for _n in NATIONS.values():
    NATION_ALIASES.setdefault(_n.name.lower(), _n.id)
    NATION_ALIASES.setdefault(_n.adjective.lower(), _n.id)
_NATION_PHRASES = Phrases(NATIONS, NATION_ALIASES)


def _number(word: str, what: str) -> int:
    if is_number(word) and len(word) > 3:
        raise IllegalAction(f"{what} must be a whole number, like 1 or 2 (not `{word[:20]}`).")
    return parse_number(word, what)     # refuses `²`, `٣`, `１`: only the digits 0-9


def parse(text: str) -> Action:
    """Parse normalised (lower-case, single-spaced) text."""
    verb, *args = text.split(" ")
    if verb in ("end", "resign") and not args:
        return Action(verb)
    if verb == "end" and args == ["turn"]:
        return Action("end")
    if verb == "go":
        field = _FIELD_PHRASES.one(args, "a field of the wheel", "go <field>`, e.g. "
                                   "`go maneuver1", WHEEL)
        return Action("go", (field,))
    if verb == "learn":
        k = _KNOWHOW_PHRASES.one(args, "a know-how", "learn <know-how>`, e.g. "
                                 "`learn monarchy", KNOWHOW)
        return Action("learn", (k,))
    if verb in ("temple", "legion", "galley", "found", "abandon"):
        example = {"temple": "attica", "legion": "attica", "galley": "aegaeum",
                   "found": "creta", "abandon": "attica"}[verb]
        what = "sea" if verb == "galley" else "province"
        (region,) = _REGION_PHRASES.read(args, 1, f"{verb} <{what}>`, e.g. `{verb} {example}")
        return Action(verb, (region,))
    if verb == "move":
        usage = "move <count> <from> <to>`, e.g. `move 2 attica macedonia"
        count, places = count_and_rest(args, usage)
        n = _number(count, "The count")
        if n < 1:
            raise IllegalAction("Move at least 1 unit.")
        src, dst = _REGION_PHRASES.read(places, 2, usage)
        return Action("move", (src, dst), n)
    if verb == "fight":
        usage = "fight <region> <nation>`, e.g. `fight aegaeum romans"
        if not args:
            raise IllegalAction(f"Write `{usage}`.")
        for cut in range(len(args) - 1, 0, -1):
            nation = " ".join(args[cut:])
            if nation in _NATION_PHRASES:
                (region,) = _REGION_PHRASES.read(args[:cut], 1, usage)
                return Action("fight", (region, _NATION_PHRASES[nation]))
        raise IllegalAction(f"Write `{usage}`: name the nation to fight ("
                            f"{', '.join(NATIONS)}).")
    if verb == "conquer":
        usage = "conquer <province> <legions>`, e.g. `conquer phoenicia 1"
        if len(args) >= 2 and looks_like_number(args[-1]):
            legions = _number(args[-1], "The number of legions")
            (region,) = _REGION_PHRASES.read(args[:-1], 1, usage)
            return Action("conquer", (region,), legions)
        if args and _REGION_PHRASES.split(args, 1) is not None:
            raise IllegalAction(f"Write `{usage}`: the number is how many of the units you "
                                "remove are legions (the rest are galleys).")
        raise IllegalAction(f"Write `{usage}`.")
    raise IllegalAction(f"I don't know that action. {HELP}")


def _region_arg(name: str, description: str, kind: str = "region") -> Arg:
    return Arg(name, description, kind=kind, aliases=REGION_ALIASES)


VERBS: tuple[Verb, ...] = (
    Verb("go", "Move your marker on the wheel and take that field's action", "go {field}",
         (Arg("field", "The wheel field (1-3 steps free, each further step a resource)",
              kind="field", aliases=FIELD_ALIASES),), section="The wheel"),
    Verb("temple", "Temple field: build a temple in one of your cities", "temple {province}",
         (_region_arg("province", "Your city without a temple", "province"),),
         section="Your action"),
    Verb("legion", "Arming field: a legion in a province with your city", "legion {province}",
         (_region_arg("province", "A province with your city", "province"),),
         section="Your action"),
    Verb("galley", "Arming field: a galley in a sea on your city's coast", "galley {sea}",
         (_region_arg("sea", "A sea on the coast of your city", "sea"),),
         section="Your action"),
    Verb("learn", "Know-how field: buy a know-how with gold", "learn {knowhow}",
         (Arg("knowhow", "The know-how to buy", kind="knowhow", aliases=KNOWHOW_ALIASES),),
         section="Your action"),
    Verb("move", "Maneuver: move units that have not moved yet", "move {count} {from} {to}",
         (_region_arg("from", "The province or sea they leave"),
          _region_arg("to", "Where they go (within range)"),
          Arg("count", "How many units", kind=NUMBER, low=1, high=max(C.LEGIONS, C.GALLEYS))),
         section="Maneuver"),
    Verb("fight", "Maneuver: fight another nation's units where yours stand",
         "fight {region} {nation}",
         (_region_arg("region", "Where both nations have units"),
          Arg("nation", "The nation you fight", kind="nation", aliases=NATION_ALIASES)),
         section="Maneuver"),
    Verb("found", "Maneuver: found a city on an empty site (1 marble, 1 iron, 1 gold)",
         "found {province}", (_region_arg("province", "An empty city site", "province"),),
         section="Maneuver"),
    Verb("conquer", "Maneuver: conquer a city, removing as many units as its defence",
         "conquer {province} {legions}",
         (_region_arg("province", "The city to conquer", "province"),
          Arg("legions", "How many of the units removed are legions (the rest galleys)",
              kind=NUMBER, low=0, high=C.LEGIONS)),
         section="Maneuver"),
    Verb("abandon", "Maneuver: give up a city to free a city stone (with none left)",
         "abandon {province}", (_region_arg("province", "One of your cities", "province"),),
         section="Maneuver"),
    Verb("end", "End your turn", "end", section="Your action"),
)
