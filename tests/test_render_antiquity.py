"""render/antiquity.py: the Antiquity board, from views built here by hand following the
view contract (the engine is not imported), and the map it draws."""

from __future__ import annotations

import copy
import io
import math
import tomllib
from typing import Any

import pytest
from PIL import Image

import render
from render import antiquity
from render.common import DANGER, TextLog, min_essential_size
from render.common.overlap import hidden_texts, overlapping_texts
from tests.boards import same_picture

DATA = tomllib.loads(antiquity.MAP_FILE.read_text(encoding="utf-8"))
ORDER: list[str] = DATA["nation_order"]
FIELDS = ["marble", "temple", "maneuver1", "knowhow", "gold", "iron", "arming", "maneuver2"]
TARGET = {2: 12, 3: 11, 4: 10, 5: 9, 6: 8}
NAMES = {f"p{i}": name for i, name in enumerate(
    ("Ada", "Bartholomew the Bold", "Chen", "Dagny Ødegård", "Émile", "Farah"), 1)}


def colour(nid: str) -> tuple[int, int, int]:
    raw = bytes.fromhex(DATA["nations"][nid]["color"][1:])
    return raw[0], raw[1], raw[2]


def view(n: int = 6, **kw: Any) -> dict[str, Any]:
    """The opening of an ``n``-nation game as the engine shows it: every nation's three
    home cities with a legion each, the regions in play for ``n`` players only."""
    nations = ORDER[:n]
    homes = {h: nid for nid in nations for h in DATA["nations"][nid]["home"]}
    provinces = []
    for pid, p in DATA["provinces"].items():
        if p["players"] > n:
            continue
        owner = homes.get(pid)
        provinces.append({"id": pid, "name": p["name"], "city": p["city"],
                          "resource": p["resource"], "owner": owner, "temple": False,
                          "legions": {owner: 1} if owner else {}, "coasts": p["coasts"],
                          "defence": 1 if owner else None, "moved": 0})
    seas = [{"id": sid, "name": s["name"], "deep": s["deep"], "galleys": {}, "moved": 0}
            for sid, s in DATA["seas"].items() if s["players"] <= n]
    entries = []
    for i, nid in enumerate(nations):
        entries.append({
            "id": nid, "name": DATA["nations"][nid]["name"], "player": f"p{i + 1}",
            "color": DATA["nations"][nid]["color"], "seat": i, "out": False,
            "marble": 1, "iron": 1, "gold": 1 + i, "wheel": None, "knowhow": [],
            "personalities": {"king": 0, "citizen": 0, "scholar": 0, "navigator": 0,
                              "general": 0},
            "points": 0, "cities": 3, "temples": 0, "stones": 22, "legions": 3, "galleys": 0,
            "seas": 0})
    v: dict[str, Any] = {
        "kind": "antiquity", "viewer": None, "round": 1, "rounds": 60, "target": TARGET[n],
        "turn": nations[0], "phase": "wheel", "field": None, "to_act": ["p1"],
        "prompt": "Romans: choose a field of the action wheel (the first move is free).",
        "nations": entries, "provinces": provinces, "seas": seas, "wheel": list(FIELDS),
        "temples_left": 15, "first_knowhow": {}, "outcome": None}
    v.update(kw)
    return v


def province(v: dict[str, Any], pid: str) -> dict[str, Any]:
    return next(p for p in v["provinces"] if p["id"] == pid)


def sea(v: dict[str, Any], sid: str) -> dict[str, Any]:
    return next(s for s in v["seas"] if s["id"] == sid)


def nation(v: dict[str, Any], nid: str) -> dict[str, Any]:
    return next(n for n in v["nations"] if n["id"] == nid)


def crowded() -> dict[str, Any]:
    """Round 23 of six nations: cities changed hands, temples, armies and fleets about,
    know-hows and personalities, the Carthaginians in the middle of a Maneuver."""
    v = view(6, round=23, turn="carthaginians", phase="action", field="maneuver1",
             to_act=["p2"], prompt="Move, fight, found, conquer or abandon; then end.")
    for pid, owner in (("sicilia", "carthaginians"), ("sardinia", "carthaginians"),
                       ("illyria", "greeks"), ("creta", "egyptians"), ("cyprus", "phoenicians"),
                       ("mauretania", "iberians"), ("celtiberia", "iberians")):
        province(v, pid)["owner"] = owner
    for pid in ("latium", "attica", "phoenicia", "sicilia"):
        province(v, pid)["temple"] = True
    province(v, "latium")["legions"] = {"romans": 12}
    province(v, "campania")["legions"] = {"romans": 4, "carthaginians": 2}
    province(v, "macedonia")["legions"] = {"greeks": 2, "iberians": 11, "romans": 5}
    sea(v, "tyrrhenum")["galleys"] = {"romans": 3, "carthaginians": 1}
    sea(v, "aegaeum")["galleys"] = {"greeks": 5}
    sea(v, "ionium")["galleys"] = {"greeks": 2, "romans": 10, "carthaginians": 1,
                                   "iberians": 4}
    for i, n in enumerate(v["nations"]):
        n.update(marble=3 + i, iron=i, gold=12 + 7 * i, wheel=FIELDS[(i * 3) % 8],
                 knowhow=["wheel", "roads", "sailing", "navigation", "currency", "monarchy",
                          "democracy", "philosophy"][:i + 2],
                 personalities={"king": 1, "citizen": i % 2, "scholar": 2, "navigator": 1,
                                "general": 0},
                 points=4 + i % 3, cities=4 + i, temples=1, stones=21 - i, legions=6 + i,
                 galleys=2 + i)
    nation(v, "carthaginians")["wheel"] = "maneuver1"
    nation(v, "phoenicians")["wheel"] = "maneuver1"
    return v


