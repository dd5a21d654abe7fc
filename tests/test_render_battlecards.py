"""render/battlecards.py: the Battlecards table image, from views built here by hand
following docs/games/battlecards-interface.md (the engine is not imported)."""

from __future__ import annotations

import copy
import io
import itertools
from typing import Any

import pytest
from PIL import Image

import render
from render import battlecards as bc
from render.common import TextLog, min_essential_size
from tests.boards import same_picture

G, B = "111", "222"  # the German and the British player
NAMES = {G: "Gerda", B: "Basil"}


# --- cards and views, by the interface spec -------------------------------------------------


def unit(uid: str, name: str, side: str, type_: str, phases: list[int], attack: str,
         defense: str, support: dict[str, Any] | None = None) -> dict[str, Any]:
    """A unit card; ``attack``/``defense`` as "ground/air/sea" with "-" for N/A."""
    def values(text: str) -> dict[str, int | None]:
        parts = text.split("/")
        return {f: None if v == "-" else int(v) for f, v in zip(bc.FORCES, parts, strict=True)}

    stack = type_ if type_ in bc.FORCES else "ground"
    return {"id": uid, "name": name, "side": side, "type": type_, "stack": stack,
            "phases": phases, "attack": values(attack), "defense": values(defense),
            "support": support, "text": "A unit."}


PANZER = unit("G01", "1st Panzer Division", "german", "ground", [1, 3], "7/3/-", "4/3/4")
STUKA = unit("G20", "Sturzkampfgeschwader 77", "german", "air", [2], "8/2/6", "3/4/5")
FALLSCHIRM = unit("G30", "1st Fallschirmjäger Division", "german", "ground", [2, 4],
                  "6/2/-", "5/3/4")
ROMMEL = unit("G45", "Erwin Rommel", "german", "leader", [2], "4/-/-", "5/4/5",
              support={"bonus": 2, "to": ["ground"], "text": "+2 to a Ground unit."})
GUARDS = unit("B03", "Guards Armoured Division", "british", "ground", [1, 3], "7/2/-",
              "5/3/4")
SPITFIRE = unit("B19", "No. 19 Squadron", "british", "air", [1, 2], "3/7/2", "4/5/5")
ARTILLERY = unit("B13", "5th Army Group Royal Artillery", "british", "ground", [2, 4],
                 "6/-/-", "3/3/4",
                 support={"bonus": 1, "to": ["ground"], "text": "Fire plan: +1."})
HOOD = unit("B32", "HMS Hood", "british", "sea", [1, 2, 3, 4], "6/4/8", "5/4/6")


def battlecard(cid: str, name: str, aggressor: str, forces: list[str], vp: int,
               an: int = 3, special: str | None = None) -> dict[str, Any]:
    return {"id": cid, "name": name, "action_number": an, "kind": "battle",
            "aggressor": aggressor, "forces": forces, "vp": vp, "prerequisites": [],
            "special": special, "text": "A battle."}


def conflict_card(cid: str, name: str, an: int, kind: str, text: str) -> dict[str, Any]:
    return {"id": cid, "name": name, "action_number": an, "kind": kind, "text": text}


FRANCE = battlecard("C01", "Battle of France", "german", ["ground", "air"], 6, 1)
BRITAIN = battlecard("C03", "Battle of Britain", "german", ["air"], 6, 3)
ATLANTIC = battlecard("C04", "Battle of the Atlantic", "german", ["sea", "air"], 6, 5)
NORMANDY = battlecard("C12", "Normandy Landings", "british", ["ground", "air", "sea"], 8, 7)
MARKET = battlecard("C14", "Operation Market Garden", "british", ["ground", "air"], 4, 9)
INVASION = battlecard("C07", "Invasion of Britain", "german", ["ground", "air", "sea"], 8, 4,
                      special="Total Victory")
MOBILISATION = conflict_card("C17", "Total Mobilisation", 3, "arsenal",
                             "Draw 3 arsenal cards into your reserve hand.")
RADAR = conflict_card("C43", "Radar Warning", 9, "keep", "Keep this card.")

ALL_BATTLES = [FRANCE, BRITAIN, ATLANTIC, NORMANDY, MARKET, INVASION,
               battlecard("C02", "Dunkirk", "german", ["ground", "air", "sea"], 4, 2),
               battlecard("C05", "Channel Dash", "german", ["sea", "air"], 3, 6),
               battlecard("C06", "Battle of the Bulge", "german", ["ground", "air"], 5, 8),
               battlecard("C08", "Sinking of the Bismarck", "british", ["sea", "air"], 4, 10),
               battlecard("C09", "Dieppe Raid", "british", ["ground", "sea"], 3, 1),
               battlecard("C10", "St Nazaire Raid", "british", ["sea"], 2, 2),
               battlecard("C11", "Battle of the Ruhr", "british", ["air"], 5, 3),
               battlecard("C13", "Battle of the Scheldt", "british", ["ground", "sea"], 3, 4),
               battlecard("C15", "Crossing of the Rhine", "british", ["ground", "air"], 5, 5),
               battlecard("C16", "Battle for Germany", "british", ["ground", "air"], 6, 6,
                          special="Total Victory")]


def player(pid: str, seat: int, side: str, **kw: Any) -> dict[str, Any]:
    p: dict[str, Any] = {"id": pid, "seat": seat, "side": side, "vp": 0, "autofire": True,
                         "hand_count": 3, "kept_count": 0, "arsenal_count": 41,
                         "stacks": {"ground": 1, "air": 1, "sea": 1}, "discard": [],
                         "battlecards_won": []}
    p.update(kw)
    return p


def battle_list(status: dict[str, tuple[str, str | None]] | None = None) -> list[dict[str, Any]]:
    status = status or {}
    out = []
    for card in ALL_BATTLES:
        st, by = status.get(card["id"], ("in deck", None))
        out.append({"name": card["name"], "vp": card["vp"], "aggressor": card["aggressor"],
                    "forces": list(card["forces"]), "status": st, "won_by": by})
    return out