TURN = [
    {"type": "turn", "nation": "carthaginians", "player": "p2", "round": 23},
    {"type": "go", "nation": "carthaginians", "player": "p2", "field": "maneuver1",
     "from": "marble", "steps": 2, "paid": {}},
    {"type": "move", "nation": "carthaginians", "unit": "legion", "count": 2,
     "from": "numidia", "to": "mauretania", "path": ["mauretania"]},
    {"type": "move", "nation": "carthaginians", "unit": "galley", "count": 3,
     "from": "sardoum", "to": "tyrrhenum", "path": ["tyrrhenum"]},
    {"type": "move", "nation": "carthaginians", "unit": "legion", "count": 1, "from": "africa",
     "to": "cyrenaica", "path": ["tripolitania", "cyrenaica"]},
    {"type": "fight", "nation": "carthaginians", "other": "romans", "region": "tyrrhenum",
     "losses": 1},
    {"type": "found", "nation": "carthaginians", "province": "cyrenaica"},
    {"type": "conquer", "nation": "carthaginians", "defender": "romans", "province": "sicilia",
     "strength": 2, "legions": 1, "galleys": {"tyrrhenum": 1}, "temple": False,
     "defender_losses": {"legions": 1, "galleys": {}}},
    {"type": "personality", "nation": "carthaginians", "kind": "king", "total": 5},
]
OTHER_TURN = [
    {"type": "turn", "nation": "greeks", "player": "p3", "round": 23},
    {"type": "go", "nation": "greeks", "player": "p3", "field": "arming", "from": "gold",
     "steps": 2, "paid": {}},
    {"type": "arm", "nation": "greeks", "unit": "legion", "region": "attica"},
    {"type": "arm", "nation": "greeks", "unit": "galley", "region": "aegaeum"},
    {"type": "arm", "nation": "greeks", "unit": "galley", "region": "aegaeum"},
    {"type": "temple", "nation": "greeks", "province": "macedonia"},
    {"type": "produce", "nation": "greeks", "resource": "gold", "amount": 3},
    {"type": "learn", "nation": "greeks", "knowhow": "monarchy", "cost": 7, "first": True},
    {"type": "abandon", "nation": "greeks", "province": "illyria", "temple": False},
]


def decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image


def draw(v: dict[str, Any], events: list[dict[str, Any]] | None = None,
         names: dict[str, str] | None = NAMES) -> Image.Image:
    return decode(render.render("antiquity", v, events, names)).convert("RGB")


def logged(v: dict[str, Any], events: list[dict[str, Any]] | None = None,
           names: dict[str, str] | None = NAMES, fresh: bool = False) -> TextLog:
    """The text a board draws (``fresh``: its static layers too, drawn anew)."""
    if fresh:
        antiquity._map_layer.cache_clear()
        antiquity._backdrop.cache_clear()
    with TextLog() as log:
        render.render("antiquity", v, events, names)
    return log


Pixel = tuple[int, int, int]


def pixels(image: Image.Image, box: tuple[float, float, float, float]) -> list[Pixel]:
    x0, y0, x1, y1 = (round(v) for v in box)
    raw = image.crop((x0, y0, x1, y1)).tobytes()
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


def near(target: Pixel, tolerance: int = 30) -> Any:
    def test(p: Pixel) -> bool:
        return all(abs(a - b) <= tolerance for a, b in zip(p, target, strict=True))
    return test


def count(px: list[Pixel], test: Any) -> int:
    return sum(1 for p in px if test(p))


def city_box(pid: str, r: float = antiquity.CITY_R - 3) -> tuple[float, float, float, float]:
    x, y = antiquity._city_xy(antiquity.game_map().provinces[pid])
    return (x - r, y - r, x + r, y + r)


def sea_label(name: str) -> str:
    """A sea's name as the map shows it: without "Mare" or "Oceanus"."""
    return name.removeprefix("Mare ").removeprefix("Oceanus ")


Box = tuple[float, float, float, float]


def grown(box: Box, by: float) -> Box:
    return (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def meet(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def counter(log: TextLog, text: str, near_to: tuple[float, float], within: float = 70) -> Box:
    """The box of the unit count ``text`` drawn on the map nearest ``near_to``."""
    found = []
    for d in log.drawn:
        if d.role == "count" and d.text == text and d.box is not None:
            x, y = (d.box[0] + d.box[2]) / 2, (d.box[1] + d.box[3]) / 2
            found.append((math.dist((x, y), near_to), d.box))
    assert found, text
    dist, box = min(found)
    assert dist < within, (text, dist)
    return box


WHEEL = antiquity.WHEEL_BOX
MAP_BOX = (antiquity.MAP_X, antiquity.MAP_Y, antiquity.MAP_X + antiquity.MAP_W,
           antiquity.MAP_Y + antiquity.MAP_H)


# --- contract --------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_renders_a_palette_png_of_the_expected_size(n: int) -> None:
    png = render.render("antiquity", view(n), TURN, NAMES)
    image = decode(png)
    assert image.size == (antiquity.WIDTH, antiquity.image_height(n))
    assert image.mode == "P"
    assert len(png) <= 150_000
    # two nations a row of panels: three rows for six, one for two
    assert antiquity.image_height(6) > antiquity.image_height(4) > antiquity.image_height(2)
    assert antiquity.image_height(2) == antiquity.image_height(1)


def test_crowded_six_nation_board_is_a_small_png() -> None:
    png = render.render("antiquity", crowded(), TURN + OTHER_TURN, NAMES)
    image = decode(png)
    assert image.size == (780, antiquity.image_height(6)) == (780, 1392)
    assert len(png) <= 150_000


def test_dispatch_goes_through_the_kind_module() -> None:
    v = crowded()
    assert same_picture(render.render("antiquity", v, TURN, NAMES),
                        antiquity.render(v, TURN, NAMES))
    assert same_picture(render.render("antiquity", v, [], NAMES), antiquity.render(v, None, NAMES))


def test_the_same_input_gives_the_same_bytes() -> None:
    v = crowded()
    first = render.render("antiquity", v, TURN, NAMES)
    render.render("antiquity", view(3), OTHER_TURN, NAMES)  # other boards in between
    antiquity._backdrop.cache_clear()
    antiquity._map_layer.cache_clear()
    assert render.render("antiquity", copy.deepcopy(v), copy.deepcopy(TURN), dict(NAMES)) \
        == first


def test_render_never_mutates_the_view_events_or_names() -> None:
    v = crowded()
    events = copy.deepcopy(TURN + OTHER_TURN)
    names = dict(NAMES)
    before = copy.deepcopy((v, events, names))
    render.render("antiquity", v, events, names)
    assert (v, events, names) == before


# --- the map ---------------------------------------------------------------------------


def test_the_map_reads_every_region_and_border_from_the_data() -> None:
    gm = antiquity.game_map()
    assert list(gm.provinces) == list(DATA["provinces"]) and len(gm.provinces) == 34
    assert list(gm.seas) == list(DATA["seas"]) and len(gm.seas) == 13
    assert gm.order == tuple(ORDER)
    assert len(gm.land) == len(DATA["land"]) and len(gm.sea_borders) == len(DATA["sea"])
    for region in [*gm.provinces.values(), *gm.seas.values()]:
        x, y = region.at
        assert MAP_BOX[0] + 10 <= x <= MAP_BOX[2] - 10, region.id
        assert MAP_BOX[1] + 10 <= y <= MAP_BOX[3] - 10, region.id
    for a, b in [*gm.provinces.items()][:-1]:
        for c, d in gm.provinces.items():
            if a != c:
                assert math.dist(b.at, d.at) > 2 * antiquity.CITY_R + 12, (a, c)


def test_every_sea_point_lies_in_its_own_cell() -> None:
    cells = antiquity.sea_cells()
    for sid, s in antiquity.game_map().seas.items():
        poly = cells[sid]
        assert len(poly) >= 3
        x, y = s.at
        inside = False  # ray casting
        for (ax, ay), (bx, by) in zip(poly, poly[1:] + poly[:1], strict=True):
            if (ay > y) != (by > y) and x < ax + (y - ay) * (bx - ax) / (by - ay):
                inside = not inside
        assert inside, sid


@pytest.mark.parametrize("n", [2, 3, 4, 6])
def test_the_map_draws_the_regions_in_play_and_no_others(n: int) -> None:
    v = view(n)
    log = logged(v, fresh=True)
    text = {d.text for d in log.drawn}
    for pid, p in DATA["provinces"].items():
        assert (p["city"] in text) == (p["players"] <= n), pid
    for sid, s in DATA["seas"].items():
        drawn = sea_label(s["name"]) in text
        assert drawn == (s["players"] <= n), sid
    image = draw(v)
    for pid, p in DATA["provinces"].items():
        px = pixels(image, city_box(pid, antiquity.CITY_R + 1))
        ring = antiquity.RESOURCE_COLOURS[p["resource"]]
        rings = count(px, near(ring, 25))
        if p["players"] <= n:
            assert rings > 15, pid  # the city site, ringed in its resource's colour
        else:  # greyed: no city site, grey land
            assert rings == 0 or (p["resource"] == "iron" and rings < 5), pid
            assert count(px, near(antiquity.LAND_OUT, 6)) > len(px) // 2, pid


def test_deep_seas_are_darker_than_the_others() -> None:
    image = draw(view(6))
    cells = antiquity.sea_cells()

    def sample(sid: str) -> float:
        xs = [p[0] for p in cells[sid]]
        [p[1] for p in cells[sid]]
        x, y = antiquity.game_map().seas[sid].at
        # a strip beside the name, within the cell
        px = pixels(image, (max(min(xs), x - 60), y + 40, max(min(xs), x - 60) + 20, y + 46))
        return sum(sum(p) for p in px) / len(px)

    assert image.getpixel((400, 400)) is not None
    deep = [sid for sid, s in DATA["seas"].items() if s["deep"]]
    assert deep
    sea_colour = sum(antiquity.SEA)
    deep_colour = sum(antiquity.DEEP)
    assert deep_colour < sea_colour - 60
    flat = image.load()
    assert flat is not None
    # the middle of the Ionian sea's cell (deep) against the Balearic's (shallow)
    for sid, want in (("ionium", antiquity.DEEP), ("balearicum", antiquity.SEA)):
        xs = [p[0] for p in cells[sid]]
        ys = [p[1] for p in cells[sid]]
        hits = 0
        total = 0
        for x in range(round(min(xs)), round(max(xs)), 3):
            for y in range(round(min(ys)), round(max(ys)), 3):
                total += 1
                if near(want, 4)(flat[x, y]):
                    hits += 1
        assert hits > total // 8, sid
    assert sample  # (kept for debugging)


def test_cities_are_drawn_in_their_owners_colour() -> None:
    v = view(6)
    image = draw(v)
    for pid, _p in DATA["provinces"].items():
        px = pixels(image, city_box(pid))
        owner = province(v, pid)["owner"]
        if owner is None:
            assert all(count(px, near(colour(nid), 20)) < 4 for nid in ORDER), pid
        else:
            assert count(px, near(colour(owner), 20)) > len(px) // 3, (pid, owner)
    province(v, "sicilia")["owner"] = "greeks"
    province(v, "latium")["owner"] = "phoenicians"
    image = draw(v)
    assert count(pixels(image, city_box("sicilia")), near(colour("greeks"), 20)) > 20
    latium = pixels(image, city_box("latium"))
    assert count(latium, near(colour("phoenicians"), 20)) > 20
    assert count(latium, near(colour("romans"), 20)) < 4


def test_temples_and_units_are_drawn() -> None:
    v = view(6)
    plain = draw(v)
    province(v, "latium")["temple"] = True
    x, y = antiquity._city_xy(antiquity.game_map().provinces["latium"])
    corner = (x, y - 18, x + 18, y)
    assert pixels(draw(v), corner) != pixels(plain, corner)
    # legions beside their city, galleys under their sea's name, in each nation's colour
    v = view(6)
    province(v, "campania")["legions"] = {"romans": 4, "carthaginians": 12}
    sea(v, "aegaeum")["galleys"] = {"greeks": 5, "egyptians": 2}
    with TextLog() as log:
        image = draw(v)
    counts = [d.text for d in log.drawn if d.role == "count"]
    assert {"4", "12", "5", "2"} <= set(counts)
    gm = antiquity.game_map()
    campania = antiquity._city_xy(gm.provinces["campania"])
    box = counter(log, "12", campania)
    assert count(pixels(image, grown(box, 3)), near(colour("carthaginians"), 20)) > 60
    box = counter(log, "4", campania)
    assert count(pixels(image, grown(box, 3)), near(colour("romans"), 20)) > 60
    aegaeum = antiquity.spots(frozenset(antiquity._places(v)))["aegaeum"].label
    box = counter(log, "5", aegaeum)
    assert count(pixels(image, grown(box, 3)), near(colour("greeks"), 20)) > 60
    box = counter(log, "2", aegaeum)
    assert count(pixels(image, grown(box, 3)), near(colour("egyptians"), 20)) > 60


# --- the wheel -------------------------------------------------------------------------


def test_every_nations_marker_is_on_the_wheel() -> None:
    v = crowded()
    image = draw(v)
    px = pixels(image, WHEEL)
    for n in v["nations"]:
        assert count(px, near(colour(n["id"]), 12)) > 60, n["id"]
    # markers leave the wheel with them
    for n in v["nations"]:
        n["wheel"] = None
    v["field"] = None
    bare = pixels(draw(v), WHEEL)
    for n in v["nations"]:
        if n["id"] != "carthaginians":  # the hub shows the nation to act
            assert count(bare, near(colour(n["id"]), 12)) < 10, n["id"]


def test_six_markers_on_one_field_stay_apart() -> None:
    for i in range(8):
        slots = antiquity._marker_slots(i, 6)
        assert len(slots) == 6
        for a in range(6):
            for b in range(a + 1, 6):
                assert math.dist(slots[a], slots[b]) >= 2 * antiquity.MARKER_R, (i, a, b)
            d = math.dist(slots[a], antiquity.WHEEL_C)
            assert d + 2 >= antiquity.WHEEL_IN + antiquity.MARKER_R
            assert d + antiquity.MARKER_R <= antiquity.WHEEL_OUT
    v = crowded()
    for n in v["nations"]:
        n["wheel"] = "gold"
    image = draw(v)
    px = pixels(image, WHEEL)
    for n in v["nations"]:
        assert count(px, near(colour(n["id"]), 12)) > 60, n["id"]
    with TextLog() as log:
        draw(v)
    initials = [d.text for d in log.drawn if len(d.text) == 1 and d.size == 10.5]
    assert set("RCGEPI") <= set(initials)


def test_the_nation_to_act_is_highlighted() -> None:
    v = crowded()
    other = copy.deepcopy(v)
    other["turn"] = "greeks"
    other["to_act"] = ["p3"]
    a, b = draw(v), draw(other)
    assert pixels(a, WHEEL) != pixels(b, WHEEL)
    gold = near(antiquity.GOLD, 20)
    # the panel of the nation to act is framed in gold
    top = antiquity.PANELS_Y
    right = (antiquity.M + antiquity.PANEL_W + 8, top, antiquity.WIDTH - antiquity.M,
             top + antiquity.PANEL_H)
    assert count(pixels(a, right), gold) > count(pixels(b, right), gold) + 200
    log = logged(v)
    turn = " ".join(d.text for d in log.drawn if d.role == "turn")
    assert "Carthaginians" in turn and "Bartholomew the Bold" in turn
    assert "takes Maneuver I" in turn and "Round 23 / 60" in turn
    assert "Move, fight, found, conquer or abandon; then end." in turn


# --- the panels --------------------------------------------------------------------------


def test_six_panels_in_seat_order() -> None:
    v = crowded()
    log = logged(v)
    text = [d.text for d in log.drawn]
    for n in v["nations"]:
        assert n["name"] in text
        assert NAMES[n["player"]] in text
        assert f"{n['points']}/8" in text
    image = draw(v)
    for i, n in enumerate(v["nations"]):
        x0 = antiquity.M + (i % 2) * (antiquity.PANEL_W + 8)
        y0 = antiquity.PANELS_Y + (i // 2) * (antiquity.PANEL_H + antiquity.PANEL_GAP)
        strip = pixels(image, (x0 + 3, y0 + 20, x0 + 6, y0 + 80))
        assert count(strip, near(colour(n["id"]), 10)) > len(strip) * 0.8, n["id"]
    scores = [d.text for d in log.drawn if d.role == "score"]
    for n in v["nations"]:
        for key in ("marble", "iron", "gold"):
            assert str(n[key]) in scores
    tags = {d.text for d in log.drawn}
    assert {"Wheel", "Roads", "Sail", "Navig", "Curr", "Mon", "Dem"} <= tags
    assert any("K1" in t and "S2" in t for t in tags)


def test_the_outcome_is_shown() -> None:
    v = crowded()
    v.update(turn=None, phase="over", to_act=[], prompt="",
             outcome={"winners": ["p3"], "reason": "The Greeks reached 8 personalities."})
    log = logged(v, [{"type": "victory", "nation": "greeks", "winners": ["p3"],
                      "reason": "target"}])
    turn = [d.text for d in log.drawn if d.role == "turn"]
    assert "Winner: " in turn and "Greeks" in turn and " (Chen)" in turn
    assert "WINNER" in {d.text for d in log.drawn}


# --- the events --------------------------------------------------------------------------


def test_a_turn_is_marked_on_the_map_and_in_words() -> None:
    v = crowded()
    plain = draw(v)
    marked = draw(v, TURN)
    assert pixels(plain, MAP_BOX) != pixels(marked, MAP_BOX)
    # the move from Numidia to Mauretania is an arrow in the Carthaginian colour between them
    gm = antiquity.game_map()
    (ax, ay), (bx, by) = (antiquity._city_xy(gm.provinces[p]) for p in ("numidia", "mauretania"))
    mid = (ax + (bx - ax) * 0.3, ay + (by - ay) * 0.3)  # clear of the count at the middle
    box = (mid[0] - 8, mid[1] - 8, mid[0] + 8, mid[1] + 8)
    arrow = antiquity.lighten(colour("carthaginians"), 0.2)
    assert count(pixels(marked, box), near(arrow, 25)) > count(pixels(plain, box),
                                                               near(arrow, 25)) + 20
    # a red ring round the conquered city
    ring = city_box("sicilia", antiquity.CITY_R + 8)
    red = near(DANGER, 35)
    assert count(pixels(marked, ring), red) > count(pixels(plain, ring), red) + 40
    # the fight: a burst in the sea
    log = logged(v, TURN)
    words = " ".join(d.text for d in log.drawn)
    for phrase in ("Maneuver I (2 steps, free)", "moved 2 legions Cirta → Tingis",
                   "moved 3 galleys Sardoum → Tyrrhenum",
                   "fought the Romans in Tyrrhenum", "founded Kyrene",
                   "conquered Syracusae from the Romans", "gained a King"):
        assert phrase in words, phrase


def test_arming_production_temples_and_know_how_are_marked() -> None:
    v = crowded()
    plain = draw(v)
    log = logged(v, OTHER_TURN)
    marked = draw(v, OTHER_TURN)
    words = " ".join(d.text for d in log.drawn)
    for phrase in ("built a temple in Pella", "produced 3 gold", "+3 gold",
                   "learnt Monarchy (7 gold, first: a Scholar)", "abandoned Salona",
                   "armed 1 legion in Athenai, 2 galleys in Aegaeum", "+2", "+1"):
        assert phrase in words, phrase
    ring = city_box("macedonia", antiquity.CITY_R + 8)
    gold = near(antiquity.GOLD, 30)
    assert count(pixels(marked, ring), gold) > count(pixels(plain, ring), gold) + 40
    # the move on the wheel: an arc outside the wheel
    assert pixels(marked, WHEEL) != pixels(plain, WHEEL)


def test_a_long_turn_keeps_to_its_box() -> None:
    v = crowded()
    log = logged(v, (TURN + OTHER_TURN) * 30)
    assert any(d.text.startswith("… ") and "earlier" in d.text for d in log.drawn)


# --- names and odd input -------------------------------------------------------------------


def test_hostile_names_are_cleaned_and_cut() -> None:
    hostile = {"p1": "A\nB\u202e\u0000" + "W" * 300, "p2": "💥🔥", "p3": "שלום עולם",
               "p4": "Zalgo" + "\u0301" * 50, "p5": "", "p6": "@everyone"}
    v = crowded()
    with TextLog() as log:
        image = draw(v, TURN, hostile)
    assert image.size == (780, antiquity.image_height(6))
    for d in log.drawn:
        assert "\n" not in d.text and "\u0000" not in d.text and "\u202e" not in d.text
        assert "💥" not in d.text
    text = [d.text for d in log.drawn]
    assert "Player 2" in text  # nothing drawable left: the seat's name
    assert "Player 5" in text
    assert any(t.startswith("A BWWW") and t.endswith("…") for t in text)
    # the map and the wheel do not depend on the names
    plain = draw(v, TURN)
    assert pixels(image, MAP_BOX) == pixels(plain, MAP_BOX)
    assert pixels(image, WHEEL) == pixels(plain, WHEEL)


def test_odd_views_and_events_do_not_crash() -> None:
    odd_views: list[Any] = [
        {}, {"kind": "antiquity"}, {"nations": "x", "provinces": 7, "seas": None},
        {"nations": [None, {"id": "vikings", "player": 5, "marble": "lots", "wheel": "moon"},
                     {"id": "romans", "gold": 10**30, "knowhow": "all", "personalities": 3,
                      "points": -5}],
         "provinces": [None, {"id": "atlantis"}, {"id": "latium", "owner": "vikings",
                                                  "legions": {"vikings": "x", "romans": 10**9}}],
         "seas": [{"id": "ionium", "galleys": [1, 2]}, {"id": "latium"}],
         "round": "x", "rounds": -4, "turn": 5, "to_act": "all", "outcome": {},
         "field": "nowhere", "target": None},
        dict(view(6), nations=view(6)["nations"] * 3)]
    for odd in odd_views:
        draw(odd)
    v = crowded()
    odd_events: list[Any] = [
        {"type": "move", "from": "latium", "to": "latium"},
        {"type": "move", "nation": "greeks", "from": "atlantis", "to": "attica"},
        {"type": "move", "nation": 7, "from": "attica", "path": "macedonia"},
        {"type": "go", "field": "moon"}, {"type": "go", "nation": "greeks", "field": "gold",
                                          "from": None, "paid": "x", "steps": "y"},
        {"type": "fight", "region": 9}, {"type": "conquer", "province": "attica"},
        {"type": "arm", "region": "nowhere"}, {"type": "produce", "resource": "wine"},
        {"type": "learn", "knowhow": "writing"}, {"type": "personality", "kind": "hero"},
        {"type": "victory"}, {"type": 7}, None, "x", {"type": "resign", "nation": "romans"}]
    draw(v, odd_events)
    for events in ("not a list", 42, {"type": "move"}):
        draw(v, events)  # type: ignore[arg-type]


def test_missing_optional_fields_still_draw() -> None:
    v = crowded()
    for key in ("outcome", "prompt", "rounds", "target", "field", "temples_left",
                "first_knowhow", "wheel", "to_act"):
        v.pop(key)
    for n in v["nations"]:
        for key in ("personalities", "stones", "knowhow", "wheel"):
            n.pop(key)
    draw(v)
    draw(v, TURN)


# --- phone first -----------------------------------------------------------------------------


@pytest.mark.parametrize("make", [lambda: view(6), crowded])
def test_essential_text_is_readable_on_a_phone_at_six_nations(make: Any) -> None:
    v = make()
    log = logged(v, TURN + OTHER_TURN, fresh=True)
    assert log.width == 780
    smallest = min_essential_size(log.width)
    assert smallest <= antiquity.ESSENTIAL
    roles = set()
    for d in log.drawn:
        if d.role is None:
            continue
        roles.add(d.role)
        assert d.size >= smallest - 1e-9, d
    assert {"turn", "count", "score"} <= roles
    counts = [d for d in log.drawn if d.role == "count"]
    assert len(counts) >= 6 * 3 + 6 * 4  # every home legion and every panel's four counts


# --- names, counters and marks clear of each other (issue 28) -----------------------------


def place_names(log: TextLog) -> list[Any]:
    """The names of the map's places (not the wheel's fields)."""
    return [d for d in log.drawn if d.role == "place" and d.box is not None
            and meet(d.box, MAP_BOX)]


def shrunk(box: Box, by: float = 1.5) -> Box:
    return (box[0] + by, box[1] + by, box[2] - by, box[3] - by)


def disc(pid: str, grow: float = 0) -> Box:
    x, y = antiquity._city_xy(antiquity.game_map().provinces[pid])
    r = antiquity.CITY_R + grow
    return (x - r, y - r, x + r, y + r)


def readable(log: TextLog) -> list[str]:
    """What render.common.overlap finds wrong with a board: text over text, text hidden."""
    return ([f"{a.text} / {b.text}" for a, b in overlapping_texts(log)]
            + [f"{d.text} under {s.kind} {s.box}" for d, s in hidden_texts(log)])


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_every_place_is_named_at_the_phone_minimum_clear_of_cities_and_names(n: int) -> None:
    v = view(n)
    log = logged(v)
    names = place_names(log)
    cities = [pid for pid, p in DATA["provinces"].items() if p["players"] <= n]
    seas = [s for s in DATA["seas"].values() if s["players"] <= n]
    assert sorted(d.text for d in names) == sorted(
        [DATA["provinces"][pid]["city"] for pid in cities] + [sea_label(s["name"]) for s in seas])
    smallest = min_essential_size(log.width)
    assert all(d.size >= smallest for d in names)  # 8 px tall on a phone
    for i, a in enumerate(names):
        assert a.box is not None
        for b in names[i + 1:]:
            assert not meet(shrunk(a.box), shrunk(b.box)), (a.text, b.text)
        for pid in cities:
            assert not meet(shrunk(a.box), disc(pid)), (a.text, pid)
        assert meet(a.box, MAP_BOX) and a.box[0] >= MAP_BOX[0] and a.box[2] <= MAP_BOX[2]
    assert readable(log) == []


@pytest.mark.parametrize(("sea_id", "pid"), [("aegaeum", "attica"), ("ligusticum", "etruria"),
                                             ("tyrrhenum", "campania"), ("carpathium", "cyprus")])
def test_the_seas_named_in_the_issue_stay_off_the_cities_beside_them(sea_id: str,
                                                                      pid: str) -> None:
    # Mare Aegaeum was under Athenai, Ligusticum under Arretium, Tyrrhenum under Capua and
    # Carpathium half hidden by Salamis
    log = logged(crowded(), TURN)
    name = next(d for d in place_names(log) if d.text == sea_label(DATA["seas"][sea_id]["name"]))
    assert name.box is not None
    assert not meet(name.box, disc(pid, grow=3)), (sea_id, pid)


def test_no_arrow_crosses_a_place_name() -> None:
    # galleys through Mare Carpathium (the issue: an arrow crossed its name), and more
    v = crowded()
    sea(v, "aegyptium")["galleys"] = {"egyptians": 3}
    events = [*TURN,
              {"type": "move", "nation": "egyptians", "unit": "galley", "count": 3,
               "from": "aegaeum", "to": "aegyptium", "path": ["carpathium", "aegyptium"]},
              {"type": "move", "nation": "phoenicians", "unit": "legion", "count": 2,
               "from": "cilicia", "to": "phoenicia", "path": ["syria", "phoenicia"]}]
    log = logged(v, events)
    assert readable(log) == []
    names = {d.text for d in place_names(log)}
    assert {"Carpathium", "Salamis", "Tyros"} <= names


def test_six_nations_at_kyrene_keep_their_counters_apart() -> None:
    # the issue: with six nations the counters at Kyrene overlapped each other and the
    # move's count
    v = crowded()
    counts = {"romans": 12, "carthaginians": 3, "greeks": 7, "egyptians": 10, "phoenicians": 1,
              "iberians": 5}
    province(v, "cyrenaica")["legions"] = counts
    province(v, "tripolitania")["legions"] = {"carthaginians": 4, "romans": 11}
    log = logged(v, TURN)
    kyrene = antiquity._city_xy(antiquity.game_map().provinces["cyrenaica"])
    boxes = [counter(log, str(n), kyrene, within=90) for n in counts.values()]
    name = next(d for d in place_names(log) if d.text == "Kyrene")
    assert name.box is not None
    for i, a in enumerate(boxes):
        assert not meet(shrunk(a, 0), disc("cyrenaica")), a
        assert not meet(a, shrunk(name.box)), a
        for b in boxes[i + 1:]:
            assert not meet(a, b), (a, b)
    assert readable(log) == []  # nor the move's count, nor any other label


def test_a_crowded_turn_hides_no_label() -> None:
    v = crowded()
    # three armies in five provinces, four fleets in four seas
    for k, pid in enumerate(("macedonia", "campania", "latium", "attica", "creta")):
        province(v, pid)["legions"] = {nid: 3 + 4 * i for i, nid in enumerate(ORDER[k:k + 3])}
    for k, sid in enumerate(("ionium", "aegaeum", "tyrrhenum", "libycum")):
        sea(v, sid)["galleys"] = {nid: 10 + i for i, nid in enumerate(ORDER[k:k + 4])}
    assert readable(logged(v, TURN)) == []
    assert readable(logged(v, OTHER_TURN)) == []


@pytest.mark.parametrize("n", [2, 3, 4, 5, 6])
def test_regions_not_in_play_are_explained_by_the_legend(n: int) -> None:
    # the issue: grey bars and circles no one could name
    log = logged(view(n), fresh=True)
    text = {d.text for d in log.drawn}
    left_out = any(r["players"] > n for r in [*DATA["provinces"].values(),
                                              *DATA["seas"].values()])
    assert left_out == (n < 6)  # Cyprus joins at 6 players
    assert ("Grey: not in play at this table" in text) == left_out
    if n <= 3:  # and on the grey east itself, where there is room
        assert {"Not in play", f"with {n} nations"} <= text
    assert "Darker sea: deep (Navigation only)" in text


def test_the_prompt_is_drawn_without_discord_markdown() -> None:
    v = view(2, prompt="The Romans place their marker on any field of the wheel, free "
                       "(`go gold`)")
    drawn = [d.text for d in logged(v).drawn if d.role == "turn"]
    assert any("(go gold)" in t for t in drawn)
    assert not any("`" in t for t in drawn)


def test_the_outcome_reason_is_drawn_without_discord_markdown() -> None:
    v = view(2, outcome={"winners": ["p1"], "reason": "**Romans** reached `7` personalities"},
             to_act=[])
    drawn = [d.text for d in logged(v).drawn]
    assert "Romans reached 7 personalities" in drawn
    assert not any("`" in t or "**" in t for t in drawn)


def test_names_are_laid_out_per_table_not_per_view() -> None:
    # an odd view listing some regions only uses its table's layout (a handful in all)
    v = view(4)
    v["provinces"] = v["provinces"][::2]
    v["seas"] = v["seas"][1::3]
    places = frozenset(antiquity._places(v))
    assert antiquity.layout_key(places) == frozenset(antiquity._places(view(4)))
    assert antiquity.layout_key(()) == frozenset(antiquity._places(view(2)))
    log = logged(v, TURN)
    assert sorted(d.text for d in place_names(log)) == sorted(
        antiquity.place_name(antiquity.game_map().region(rid)) for rid in places)
    assert readable(log) == []


# --- the wheel's field names and the last turn, phone first -------------------------------

FIELD_LABELS = {"marble": "Marble", "temple": "Temple", "maneuver1": "Maneuver I",
                "knowhow": "Know-how", "gold": "Gold", "iron": "Iron", "arming": "Arming",
                "maneuver2": "Maneuver II"}
WHEEL_C = antiquity.WHEEL_C


def field_names(log: TextLog) -> list[Any]:
    """The wheel's field names (the place names in the wheel's box)."""
    return [d for d in log.drawn if d.role == "place" and d.box is not None
            and meet(d.box, WHEEL)]


def middle(box: Box) -> tuple[float, float]:
    return (box[0] + box[2]) / 2, (box[1] + box[3]) / 2


def wheel_with(fields: dict[str, str], turn: str = "carthaginians") -> dict[str, Any]:
    """The crowded board with the nations' markers on ``fields`` (nation -> field)."""
    v = crowded()
    for n in v["nations"]:
        n["wheel"] = fields.get(n["id"])
    v["turn"] = turn
    v["field"] = fields.get(turn)
    return v


def test_every_field_is_named_at_the_phone_minimum_in_its_own_field() -> None:
    # the issue: the names were 10.5 px, drawn in the cached background (no test saw them)
    log = logged(view(2), fresh=True)
    names = field_names(log)
    assert sorted(d.text for d in names) == sorted(FIELD_LABELS.values())
    smallest = min_essential_size(log.width)
    for d in names:
        assert d.size >= smallest, d  # 8 px tall on a phone
        assert d.box is not None
        for x in (d.box[0], d.box[2]):
            for y in (d.box[1], d.box[3]):
                assert math.dist((x, y), WHEEL_C) <= antiquity.WHEEL_OUT, d
                assert math.dist((x, y), WHEEL_C) >= antiquity.WHEEL_IN, d
    # each name is in the field its markers go to: nearer its own markers than any other's
    homes = []
    for i in range(8):
        slots = antiquity._marker_slots(i, 6)
        homes.append((sum(x for x, _ in slots) / 6, sum(y for _, y in slots) / 6))
    for i, fid in enumerate(FIELDS):
        d = next(d for d in names if d.text == FIELD_LABELS[fid])
        nearest = min(range(8), key=lambda j: math.dist(middle(d.box), homes[j]))
        assert nearest == i, (fid, FIELDS[nearest])
    assert readable(log) == []


def test_the_field_names_are_where_they_are_drawn() -> None:
    # recorded with the backdrop's names: the wheel's pixels there are the name's ink
    log = logged(view(2))
    image = draw(view(2))
    for d in field_names(log):
        assert d.box is not None
        ink = count(pixels(image, d.box), near((236, 232, 222), 40))  # the names' colour
        assert ink > 0.12 * (d.box[2] - d.box[0]) * (d.box[3] - d.box[1]), d.text


CROWDS = [
    *({nid: fid for nid in ORDER} for fid in FIELDS),  # six on one field, each field
    *({nid: (FIELDS[i] if k < 3 else FIELDS[(i + 1) % 8]) for k, nid in enumerate(ORDER)}
      for i in range(8)),  # three and three on two fields side by side
    *({nid: FIELDS[(i + k % 3) % 8] for k, nid in enumerate(ORDER)}
      for i in range(0, 8, 2)),  # two each on three fields in a row
]


@pytest.mark.parametrize("fields", CROWDS)
def test_no_marker_covers_a_field_name(fields: dict[str, str]) -> None:
    # the issue: markers could sit on the names; now they keep clear of them, the nation to
    # act (ringed in gold) too, with its move's arc and its field outlined in gold
    for turn in ("romans", "iberians"):
        v = wheel_with(fields, turn)
        events = [{"type": "go", "nation": turn, "field": fields[turn],
                   "from": FIELDS[(FIELDS.index(fields[turn]) + 5) % 8], "steps": 3,
                   "paid": {}}]
        log = logged(v, events)
        names = field_names(log)
        assert len(names) == 8
        assert readable(log) == []
        markers = [s for s in log.shapes if s.kind == "ellipse" and meet(s.box, WHEEL)
                   and math.dist(middle(s.box), WHEEL_C) > antiquity.WHEEL_IN]
        assert len(markers) >= 6
        for s in markers:
            for d in names:
                assert not meet(shrunk(d.box, 1), s.box), (d.text, s.box)
        # and so the names' pixels are just as on an empty wheel
        empty = wheel_with({}, turn)
        empty["field"] = None
        image, bare = draw(v, events), draw(empty)
        for d in names:
            assert pixels(image, shrunk(d.box, 1)) == pixels(bare, shrunk(d.box, 1)), d.text


def test_six_markers_fit_beside_every_name() -> None:
    for i in range(8):
        for k in range(1, 7):
            slots = antiquity._marker_slots(i, k)
            assert len(slots) == k
            for a, p in enumerate(slots):
                for q in slots[a + 1:]:
                    assert math.dist(p, q) >= 2 * antiquity.MARKER_R + 2, (i, k)


def log_lines(log: TextLog) -> list[Any]:
    box = antiquity.LOG_BOX
    return [d for d in log.drawn if d.box is not None and meet(d.box, box)
            and d.text != "LAST TURN"]


@pytest.mark.parametrize("events", [TURN, OTHER_TURN, TURN + OTHER_TURN,
                                    (TURN + OTHER_TURN) * 30, None])
def test_the_last_turn_is_at_the_essential_size_and_fits_its_box(events: Any) -> None:
    # the issue: 13 px lines (6.5 px on a phone) with no role
    log = logged(crowded(), events)
    lines = log_lines(log)
    assert lines
    smallest = min_essential_size(log.width)
    box = antiquity.LOG_BOX
    for d in lines:
        assert d.role == "log", d
        assert d.size >= smallest, d
        assert d.box is not None
        assert box[0] < d.box[0] and d.box[2] <= box[2] - 8, d  # wrapped, never past the box
        assert box[1] < d.box[1] and d.box[3] <= box[3] - 4, d
    assert readable(log) == []


def test_the_last_turn_names_its_nation_once_and_wraps_long_lines() -> None:
    log = logged(crowded(), TURN)
    lines = log_lines(log)
    texts = [d.text for d in lines]
    # "Round 23 · Carthaginians to play" heads the turn; its lines do not repeat the name
    assert texts.count("Carthaginians") == 1
    assert "Round 23 · " in texts and " to play" in texts
    words = " ".join(t.strip() for t in texts)
    for phrase in ("→ Maneuver I (2 steps, free)", "moved 2 legions Cirta → Tingis",
                   "conquered Syracusae from the Romans (strength 2)",
                   "gained a King (5 personalities)"):
        assert phrase in words, phrase
    assert not any(t.endswith("…") for t in texts)  # wrapped, not cut
    rows = {round(middle(d.box)[1]) for d in lines if d.box is not None}
    assert len(rows) >= 10  # nine lines, one of them wrapped
    # a long turn shows its latest lines, after how many are left out, the name again
    # where its heading is left out
    log = logged(crowded(), (TURN + OTHER_TURN) * 30)
    texts = [d.text for d in log_lines(log)]
    assert texts[0].startswith("… ") and texts[0].endswith(" earlier")
    assert "armed" in " ".join(texts[-3:])
    heading = texts.index(" to play")
    assert "Carthaginians" in texts[1:heading]  # its heading scrolled off: named


def test_the_image_keeps_a_sensible_shape() -> None:
    for n in (2, 6):
        assert antiquity.image_height(n) / antiquity.WIDTH < 1.85