def setup_view() -> dict[str, Any]:
    """Both players deploying their first three cards."""
    return {"kind": "battlecards", "viewer": None, "round": 0, "turn": G, "to_act": [G, B],
            "phase": "setup", "prompt": "Deploy 3 of your 6 cards onto your stacks",
            "victory_target": 38,
            "players": [player(G, 1, "german", hand_count=6, arsenal_count=41,
                               stacks={"ground": 0, "air": 0, "sea": 0}),
                        player(B, 2, "british", hand_count=4, arsenal_count=41,
                               stacks={"ground": 1, "air": 1, "sea": 0})],
            "conflict": {"deck_count": 50, "discard_count": 0, "discard_top": None},
            "battle": None, "last_shots": [], "battlecard_list": battle_list(),
            "current": None, "last_move": {"player": B, "action": "deploy 2"},
            "outcome": None}


def between_view() -> dict[str, Any]:
    """Turn 9: a few battles fought, Britain to draw."""
    view = setup_view()
    pg, pb = view["players"]
    pg.update(vp=12, hand_count=2, kept_count=1, arsenal_count=28,
              stacks={"ground": 3, "air": 2, "sea": 1}, discard=[STUKA],
              battlecards_won=[FRANCE, BRITAIN])
    pb.update(vp=4, hand_count=5, kept_count=2, arsenal_count=26,
              stacks={"ground": 2, "air": 4, "sea": 2}, discard=[GUARDS, SPITFIRE],
              battlecards_won=[MARKET], autofire=False)
    view.update(round=9, turn=B, to_act=[B], phase="draw",
                prompt="Draw a conflict card or make an emergency deployment",
                conflict={"deck_count": 31, "discard_count": 12, "discard_top": MOBILISATION},
                battlecard_list=battle_list({"C01": ("won", G), "C03": ("won", G),
                                             "C14": ("won", B), "C02": ("discarded", None)}),
                last_move={"player": G, "action": "draw"})
    return view


def battle_units() -> list[dict[str, Any]]:
    return [
        {"ref": "g1", "owner": G, "card": PANZER, "status": "active", "bonus": 2},
        {"ref": "g2", "owner": G, "card": FALLSCHIRM, "status": "destroyed", "bonus": 0},
        {"ref": "g3", "owner": G, "card": ROMMEL, "status": "active", "bonus": 0},
        {"ref": "a1", "owner": G, "card": STUKA, "status": "withdrawn", "bonus": 0},
        {"ref": "g1", "owner": B, "card": GUARDS, "status": "active", "bonus": 1},
        {"ref": "g2", "owner": B, "card": ARTILLERY, "status": "active", "bonus": 0},
        {"ref": "a1", "owner": B, "card": SPITFIRE, "status": "destroyed", "bonus": 0},
    ]


def battle_view(phase: Any = 3) -> dict[str, Any]:
    """Mid-battle over the Battle of the Atlantic's neighbour: France, round 2, phase 3."""
    view = between_view()
    view["players"][0].update(stacks={"ground": 0, "air": 0, "sea": 1})
    view["players"][1].update(stacks={"ground": 0, "air": 2, "sea": 2})
    view.update(turn=G, to_act=[G], phase="battle",
                prompt=f"Fire your units in phase {phase}",
                battle={"card": INVASION, "aggressor": G, "defender": B, "round": 2,
                        "phase": phase, "units": battle_units()},
                current=INVASION,
                last_shots=[
                    {"shooter": "g1", "shooter_owner": G, "target": "g2", "target_owner": B,
                     "action_number": 7, "attack": 9, "defense": 3, "hit": False},
                    {"shooter": "g1", "shooter_owner": B, "target": "g2", "target_owner": G,
                     "action_number": 6, "attack": 8, "defense": 5, "hit": True},
                    {"shooter": "g1", "shooter_owner": G, "target": "a1", "target_owner": B,
                     "action_number": 3, "attack": 8, "defense": 2, "hit": True}],
                battlecard_list=battle_list({"C01": ("won", G), "C03": ("won", G),
                                             "C14": ("won", B), "C02": ("discarded", None),
                                             "C07": ("in play", None)}),
                last_move={"player": G, "action": "fire g1 a1"})
    return view


def decide_view() -> dict[str, Any]:
    """Britain drew Normandy: the aggressor decides whether to attack."""
    view = between_view()
    view.update(phase="decide", prompt="Attack in Normandy Landings or decline",
                current=NORMANDY, last_move={"player": B, "action": "draw"},
                battlecard_list=battle_list({"C01": ("won", G), "C03": ("won", G),
                                             "C14": ("won", B), "C02": ("discarded", None),
                                             "C12": ("in play", None)}))
    return view


def resolve_view() -> dict[str, Any]:
    """Britain drew a card that lets them deploy from the reserve."""
    view = between_view()
    view.update(phase="resolve", prompt="Deploy up to 2 cards from the reserve hand, then done",
                current=conflict_card("C29", "Forward to the Front", 5, "deploy",
                                      "Deploy up to 2 cards from your reserve hand."))
    return view


def withdraw_view() -> dict[str, Any]:
    view = battle_view("withdraw")
    view.update(phase="withdraw", prompt="Withdraw units, or stay", last_shots=[])
    return view


def over_view() -> dict[str, Any]:
    view = between_view()
    view["players"][0].update(vp=40, battlecards_won=[FRANCE, BRITAIN, ATLANTIC, INVASION,
                                                      NORMANDY, MARKET])
    view.update(turn=None, to_act=[], phase="over", prompt="The game is over",
                outcome={"winners": [G], "standings": [G, B],
                         "reason": "Standard Victory: 38 victory points reached."})
    return view


# --- helpers ----------------------------------------------------------------------------------


def decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image.convert("RGB")


def draw(view: dict[str, Any], names: dict[str, str] | None = NAMES) -> Image.Image:
    return decode(render.render("battlecards", view, None, names))


Pixel = tuple[int, int, int]


def pixels(image: Image.Image, box: tuple[float, float, float, float]) -> list[Pixel]:
    x0, y0, x1, y1 = (round(v) for v in box)
    raw = image.crop((x0, y0, x1, y1)).tobytes()
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


def count(px: list[Pixel], test: Any) -> int:
    return sum(1 for p in px if test(p))


def near(colour: Pixel, tolerance: int = 24) -> Any:
    def test(p: Pixel) -> bool:
        return all(abs(a - b) <= tolerance for a, b in zip(p, colour, strict=True))
    return test


def mean(px: list[Pixel]) -> tuple[float, float, float]:
    n = len(px)
    return (sum(p[0] for p in px) / n, sum(p[1] for p in px) / n, sum(p[2] for p in px) / n)


def is_gold(p: Pixel) -> bool:  # the phase highlight and the ACTS NOW / WINNER pills
    return p[0] > 215 and 150 < p[1] < 225 and p[2] < 90


def is_red(p: Pixel) -> bool:
    return p[0] > 170 and p[1] < 90 and p[2] < 90


def gold_x(image: Image.Image, box: tuple[float, float, float, float]) -> float:
    """The mean x of the gold pixels in ``box`` (in image coordinates)."""
    x0, y0, x1, y1 = (round(v) for v in box)
    raw = image.crop((x0, y0, x1, y1)).tobytes()
    w = x1 - x0
    xs = [x0 + (i // 3) % w for i in range(0, len(raw), 3)
          if is_gold((raw[i], raw[i + 1], raw[i + 2]))]
    assert xs, "no gold in the box"
    return sum(xs) / len(xs)


def top_mat(image: Image.Image) -> list[Pixel]:
    return pixels(image, (bc.M, bc.TOP_MAT_Y, bc.WIDTH - bc.M, bc.TOP_MAT_Y + bc.MAT_H))


def bottom_mat(image: Image.Image) -> list[Pixel]:
    return pixels(image, (bc.M, bc.BOTTOM_MAT_Y, bc.WIDTH - bc.M, bc.BOTTOM_MAT_Y + bc.MAT_H))


def unit_box(view: dict[str, Any], owner: str, ref: str) -> tuple[float, float, float, float]:
    """Where a revealed unit's card is drawn (German units in the top band)."""
    units = view["battle"]["units"]
    band = bc.BANDS[0] if owner == G else bc.BANDS[1]
    mine = [u for u in units if u["owner"] == owner]
    _, boxes = bc.card_boxes(band, len(mine))
    index = next(i for i, u in enumerate(mine) if u["ref"] == ref)
    return boxes[index]


ALL_VIEWS = [setup_view, between_view, decide_view, resolve_view, battle_view, withdraw_view,
             over_view]


# --- contract ------------------------------------------------------------------------------


@pytest.mark.parametrize("make", ALL_VIEWS)
def test_every_phase_renders_a_png_of_the_expected_size(make: Any) -> None:
    png = render.render("battlecards", make(), None, NAMES)
    image = decode(png)
    assert image.size == (bc.WIDTH, bc.HEIGHT)
    # phone first: narrow, and not so tall that a phone shows it as a thin strip
    assert 700 <= image.size[0] <= 900
    assert image.size[1] <= 1.4 * image.size[0]
    assert len(png) < 250_000


def test_dispatch_goes_through_the_kind_module() -> None:
    view = battle_view()
    assert same_picture(render.render("battlecards", view, [], NAMES), bc.render(view, None, NAMES))


@pytest.mark.parametrize("make", ALL_VIEWS)
def test_render_never_mutates_the_view_events_or_names(make: Any) -> None:
    view = make()
    events = [{"type": "shot", "shooter": "g1", "target": "a1", "action_number": 3}]
    names = dict(NAMES)
    before = copy.deepcopy((view, events, names))
    render.render("battlecards", view, events, names)
    assert (view, events, names) == before


HOSTILE = ["🔥🐉👑" * 5, "x" * 500, "שלום עליכם", "مرحبا بالعالم", "", "   ", "\n\t\r",
           "a\u0301\u0301\u0301\u0301" * 40, "\u202eevil\u202c", "W" * 60, "\x00\x07bell",
           "中文名字很长很长很长很长很长很长很长很长"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_do_not_crash(name: str) -> None:
    for view in (setup_view(), battle_view(), over_view()):
        assert draw(view, {G: name, B: name}).size == (bc.WIDTH, bc.HEIGHT)


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_card_names_and_texts_do_not_crash(name: str) -> None:
    view = battle_view()
    for u in view["battle"]["units"]:
        u["card"] = dict(u["card"], name=name, text=name)
        u["ref"] = name[:3]
    view["battle"]["card"] = dict(INVASION, name=name, special=name)
    view["conflict"]["discard_top"] = dict(MOBILISATION, name=name, text=name, kind=name)
    view["players"][0]["battlecards_won"] = [dict(FRANCE, name=name)]
    view["battlecard_list"][0]["name"] = name
    view["prompt"] = name
    assert draw(view).size == (bc.WIDTH, bc.HEIGHT)
    view.update(battle=None, current=dict(MOBILISATION, name=name, text=name))
    assert draw(view).size == (bc.WIDTH, bc.HEIGHT)


def test_long_names_stay_inside_the_name_area() -> None:
    long, short = draw(between_view(), {G: "W" * 80, B: "W" * 80}), draw(between_view(),
                                                                         {G: "W", B: "W"})
    # below the name row, and the victory points beside it, both placemats are unchanged
    for y in (bc.TOP_MAT_Y, bc.BOTTOM_MAT_Y):
        for box in ((bc.M, y + 48, bc.WIDTH, y + bc.MAT_H), (bc.WIDTH - 150, y, bc.WIDTH,
                                                              y + bc.MAT_H)):
            assert pixels(long, box) == pixels(short, box)


def test_odd_views_still_render() -> None:
    for view in ({}, {"kind": "battlecards"},
                 {"players": "x", "battle": 7, "conflict": [], "last_shots": {}, "outcome": 3},
                 {"players": [None, 5, {"id": 9, "stacks": "lots", "vp": "many"}],
                  "battle": {"units": [None, {"card": 4}, {"ref": 5, "owner": None}]},
                  "battlecard_list": [None, {"status": 5}], "victory_target": 0},
                 dict(between_view(), victory_target=10**15)):   # once hung on its ticks
        draw(view)
    view = battle_view()
    view["battle"]["units"].append({"ref": "g9", "owner": "ghost", "card": None,
                                    "status": "exploded", "bonus": "lots"})
    view["battle"]["units"][0]["card"] = dict(PANZER, phases="all", attack=None,
                                              defense={"ground": "x", "air": True},
                                              support={"bonus": None, "to": "everything"},
                                              type="submarine")
    view["battle"].update(phase=9, round=None, aggressor="nobody")
    view["last_shots"].append({"shooter": None, "target": 3, "action_number": "seven",
                               "attack": None, "hit": "yes"})
    view["players"][0].update(vp=-5, hand_count=-2, kept_count=10**9, arsenal_count=None,
                              stacks={"ground": 10**6, "air": -1, "sea": "x"},
                              battlecards_won=[None, {"vp": None}] * 20)
    view["players"].append({"id": "333", "seat": 3, "side": "french"})
    view.update(round="x", phase=None, turn=5, to_act="all", victory_target=-1,
                conflict={"deck_count": "many", "discard_top": {"name": None}})
    draw(view)


def test_three_or_one_players_and_unknown_sides_render() -> None:
    view = between_view()
    view["players"] = view["players"][:1]
    draw(view)
    view = battle_view()
    for p in view["players"]:
        p["side"] = "martian"
    draw(view)


# --- privacy: the board image is public --------------------------------------------------------


SECRET = unit("G99", "Wunderwaffe ZZZ Secret Prototype", "german", "air", [1, 2, 3, 4],
              "10/10/10", "10/10/10")
SECRET_KEPT = conflict_card("C99", "Top Secret Dispatch XYZ", 10, "keep", "Keep this card.")


def with_private_cards(view: dict[str, Any], pid: str, card: dict[str, Any],
                       kept: dict[str, Any]) -> dict[str, Any]:
    """``view`` as ``pid`` receives it: their own hand, kept cards and stack contents added
    (as many as their public counts say)."""
    view = copy.deepcopy(view)
    view["viewer"] = pid
    p = next(p for p in view["players"] if p["id"] == pid)
    p["hand"] = [dict(card, id=f"H{i}") for i in range(p["hand_count"])]
    p["kept"] = [dict(kept, id=f"K{i}") for i in range(p["kept_count"])]
    p["stack_cards"] = {f: [dict(card, id=f"S{f}{i}") for i in range(n)]
                        for f, n in p["stacks"].items()}
    return view


@pytest.mark.parametrize("make", [setup_view, between_view, battle_view, over_view])
def test_the_public_view_has_no_private_keys_and_renders(make: Any) -> None:
    view = make()
    assert view["viewer"] is None
    for p in view["players"]:
        assert not {"hand", "kept", "stack_cards"} & set(p)
    assert draw(view).size == (bc.WIDTH, bc.HEIGHT)


@pytest.mark.parametrize("make", [setup_view, between_view, battle_view, over_view])
@pytest.mark.parametrize("pid", [G, B])
def test_a_players_own_cards_never_reach_the_image(make: Any, pid: str) -> None:
    """A view for a player carries their hand: the image is pixel for pixel the one drawn
    without it, whatever the hidden cards are (so no card name can be on it)."""
    public = make()
    own = with_private_cards(public, pid, SECRET, SECRET_KEPT)
    assert any(p.get("hand") for p in own["players"])
    stripped = copy.deepcopy(own)
    for p in stripped["players"]:
        for key in ("hand", "kept", "stack_cards"):
            p.pop(key, None)
    other = with_private_cards(public, pid, PANZER, RADAR)
    image = draw(own).tobytes()
    assert image == draw(stripped).tobytes()
    assert image == draw(other).tobytes()
    assert image == draw(public).tobytes()  # the viewer field changes nothing either


class Tripwire(dict):  # type: ignore[type-arg]
    """A player entry that fails the test if anything reads a private key."""

    PRIVATE = frozenset({"hand", "kept", "stack_cards"})

    def __getitem__(self, key: Any) -> Any:
        assert key not in self.PRIVATE, f"the renderer read {key!r}"
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        assert key not in self.PRIVATE, f"the renderer read {key!r}"
        return super().get(key, default)


@pytest.mark.parametrize("make", [setup_view, between_view, battle_view, over_view])
def test_the_renderer_never_reads_private_keys(make: Any) -> None:
    view = with_private_cards(make(), G, SECRET, SECRET_KEPT)
    view["players"] = [Tripwire(p) for p in view["players"]]
    draw(view)


# --- what is drawn ---------------------------------------------------------------------------


def test_vp_bar_grows_with_victory_points() -> None:
    def bar_fill(vp: int, index: int) -> int:
        view = between_view()
        view["players"][index]["vp"] = vp
        image = draw(view)
        box = bc.vp_bar_box(bc.TOP_MAT_Y if index == 0 else bc.BOTTOM_MAT_Y)
        colour = bc.GERMAN.bar if index == 0 else bc.BRITISH.bar
        return count(pixels(image, box), near(colour, 30))

    for index in (0, 1):
        fills = [bar_fill(vp, index) for vp in (0, 5, 19, 38)]
        assert fills[0] == 0
        assert fills[0] < fills[1] < fills[2] < fills[3]
        assert fills[2] * 1.6 < fills[3] < fills[2] * 2.4  # half-way is about half
        assert bar_fill(60, index) == fills[3]  # past the target the bar stays full


def test_destroyed_and_withdrawn_units_look_different_from_active_ones() -> None:
    def card(status: str) -> list[Pixel]:
        view = battle_view()
        view["battle"]["units"][0]["status"] = status
        return pixels(draw(view), unit_box(view, G, "g1"))

    active, destroyed, withdrawn = card("active"), card("destroyed"), card("withdrawn")
    parchment = near(bc.FACE, 12)
    assert count(active, parchment) > len(active) // 3
    assert count(destroyed, parchment) < count(active, parchment) // 10  # greyed out
    assert count(destroyed, is_red) > count(active, is_red) + 150  # crossed out and stamped
    assert count(withdrawn, parchment) < count(active, parchment) // 10  # dimmed
    assert mean(withdrawn) != mean(destroyed)
    assert count(withdrawn, is_red) < count(destroyed, is_red) // 2


def test_current_phase_highlight_moves_with_the_phase() -> None:
    x1 = bc.HEADER_BOX[2]
    header = (x1 - 300, bc.MID_Y0 + 28, x1, bc.MID_Y0 + 66)  # the firing track
    xs, card_xs = [], []
    for phase in (1, 2, 3, 4, "withdraw"):
        view = battle_view(phase)
        for u in view["battle"]["units"]:  # every unit fires in every phase, none destroyed
            u.update(status="active", bonus=0)
            u["card"] = dict(u["card"], phases=[1, 2, 3, 4])
        image = draw(view)
        xs.append(gold_x(image, header))
        if phase != "withdraw":
            x0, y0, x1, _ = unit_box(view, B, "g2")
            card_xs.append(gold_x(image, (x0, y0 + 30, x1, y0 + 90)))
    assert xs == sorted(xs) and len(set(xs)) == 5
    assert card_xs == sorted(card_xs) and len(set(card_xs)) == 4


def test_phases_a_unit_fires_in_are_marked() -> None:
    view = battle_view(3)
    box = unit_box(view, B, "g2")
    firing = copy.deepcopy(view)
    firing["battle"]["units"][5]["card"] = dict(ARTILLERY, phases=[3])
    idle = copy.deepcopy(view)
    idle["battle"]["units"][5]["card"] = dict(ARTILLERY, phases=[1])
    a, b = pixels(draw(firing), box), pixels(draw(idle), box)
    assert count(a, is_gold) > count(b, is_gold) + 40  # fires now: a gold box


def test_unit_values_are_drawn() -> None:
    view = battle_view()
    box = unit_box(view, B, "g1")
    stronger = copy.deepcopy(view)
    stronger["battle"]["units"][4]["card"] = dict(GUARDS, attack={"ground": 9, "air": 2,
                                                                  "sea": None})
    na = copy.deepcopy(view)
    na["battle"]["units"][4]["card"] = dict(GUARDS, attack={"ground": 7, "air": 2, "sea": 4})
    base = pixels(draw(view), box)
    assert pixels(draw(stronger), box) != base
    assert pixels(draw(na), box) != base  # "–" for N/A differs from a number
    bonus = copy.deepcopy(view)
    bonus["battle"]["units"][4]["bonus"] = 0
    assert count(pixels(draw(bonus), box), is_gold) < count(base, is_gold) - 30


def test_last_shots_show_hits_misses_and_action_numbers() -> None:
    def panel(view: dict[str, Any]) -> list[Pixel]:
        return pixels(draw(view), bc.SHOTS_BOX)

    view = battle_view()
    base = panel(view)
    none = copy.deepcopy(view)
    none["last_shots"] = []
    assert count(panel(none), is_red) + 100 < count(base, is_red)
    misses = copy.deepcopy(view)
    for s in misses["last_shots"]:
        s["hit"] = False
    assert count(panel(misses), near(bc.HIT, 20)) + 100 < count(base, near(bc.HIT, 20))
    other = copy.deepcopy(view)
    other["last_shots"][0]["action_number"] = 2
    assert panel(other) != base
    many = copy.deepcopy(view)
    many["last_shots"] = view["last_shots"] * 20
    draw(many)


def test_a_unit_hit_by_the_last_shot_carries_a_burst() -> None:
    view = battle_view()
    view["battle"]["units"][5]["status"] = "active"  # B's g2, missed by G's g1
    box = unit_box(view, B, "g2")
    hit = copy.deepcopy(view)
    hit["last_shots"][0]["hit"] = True
    assert count(pixels(draw(hit), box), is_red) > count(pixels(draw(view), box), is_red) + 30


def test_counts_on_the_placemats_are_drawn() -> None:
    view = between_view()
    base = draw(view)
    for change in ({"hand_count": 6}, {"kept_count": 3}, {"arsenal_count": 3},
                   {"stacks": {"ground": 0, "air": 2, "sea": 1}}, {"discard": []},
                   {"battlecards_won": [FRANCE]}, {"autofire": False}):
        other = copy.deepcopy(view)
        other["players"][0].update(change)
        image = draw(other)
        assert top_mat(image) != top_mat(base), change
        assert bottom_mat(image) == bottom_mat(base), change


def test_more_cards_in_hand_means_more_card_backs() -> None:
    def backs(n: int) -> int:
        view = between_view()
        view["players"][1]["hand_count"] = n
        return count(bottom_mat(draw(view)), near(bc.BRITISH.back, 10))

    assert backs(0) < backs(1) < backs(3) < backs(6)
    assert backs(20) == backs(7)  # at most seven drawn; the count says the rest


def test_the_german_mat_is_on_top_whatever_the_seat_order() -> None:
    view = between_view()
    swapped = copy.deepcopy(view)
    swapped["players"].reverse()
    a, b = draw(view), draw(swapped)
    assert top_mat(a) == top_mat(b)
    grey, khaki = mean(top_mat(a)), mean(bottom_mat(a))
    assert khaki[0] - khaki[2] > grey[0] - grey[2] + 15  # khaki is warmer than field grey


def test_who_must_act_is_marked_on_their_mat() -> None:
    accent = near(bc.ACCENT, 20)  # the ACTS NOW pill and the mat's frame
    view = between_view()  # Basil (British) to act
    image = draw(view)
    assert count(bottom_mat(image), accent) > count(top_mat(image), accent) + 300
    view.update(turn=G, to_act=[G])
    image = draw(view)
    assert count(top_mat(image), accent) > count(bottom_mat(image), accent) + 300


def test_over_marks_the_winner_and_the_outcome() -> None:
    running, over = draw(between_view()), draw(over_view())
    header = bc.HEADER_BOX
    assert pixels(over, header) != pixels(running, header)
    assert count(pixels(over, header), near(bc.ACCENT, 20)) > 500  # the GAME OVER frame
    assert count(top_mat(over), near(bc.ACCENT, 20)) > count(bottom_mat(over),
                                                            near(bc.ACCENT, 20)) + 300
    draw_view = over_view()
    draw_view["outcome"]["winners"] = []
    draw(draw_view)


def test_battlecard_in_play_shows_its_forces() -> None:
    header = bc.HEADER_BOX
    view = battle_view()
    air = copy.deepcopy(view)
    air["battle"]["card"] = dict(INVASION, forces=["air"])
    assert pixels(draw(air), header) != pixels(draw(view), header)
    vp = copy.deepcopy(view)
    vp["battle"]["card"] = dict(INVASION, vp=2)
    assert pixels(draw(vp), header) != pixels(draw(view), header)


def test_between_battles_the_battlecard_list_is_shown() -> None:
    body = bc.BODY_BOX
    view = between_view()
    changed = copy.deepcopy(view)
    changed["battlecard_list"][5].update(status="won", won_by=B)
    assert pixels(draw(changed), body) != pixels(draw(view), body)
    # the winner's colour outlines a battle they won
    blue = near(bc.BRITISH.bar, 25)
    assert count(pixels(draw(changed), body), blue) > count(pixels(draw(view), body), blue) + 50


def test_many_revealed_units_fit_the_band() -> None:
    for n in (1, 5, 6, 7, 12, 16, 24, 40):
        level, boxes = bc.card_boxes(bc.BANDS[0], n)
        assert len(boxes) <= n and (len(boxes) == n or level == 2)
        for x0, y0, x1, y1 in boxes:
            assert bc.BANDS[0][0] < x0 < x1 <= bc.BANDS[0][2]
            assert bc.BANDS[0][1] < y0 < y1 <= bc.BANDS[0][3]
        for a, b in itertools.pairwise(boxes):  # no overlap, reading order
            assert a[2] <= b[0] or a[3] <= b[1]
    view = battle_view()
    view["battle"]["units"] = [dict(u, ref=f"g{i}") for i, u in
                               enumerate(battle_units()[:4] * 10)]
    assert draw(view).size == (bc.WIDTH, bc.HEIGHT)


def test_the_card_being_resolved_and_the_discard_top_are_drawn() -> None:
    header = bc.HEADER_BOX
    between, resolving, deciding = draw(between_view()), draw(resolve_view()), draw(decide_view())
    assert pixels(resolving, header) != pixels(between, header)
    assert pixels(deciding, header) != pixels(resolving, header)
    conflict = bc.CONFLICT_BOX
    empty = between_view()
    empty["conflict"]["discard_top"] = None
    assert pixels(draw(empty), conflict) != pixels(between, conflict)


def crowded_view() -> dict[str, Any]:
    """Everything at once: 48 units a side in battle, full hands, tall stacks, many shots."""
    view = battle_view()
    view["battle"]["units"] = [dict(u, ref=f"{u['ref'][0]}{i}")
                               for i, u in enumerate(battle_units() * 14)]
    for p in view["players"]:
        p.update(hand_count=9, kept_count=5, stacks={"ground": 20, "air": 20, "sea": 20},
                 battlecards_won=ALL_BATTLES[:8], discard=[PANZER] * 10)
    view["last_shots"] = view["last_shots"] * 5
    return view


def test_a_crowded_table_still_fits_the_size_budget() -> None:
    png = render.render("battlecards", crowded_view(), None,
                        {G: "Gerda the very long-named commander", B: "Basil"})
    assert decode(png).size == (bc.WIDTH, bc.HEIGHT)
    assert len(png) < 250_000


# --- the events since the last board (a turn digest) -------------------------------------------


def draw_with(view: dict[str, Any], events: Any) -> Image.Image:
    return decode(render.render("battlecards", view, events, NAMES))


def shot(shooter: str, shooter_owner: str, target: str, target_owner: str, an: int,
         hit: bool, attack: int = 7, defense: int = 3) -> dict[str, Any]:
    """A shot event as the engine writes it."""
    return {"type": "shot", "shooter": shooter, "shooter_owner": shooter_owner,
            "target": target, "target_owner": target_owner, "action_number": an,
            "attack": attack, "defense": defense, "hit": hit, "shooter_name": "Shooter",
            "target_name": "Target", "flipped": "Some Card"}


def fought_battle(winner: str = G, hit: bool = True) -> list[dict[str, Any]]:
    """A whole battle, started and won within one digest, then the next turn."""
    units = [{"ref": "s1", "owner": G, "name": "KMS Bismarck"},
             {"ref": "a1", "owner": G, "name": "Sturzkampfgeschwader 77"},
             {"ref": "s1", "owner": B, "name": "HMS Hood"},
             {"ref": "a1", "owner": B, "name": "No. 19 Squadron"}]
    return [
        {"type": "drew", "player": G, "card": "Battle of the Atlantic", "kind": "battle",
         "text": "A battle.", "action_number": 5},
        {"type": "attack", "player": G, "card": "Battle of the Atlantic"},
        {"type": "battle_start", "card": "Battle of the Atlantic", "aggressor": G,
         "defender": B, "units": units},
        {"type": "support", "player": G, "from": "a1", "to": "s1", "bonus": 1,
         "from_name": "Sturzkampfgeschwader 77", "to_name": "KMS Bismarck"},
        shot("s1", G, "a1", B, 6, hit),
        shot("a1", B, "a1", G, 9, False),
        shot("s1", B, "s1", G, 2, False),
        {"type": "withdraw", "player": B, "ref": "s1", "name": "HMS Hood"},
        *([] if hit else [{"type": "withdraw", "player": B, "ref": "a1",
                           "name": "No. 19 Squadron"}]),
        {"type": "battle_won", "player": winner, "card": "Battle of the Atlantic", "vp": 6,
         "total_vp": 18},
        {"type": "turn", "player": B, "round": 10},
    ]


def test_shots_in_the_events_are_drawn_when_the_view_has_none() -> None:
    """The digest's board: the view's last_shots were emptied by a later action, but
    every shot since the last board is in the events."""
    view = battle_view()
    view["last_shots"] = []
    events = [shot("g1", G, "g2", B, 7, False), shot("g1", B, "g2", G, 6, True),
              shot("g1", G, "a1", B, 3, True)]
    without = pixels(draw_with(view, None), bc.SHOTS_BOX)
    with_events = pixels(draw_with(view, events), bc.SHOTS_BOX)
    hit = near(bc.HIT, 20)
    assert count(with_events, hit) > count(without, hit) + 300  # two HIT pills, the hit count
    assert count(with_events, near(bc.FACE, 10)) > count(without, near(bc.FACE, 10)) + 300
    other = copy.deepcopy(events)
    other[0]["action_number"] = 2  # the Action Numbers are drawn
    assert pixels(draw_with(view, other), bc.SHOTS_BOX) != with_events
    # a hit in the events marks the unit it hit with a burst
    view["battle"]["units"][5]["status"] = "active"  # B's g2
    box = unit_box(view, B, "g2")
    missed = count(pixels(draw_with(view, events), box), is_red)
    events[0]["hit"] = True
    assert count(pixels(draw_with(view, events), box), is_red) > missed + 30


def test_every_shot_since_the_last_board_not_just_the_view_last_shots() -> None:
    view = battle_view()  # last_shots: the last action's three shots, two hits
    earlier = [shot("g3", G, "g1", B, 5, True), shot("g1", B, "g3", G, 8, True)]
    events = earlier + [dict(s, type="shot") for s in view["last_shots"]]
    hit = near(bc.HIT, 20)
    assert count(pixels(draw_with(view, events), bc.SHOTS_BOX), hit) > count(
        pixels(draw_with(view, None), bc.SHOTS_BOX), hit) + 300
    # between battles too (the battle is over, its shots are still shown)
    between = between_view()
    assert count(pixels(draw_with(between, events), bc.SHOTS_BOX), hit) > count(
        pixels(draw_with(between, None), bc.SHOTS_BOX), hit) + 300


def test_without_events_the_view_last_shots_are_shown() -> None:
    view = battle_view()
    image = draw_with(view, None).tobytes()
    assert draw_with(view, []).tobytes() == image
    # events with no shot (an auto-fire toggle) leave the view's last shots in place
    assert draw_with(view, [{"type": "autofire", "player": G, "on": True}]).tobytes() == image


def test_a_battle_fought_within_the_events_is_reported() -> None:
    view = between_view()  # the battle is over: the view's battle is empty
    assert view["battle"] is None
    plain = draw_with(view, None)
    report = draw_with(view, fought_battle())
    # the header names the battle and its winner's gain (gold: the VP seal and "+6 VP")
    gold = near(bc.GOLD, 20)
    assert count(pixels(report, bc.HEADER_BOX), gold) > count(
        pixels(plain, bc.HEADER_BOX), gold) + 800
    # the winner is named in their side's colour
    british = draw_with(view, fought_battle(winner=B))
    assert pixels(british, bc.HEADER_BOX) != pixels(report, bc.HEADER_BOX)
    blue = near(bc.lighten(bc.BRITISH.bar, 0.25), 20)
    assert count(pixels(british, bc.HEADER_BOX), blue) > count(
        pixels(report, bc.HEADER_BOX), blue) + 100
    # the body reports every unit's fate instead of the Battlecard List
    assert pixels(report, bc.BODY_BOX) != pixels(plain, bc.BODY_BOX)
    withdrawn = near(bc.WITHDRAWN, 12)
    assert count(pixels(report, bc.BODY_BOX), withdrawn) > 300  # HMS Hood withdrew
    missed = draw_with(view, fought_battle(hit=False))  # No. 19 Squadron withdrew instead
    hit = near(bc.HIT, 12)
    assert count(pixels(report, bc.BODY_BOX), hit) > count(pixels(missed, bc.BODY_BOX),
                                                           hit) + 300


def test_the_events_are_read_into_the_battle_report() -> None:
    digest = bc.read_events(fought_battle())
    fin = digest.finished
    assert fin is not None
    assert (fin.card, fin.winner, fin.vp, fin.total_vp, fin.aggressor, fin.how) == (
        "Battle of the Atlantic", G, 6, 18, G, "")
    fates = {(u.owner, u.ref): (u.name, u.fate) for u in fin.units}
    assert fates == {(G, "S1"): ("KMS Bismarck", ""),
                     (G, "A1"): ("Sturzkampfgeschwader 77", ""),
                     (B, "S1"): ("HMS Hood", "withdrawn"),
                     (B, "A1"): ("No. 19 Squadron", "destroyed")}
    assert len(fin.shots) == 3 and len(digest.shots) == 3
    # a battle that began before the last board: its units come from the shots
    fin = bc.read_events(fought_battle()[3:]).finished
    assert fin is not None and {(u.owner, u.ref) for u in fin.units} == {
        (G, "S1"), (G, "A1"), (B, "S1"), (B, "A1")}
    # a stalemate withdraws the aggressor's units; a walkover has nothing to report
    stalemate = [*fought_battle()[:4], {"type": "stalemate", "player": G, "defender": B},
                 {"type": "battle_won", "player": B, "card": "Battle of the Atlantic",
                  "vp": 6, "total_vp": 10}]
    fin = bc.read_events(stalemate).finished
    assert fin is not None and fin.how == "stalemate"
    assert {u.fate for u in fin.units if u.owner == G} == {"withdrawn"}
    walkover = [{"type": "walkover", "card": "Dunkirk", "player": B},
                {"type": "battle_won", "player": B, "card": "Dunkirk", "vp": 4, "total_vp": 8}]
    fin = bc.read_events(walkover).finished
    assert fin is not None and fin.how == "uncontested" and not fin.units
    view = between_view()
    assert pixels(draw_with(view, walkover), bc.BODY_BOX) == pixels(draw(view), bc.BODY_BOX)
    assert pixels(draw_with(view, walkover), bc.HEADER_BOX) != pixels(draw(view),
                                                                      bc.HEADER_BOX)


def test_the_battle_that_ended_the_war_is_reported_on_the_final_board() -> None:
    view = over_view()
    events = [*fought_battle()[:-1], {"type": "game_over", "winners": [G], "standings": [G, B],
                                       "reason": "Standard Victory"}]
    assert pixels(draw_with(view, events), bc.BODY_BOX) != pixels(draw(view), bc.BODY_BOX)
    # the outcome keeps the header
    assert pixels(draw_with(view, events), bc.HEADER_BOX) == pixels(draw(view), bc.HEADER_BOX)


def test_private_events_change_nothing() -> None:
    """Events with ``private_to`` (a player's own cards) never reach the image, even
    shaped like public ones."""
    for make in (between_view, battle_view):
        view = make()
        public = [shot("g1", G, "g2", B, 7, False)]
        private = [dict(e, private_to=G) for e in fought_battle()] + [
            {"type": "arsenal_cards", "private_to": G, "player": G,
             "cards": ["Wunderwaffe ZZZ Secret Prototype"]},
            {"type": "kept_card", "private_to": B, "player": B, "card": "Top Secret",
             "text": "Keep this card."}]
        assert draw_with(view, private).tobytes() == draw_with(view, None).tobytes()
        mixed = [private[0], *public, *private[1:]]
        assert draw_with(view, mixed).tobytes() == draw_with(view, public).tobytes()


ODD_EVENTS: list[Any] = [
    None, 5, "shot", [], {}, {"type": None}, {"type": 7, "hit": True}, {"type": "shot"},
    {"type": "shot", "shooter": {"a": 1}, "target": [1], "hit": "yes", "action_number": "x",
     "attack": True, "defense": None, "shooter_owner": ["x"], "target_name": 5},
    {"type": "battle_start", "units": "lots", "card": None},
    {"type": "battle_start", "units": [None, 3, {"ref": None}, {"ref": "g1", "owner": {}}]},
    {"type": "withdraw", "ref": None}, {"type": "withdraw", "ref": "🔥" * 50, "player": G},
    {"type": "support", "from": 3}, {"type": "kept_played", "ref": ["x"]},
    {"type": "stalemate"}, {"type": "declined", "card": None}, {"type": "battle_ignored"},
    {"type": "prerequisites_unmet", "card": "x" * 500},
    {"type": "battle_won"}, {"type": "battle_won", "vp": "six", "player": None, "card": 9,
                             "total_vp": True},
]


@pytest.mark.parametrize("make", ALL_VIEWS)
def test_malformed_events_do_not_crash(make: Any) -> None:
    view = make()
    for events in (ODD_EVENTS, ODD_EVENTS[::-1], [ODD_EVENTS[-1]], ODD_EVENTS * 50,
                   {"type": "shot"}, "events", 7, (shot("g1", G, "g2", B, 3, True),)):
        assert draw_with(view, events).size == (bc.WIDTH, bc.HEIGHT)
    huge = [shot(f"g{i}", G, f"a{i}", B, i % 10 + 1, i % 3 == 0) for i in range(3000)]
    assert draw_with(view, huge).size == (bc.WIDTH, bc.HEIGHT)


def test_render_never_mutates_a_digest() -> None:
    for view, events in ((between_view(), fought_battle()), (battle_view(), ODD_EVENTS),
                         (over_view(), fought_battle(B))):
        before = copy.deepcopy((view, events))
        render.render("battlecards", view, events, NAMES)
        assert (view, events) == before


def test_the_shots_list_keeps_every_hit_first() -> None:
    shots = [shot("g1", G, "a1", B, n, n in (2, 9)) for n in range(1, 11)]
    picked = bc.pick_shots(shots, 5)
    assert [s["action_number"] for s in picked] == [2, 7, 8, 9, 10]  # in order
    assert bc.pick_shots(shots[:3], 5) == shots[:3]
    all_hits = [dict(s, hit=True) for s in shots]
    assert [s["action_number"] for s in bc.pick_shots(all_hits, 3)] == [8, 9, 10]


# --- text cut at word boundaries ------------------------------------------------------------------


SPECIAL = ("The German player wins at once when every British Ground unit in the battle is "
           "destroyed; the other British units go back to their stacks.")


def test_cut_text_ends_with_an_ellipsis_after_a_whole_word() -> None:
    words = SPECIAL.split()
    for width in (12, 20, 33, 47, 60):
        for lines in (1, 2, 3):
            if width * lines >= len(SPECIAL):  # it might fit
                continue
            out = bc.clip_words(SPECIAL, len, width, lines)
            assert 1 <= len(out) <= lines
            assert all(len(line) <= width for line in out)
            assert out[-1].endswith("…")
            kept = " ".join(out)[:-1].split()
            assert kept[:-1] == words[:len(kept) - 1]  # only whole words, in order
            assert words[len(kept) - 1].rstrip(",;:.") == kept[-1]  # punctuation dropped
            assert not out[-1][:-1].endswith((";", ",", " "))
    assert bc.clip_words("Dunkirk", len, 20, 1) == ["Dunkirk"]  # no cut, no ellipsis
    assert bc.clip_words("Battle of the Atlantic", len, 13, 2) == ["Battle of the", "Atlantic"]
    assert bc.clip_words("Sturzkampfgeschwader", len, 8, 2) == ["Sturzka…"]  # one long word
    assert bc.clip_words("", len, 10, 2) == [] and bc.clip_words("a b", len, 0, 2) == []


def test_the_special_text_is_cut_at_a_word_boundary_in_pixels() -> None:
    canvas = bc.Canvas(10, 10)
    measure = lambda s: canvas.text_width(s, 12, bold=True)  # noqa: E731
    (line,) = bc.clip_words(f"BATTLE · {SPECIAL}", measure, 420, 1)
    assert line.endswith("…") and measure(line) <= 420
    assert f"BATTLE · {SPECIAL}".startswith(line[:-1])
    assert f"BATTLE · {SPECIAL}"[len(line) - 1] == " "  # the next character starts a word
    # a special text longer than the cleaning limit is also cut between words
    long = bc._long_text(SPECIAL * 5, limit=100)
    assert long.endswith("…") and len(long) <= 101
    assert (SPECIAL * 5).startswith(long[:-1]) and (SPECIAL * 5)[len(long) - 1] == " "


# --- phone first: the conflict card's text -----------------------------------------------------

LONGEST = conflict_card("C40", "Close Air Support", 7, "keep",
                        "Keep this card. In a battle, play it on one of your Ground units: +2 "
                        "attack for the rest of the battle.")
LONG_NAME = conflict_card("C50", "Factories at Full Output", 4, "arsenal",
                          "Draw 2 arsenal cards into your reserve hand.")


@pytest.mark.parametrize("card", [LONGEST, LONG_NAME, MOBILISATION])
def test_the_conflict_cards_text_is_readable_on_a_phone(card: dict[str, Any]) -> None:
    """The card being resolved (the header) and the face-up discard (the card just drawn):
    name and whole effect at the phone size, recorded with a role, inside their boxes."""
    view = resolve_view()
    view["current"] = card
    view["conflict"]["discard_top"] = card
    with TextLog() as log:
        render.render("battlecards", view, None, NAMES)
    smallest = min_essential_size(log.width)
    words = card["text"].replace(".", "").split()
    for box in (bc.HEADER_BOX, bc.CONFLICT_BOX):
        inside = [d for d in log.drawn if d.box is not None and box[0] <= d.box[0]
                  and d.box[2] <= box[2] and box[1] <= d.box[1] and d.box[3] <= box[3]]
        marked = [d for d in inside if d.role is not None]
        assert all(d.size >= smallest for d in marked), marked
        text = " ".join(d.text for d in marked if d.role == "log")
        assert text.replace(".", "").split()[-len(words):] == words, (box, text)  # all of it
        name = " ".join(d.text for d in marked if d.text in card["name"])
        assert name == card["name"], (box, name)
