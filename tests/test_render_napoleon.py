"""render/napoleon.py: the Napoleonic Wars board, from views built here by hand following
the engine's view contract (the engine is not imported), and the map it draws."""

from __future__ import annotations

import copy
import io
import itertools
import math
import tomllib
from typing import Any

import pytest
from PIL import Image, ImageDraw

import render
from render import napoleon
from render.common import DANGER, TextLog, min_essential_size
from tests.boards import same_picture

F, A = "111", "222"
NAMES = {F: "Alice", A: "Bob"}
MAP = tomllib.loads(napoleon.MAP_FILE.read_text(encoding="utf-8"))["countries"]
SETUP = {"france": (20, 0), "rhineland": (4, 0), "holland": (2, 0), "denmark": (2, 0),
         "spain": (2, 0), "portugal": (2, 0), "italy": (2, 0), "naples": (2, 0),
         "switzerland": (2, 0), "egypt": (2, 0), "england": (0, 10), "russia": (0, 10),
         "austria": (0, 10), "prussia": (0, 10)}
BLUE, RED = napoleon.SIDE_COLOURS["french"], napoleon.SIDE_COLOURS["allies"]


def card(cid: str, name: str, side: str = "french", country: str | None = None,
         bonus: int = 2) -> dict[str, Any]:
    return {"id": cid, "name": name, "side": side, "country": country, "bonus": bonus,
            "kind": "battle" if country else "general", "text": f"{name}: +{bonus}."}


def view(armies: dict[str, tuple[int, int]] | None = None, **kw: Any) -> dict[str, Any]:
    """A view as the engine makes it: control and contested follow the armies."""
    armies = SETUP if armies is None else armies
    countries = []
    for cid, c in MAP.items():
        f, a = armies.get(cid, (0, 0))
        countries.append({"id": cid, "name": c["name"], "reinforcement": c["reinforcement"],
                          "coastal": c["coastal"], "french": f, "allies": a,
                          "control": "french" if f and not a else "allies" if a and not f
                          else None, "contested": bool(f and a), "moved": 0})
    scores = {s: sum(MAP[c["id"]]["reinforcement"] for c in countries if c["control"] == s)
              for s in ("french", "allies")}
    v: dict[str, Any] = {
        "kind": "napoleon", "viewer": None, "round": 1, "rounds": 20, "turn": "french",
        "phase": "move", "to_act": [F],
        "prompt": "Move armies, play a Forced March, or end the move phase.",
        "players": [{"id": F, "side": "french", "hand_count": 2},
                    {"id": A, "side": "allies", "hand_count": 0}],
        "countries": countries, "pool": {"french": 54, "allies": 40}, "deck_count": 38,
        "discard_count": 0, "battle": None, "battles_left": [], "outcome": None,
        "scores": scores}
    v.update(kw)
    return v


MIDGAME = dict(SETUP, austria=(12, 10), italy=(4, 0), switzerland=(0, 0), rhineland=(3, 0),
               warsaw=(5, 0), spain=(2, 3), england=(0, 7), france=(16, 0))


def battle_view() -> dict[str, Any]:
    """Round 7: the French attack Austria; they played Austerlitz, the Allies choose cards."""
    v = view(MIDGAME, round=7, phase="cards", to_act=[A],
             prompt="Allies: play a card for Austria or a general card, or ready.")
    v["battle"] = {"country": "austria", "attacker": "french", "defender": "allies",
                   "armies": {"french": 12, "allies": 10},
                   "cards": [card("austerlitz", "Austerlitz", country="austria")],
                   "step": "defender"}
    v["battles_left"] = ["austria", "spain"]
    v["players"][0]["hand_count"] = 4
    v["players"][1]["hand_count"] = 5
    return v


def over_view() -> dict[str, Any]:
    v = view(dict(SETUP, russia=(9, 0), austria=(6, 0), prussia=(4, 0)), round=12,
             turn=None, phase="over", to_act=[], prompt="",
             outcome={"winners": [F], "reason": "The French hold Russia, Austria and "
                                                 "Prussia at the end of their turn."})
    return v


MOVES = [
    {"type": "move", "side": "french", "player": F, "count": 4, "from": "switzerland",
     "to": "austria"},
    {"type": "move", "side": "french", "player": F, "count": 8, "from": "rhineland",
     "to": "austria"},
    {"type": "move", "side": "french", "player": F, "count": 5, "from": "rhineland",
     "to": "warsaw"},
]
BATTLE = {"type": "battle", "country": "spain", "attacker": "french", "defender": "allies",
          "armies": {"french": 4, "allies": 3},
          "cards": {"french": [], "allies": ["spanish-ulcer"]},
          "bonus": {"french": 0, "allies": 2}, "dice": {"french": 3, "allies": 5},
          "force": {"french": 7, "allies": 11}, "winner": "allies", "loser": "french",
          "casualty_dice": {"winner": [2], "loser": [3, 4]},
          "losses": {"french": 2, "allies": 0}, "capped": False}
TURN = [*MOVES, BATTLE,
        {"type": "retreat", "side": "french", "from": "spain", "to": "portugal", "count": 2},
        {"type": "reinforce", "side": "french", "placed": {"france": 4, "italy": 1},
         "lost": 0}]
SEA_MOVES = [
    {"type": "move", "side": "allies", "player": A, "count": 3, "from": "england",
     "to": "naples"},
    {"type": "reinforce", "side": "allies", "placed": {"england": 3, "russia": 3}, "lost": 2},
    {"type": "destroyed", "side": "french", "country": "egypt", "count": 2},
]


def decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image


def draw(v: dict[str, Any], events: list[dict[str, Any]] | None = None,
         names: dict[str, str] | None = None) -> Image.Image:
    return decode(render.render("napoleon", v, events, names)).convert("RGB")


Pixel = tuple[int, int, int]


def pixels(image: Image.Image, box: tuple[float, float, float, float]) -> list[Pixel]:
    x0, y0, x1, y1 = (round(v) for v in box)
    raw = image.crop((x0, y0, x1, y1)).tobytes()
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


def inside(image: Image.Image, cid: str) -> list[Pixel]:
    """A country's pixels well inside its border and away from its label and counters."""
    mask, (ox, oy) = napoleon._interior(cid)
    ax, ay = napoleon.countries()[cid].at
    out = []
    rgb = image.load()
    assert rgb is not None
    m = mask.load()
    assert m is not None
    for y in range(0, mask.height, 2):
        for x in range(0, mask.width, 2):
            px, py = ox + x, oy + y
            if m[x, y] == 255 and not (abs(px - ax) < 75 and -40 < py - ay < 50):
                out.append(rgb[px, py])
    assert len(out) > 40, cid
    return out  # type: ignore[return-value]


def mean(px: list[Pixel]) -> tuple[float, float, float]:
    n = len(px)
    return (sum(p[0] for p in px) / n, sum(p[1] for p in px) / n, sum(p[2] for p in px) / n)


def bluish(px: list[Pixel]) -> float:
    r, _, b = mean(px)
    return b - r


def near(colour: Pixel, tolerance: int = 40) -> Any:
    def test(p: Pixel) -> bool:
        return all(abs(a - b) <= tolerance for a, b in zip(p, colour, strict=True))
    return test


def count(px: list[Pixel], test: Any) -> int:
    return sum(1 for p in px if test(p))


def token_box(cid: str, side: str | None = None, v: dict[str, Any] | None = None,
              ) -> tuple[float, float, float, float]:
    x, y = napoleon.countries()[cid].at
    y += 15
    r = napoleon.TOKEN_R + 2
    return (x - 2 * r - 8, y - r, x + 2 * r + 8, y + r)


PANEL = (0, 0, napoleon.WIDTH, napoleon.MAP_Y - 4)
BOTTOM = (0, napoleon.BOTTOM_Y, napoleon.WIDTH, napoleon.HEIGHT)


# --- the map ---------------------------------------------------------------------------


def test_the_drawn_shapes_touch_exactly_where_the_rules_have_land_borders() -> None:
    borders = {frozenset((a, b)) for a, c in MAP.items() for b in c["borders"]}
    assert napoleon.land_borders() == borders
    # and every border is listed on both sides
    for a, c in MAP.items():
        for b in c["borders"]:
            assert a in MAP[b]["borders"], (a, b)


def distance(p: tuple[float, float], a: tuple[float, float], b: tuple[float, float]) -> float:
    """From point ``p`` to the segment ``a``-``b``."""
    (px, py), (ax, ay), (bx, by) = p, a, b
    t = max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay))
                     / max(1e-9, (bx - ax) ** 2 + (by - ay) ** 2)))
    return math.hypot(px - ax - t * (bx - ax), py - ay - t * (by - ay))


def test_landlocked_countries_have_no_shore_and_coastal_ones_have_a_port() -> None:
    owners: dict[frozenset[tuple[float, float]], list[str]] = {}
    land = napoleon.countries()
    for cid, c in land.items():
        for a, b in napoleon._edges(c.shape):
            owners.setdefault(frozenset((a, b)), []).append(cid)
    for cid, c in land.items():
        shore = [(a, b) for a, b in napoleon._edges(c.shape)
                 if len(owners[frozenset((a, b))]) == 1]
        assert bool(shore) == MAP[cid]["coastal"], cid
        if cid == "england":
            assert not c.lane  # the lanes start there
            continue
        assert bool(c.lane) == MAP[cid]["coastal"], cid
        if c.lane:  # the lane ends on this country's own shore
            port = c.lane[-1]
            assert min(distance(port, a, b) for a, b in shore) < 1, cid


def test_shapes_do_not_overlap_and_labels_sit_inside() -> None:
    land = napoleon.countries()
    size = (napoleon.WIDTH, napoleon.HEIGHT)
    masks = {}
    for cid, c in land.items():
        m = Image.new("1", size, 0)
        ImageDraw.Draw(m).polygon(c.shape, fill=1)
        masks[cid] = m
        x, y = c.at
        assert m.getpixel((round(x), round(y))), f"{cid}'s label is outside its shape"
        assert napoleon.MAP_X <= x <= napoleon.MAP_X + napoleon.MAP_SIZE
        assert napoleon.MAP_Y <= y <= napoleon.MAP_Y + napoleon.MAP_SIZE
    for a, b in itertools.combinations(land, 2):
        both = Image.new("1", size, 0)
        both.paste(masks[a], (0, 0), masks[b])
        overlap = both.histogram()[255]
        # they share at most the pixels of their common border line (and a corner)
        shared = {frozenset(e) for e in napoleon._edges(land[a].shape)} & \
            {frozenset(e) for e in napoleon._edges(land[b].shape)}
        length = sum(math.dist(*tuple(e)) for e in shared)
        assert overlap <= 3 * length + 6, (a, b, overlap)


# --- contract --------------------------------------------------------------------------


@pytest.mark.parametrize("make", [view, battle_view, over_view])
def test_renders_a_palette_png_of_the_expected_size(make: Any) -> None:
    png = render.render("napoleon", make(), TURN, NAMES)
    image = decode(png)
    assert image.size == (napoleon.WIDTH, napoleon.HEIGHT) == (800, 1186)
    assert image.mode == "P"
    assert len(png) <= 150_000


def test_dispatch_goes_through_the_kind_module() -> None:
    v = battle_view()
    assert same_picture(render.render("napoleon", v, TURN, NAMES), napoleon.render(v, TURN, NAMES))
    assert render.render("napoleon", v, [], NAMES) == napoleon.render(v, None, NAMES)


@pytest.mark.parametrize("make", [view, battle_view, over_view])
def test_render_never_mutates_the_view_events_or_names(make: Any) -> None:
    v = make()
    events = copy.deepcopy(TURN + SEA_MOVES)
    names = dict(NAMES)
    before = copy.deepcopy((v, events, names))
    render.render("napoleon", v, events, names)
    assert (v, events, names) == before


# --- what the map shows ------------------------------------------------------------------


def test_army_counts_are_drawn() -> None:
    a = draw(view())
    more = dict(SETUP, spain=(7, 0))
    b = draw(view(more))
    assert pixels(a, token_box("spain")) != pixels(b, token_box("spain"))
    # only Spain's counter (and the totals under the map) changed on the map
    assert pixels(a, token_box("portugal")) == pixels(b, token_box("portugal"))
    # an empty country shows no counter
    empty = draw(view(dict(SETUP, spain=(0, 0))))
    assert count(pixels(empty, token_box("spain")), near(BLUE, 30)) < 20
    assert count(pixels(a, token_box("spain")), near(BLUE, 30)) > 300


def test_counts_are_drawn_in_each_sides_colour_both_where_contested() -> None:
    image = draw(view(dict(SETUP, austria=(12, 10))))
    box = token_box("austria")
    assert count(pixels(image, box), near(BLUE, 30)) > 250
    assert count(pixels(image, box), near(RED, 30)) > 250
    alone = draw(view())
    assert count(pixels(alone, box), near(BLUE, 30)) < 20


def test_control_tints_a_country_in_its_controllers_colour() -> None:
    french = draw(view(dict(SETUP, warsaw=(3, 0))))
    allied = draw(view(dict(SETUP, warsaw=(0, 3))))
    empty = draw(view())
    assert bluish(inside(french, "warsaw")) > bluish(inside(empty, "warsaw")) + 25
    assert bluish(inside(allied, "warsaw")) < bluish(inside(empty, "warsaw")) - 25
    # the engine's control field decides, not the counters alone
    v = view(dict(SETUP, warsaw=(3, 0)))
    next(c for c in v["countries"] if c["id"] == "warsaw")["control"] = None
    assert mean(inside(draw(v), "warsaw")) == pytest.approx(mean(inside(empty, "warsaw")),
                                                            abs=1)


def test_contested_countries_are_striped_in_both_colours() -> None:
    image = draw(view(dict(SETUP, austria=(12, 10))))
    px = inside(image, "austria")
    blueish = count(px, lambda p: p[2] > p[0] + 40)
    reddish = count(px, lambda p: p[0] > p[2] + 40)
    assert blueish > len(px) // 5 and reddish > len(px) // 5


def test_the_current_battle_is_framed_and_its_cards_shown() -> None:
    v = battle_view()
    framed = draw(v)
    quiet = copy.deepcopy(v)
    quiet["battle"] = None
    plain = draw(quiet)
    gold = near(napoleon.GOLD, 35)
    mask, (ox, oy) = napoleon._interior("austria")
    box = (ox, oy, ox + mask.width, oy + mask.height)
    assert count(pixels(framed, box), gold) > count(pixels(plain, box), gold) + 300
    with TextLog() as log:
        render.render("napoleon", v, None, NAMES)
    text = " ".join(d.text for d in log.drawn)
    assert "Austerlitz" in text and "Battle of Austria" in text


def test_a_battle_event_is_drawn_with_its_forces() -> None:
    v = view(MIDGAME, round=7)
    with TextLog() as log:
        fought = draw(v, [BATTLE])
    plain = draw(v)
    assert pixels(fought, BOTTOM) != pixels(plain, BOTTOM)
    mask, (ox, oy) = napoleon._interior("spain")
    box = (ox, oy, ox + mask.width, oy + mask.height)
    red = near(DANGER, 30)
    assert count(pixels(fought, box), red) > count(pixels(plain, box), red) + 200
    lines = [d for d in log.drawn if d.role == "turn"]
    joined = " ".join(d.text for d in lines)
    assert "4+3=7" in joined and "3+2+1+5=11" in joined and "Allies win" in joined
    # the cards played face up in it are named
    played = {"type": "card", "side": "allies", "player": A, "country": "spain",
              "card": card("spanish-ulcer", "Spanish Ulcer", "allies", "spain"),
              "hand_count": 3}
    with TextLog() as log:
        draw(v, [played, BATTLE])
    assert any("Spanish Ulcer +2" in d.text for d in log.drawn)
    assert all(d.size >= min_essential_size(napoleon.WIDTH) for d in lines)


def test_moves_are_numbered_arrows_in_the_movers_colour() -> None:
    v = view(MIDGAME, round=7)
    moved = draw(v, MOVES)
    plain = draw(v)
    # the arrow from Rhineland to Warsaw crosses Prussia's south
    rx, ry = napoleon.countries()["rhineland"].at
    wx, wy = napoleon.countries()["warsaw"].at
    mid = ((rx + wx) / 2, (ry + wy) / 2 + 15)
    box = (mid[0] - 60, mid[1] - 14, mid[0] + 60, mid[1] + 14)
    arrow = lambda p: p[2] > 200 and p[0] < 150  # noqa: E731 - the lightened French blue
    assert count(pixels(moved, box), arrow) > count(pixels(plain, box), arrow) + 60
    with TextLog() as log:
        draw(v, MOVES)
    order = [d.text for d in log.drawn if d.size == napoleon.ORDER_TEXT]
    assert order == ["1", "2", "3"]
    assert {"4", "8", "5"} <= {d.text for d in log.drawn}  # how many moved
    with TextLog() as log:
        draw(v, MOVES[:1])
    assert not [d for d in log.drawn if d.size == napoleon.ORDER_TEXT]  # one move: no number


def test_sea_moves_reinforcements_and_losses_are_marked() -> None:
    v = view(MIDGAME, round=7, turn="allies", to_act=[A])
    with TextLog() as log:
        marked = draw(v, SEA_MOVES)
    plain = draw(v)
    assert marked.tobytes() != plain.tobytes()
    drawn = [d.text for d in log.drawn]
    assert "+3" in drawn and "✕ 2" in drawn
    assert any("2 lost" in t for t in drawn)


# --- the header ------------------------------------------------------------------------------


def test_header_shows_round_turn_hands_scores_pools_deck() -> None:
    v = battle_view()
    with TextLog() as log:
        render.render("napoleon", v, None, NAMES)
    by_role: dict[str | None, list[str]] = {}
    for d in log.drawn:
        by_role.setdefault(d.role, []).append(d.text)
    assert "Round 7 / 20" in by_role["turn"]
    assert any("Bob" in t for t in by_role["turn"])  # the defender must act now
    assert {"4", "5"} <= set(by_role["hand"])
    scores = v["scores"]
    assert {str(scores["french"]), str(scores["allies"]), "54", "40"} <= set(by_role["score"])
    assert any("Deck 38" in t for t in by_role[None])
    smallest = min_essential_size(napoleon.WIDTH)
    for d in log.drawn:
        if d.role is not None:
            assert d.size >= smallest, d
    # every country's name is drawn, readable on a phone
    counted = set(by_role["place"])
    assert {c["name"] for c in MAP.values()} <= counted


def test_the_round_turn_and_hands_change_the_header() -> None:
    a = draw(view())
    b = draw(view(round=2))
    c = draw(view(turn="allies", to_act=[A]))
    v = view()
    v["players"][1]["hand_count"] = 6
    d = draw(v)
    assert len({tuple(pixels(x, PANEL)) for x in (a, b, c, d)}) == 4


def test_hidden_hands_are_never_drawn() -> None:
    v = battle_view()
    secret = copy.deepcopy(v)
    secret["viewer"] = F
    secret["players"][0]["hand"] = [card("zzsecret", "Zephyr Gambit", bonus=3),
                                    card("xxhidden", "Quixotic Ploy", "french", "spain")]
    secret["players"][1]["hand"] = [card("yyhidden", "Juxtaposed Vow", "allies")]
    events = [*TURN, {"type": "drawn", "private_to": F, "cards": secret["players"][0]["hand"]},
              {"type": "discarded", "private_to": A, "card": card("k", "Kept Quiet")}]
    plain_v = copy.deepcopy(v)
    plain_v["viewer"] = F
    assert render.render("napoleon", secret, events, NAMES) == \
        render.render("napoleon", plain_v, TURN, NAMES)
    with TextLog() as log:
        render.render("napoleon", secret, events, NAMES)
    text = " ".join(d.text for d in log.drawn)
    for word in ("Zephyr", "Quixotic", "Juxtaposed", "Kept Quiet"):
        assert word not in text


HOSTILE = ["🔥🐉👑" * 5, "x" * 500, "שלום עליכם", "مرحبا بالعالم", "", "   ", "\n\t\r",
           "a\u0301\u0301\u0301\u0301" * 40, "\u202eevil\u202c", "W" * 60, "\x00\x07bell",
           "中文名字很长很长很长很长很长很长很长很长", "Napoléon Bonaparte, Empereur des Français"]


@pytest.mark.parametrize("name", HOSTILE)
def test_unicode_and_long_names_do_not_crash(name: str) -> None:
    for v in (view(), battle_view(), over_view()):
        assert draw(v, TURN, {F: name, A: name}).size == (napoleon.WIDTH, napoleon.HEIGHT)


def test_long_names_stay_inside_their_card() -> None:
    long = draw(view(), None, {F: "W" * 80, A: "W" * 80})
    short = draw(view(), None, {F: "W", A: "W"})
    # the gap between the two side cards, their right edges and the map are untouched
    mid = napoleon.MAP_X + napoleon.MAP_SIZE / 2
    assert pixels(long, (mid - 3, 46, mid + 3, 122)) == pixels(short, (mid - 3, 46, mid + 3, 122))
    right = napoleon.MAP_X + napoleon.MAP_SIZE
    assert pixels(long, (right - 12, 46, napoleon.WIDTH, 190)) == \
        pixels(short, (right - 12, 46, napoleon.WIDTH, 190))  # the status line is cut too
    assert pixels(long, (0, 190, napoleon.WIDTH, napoleon.HEIGHT)) == \
        pixels(short, (0, 190, napoleon.WIDTH, napoleon.HEIGHT))


def test_the_outcome_is_shown() -> None:
    with TextLog() as log:
        image = draw(over_view(), None, NAMES)
    assert image.size == (napoleon.WIDTH, napoleon.HEIGHT)
    turn = [d.text for d in log.drawn if d.role == "turn"]
    assert any("Winner" in t and "Alice" in t for t in turn)
    assert any(d.text == "WINNER" for d in log.drawn)


# --- odd views ----------------------------------------------------------------------------------


def test_missing_optional_fields_still_draw() -> None:
    v = view()
    for key in ("battle", "battles_left", "outcome", "prompt", "rounds", "pool", "scores",
                "deck_count", "discard_count"):
        v.pop(key)
    draw(v)
    draw(v, [])
    v = over_view()
    v.pop("battle")
    draw(v, None)


def test_odd_views_and_events_do_not_crash() -> None:
    odd_views: list[dict[str, Any]] = [
        {}, {"kind": "napoleon"}, {"countries": "x", "players": 7, "battle": "now"},
        {"countries": [None, {"id": "atlantis", "french": 3}, {"id": "spain", "french": "x"}],
         "players": [None, {"id": 5, "side": "martians", "hand_count": "lots"}],
         "battle": {"country": "mars", "cards": [None, {"name": 7}]},
         "round": "x", "rounds": -4, "turn": 5, "to_act": "all", "outcome": {}}]
    for odd_view in odd_views:
        draw(odd_view)
    v = battle_view()
    v["battle"]["cards"] = [None, "card", {"side": "both", "bonus": "big"}]
    v["battle"]["retreats"] = ["nowhere", 3]
    v["battle"]["step"] = "retreat"
    odd: list[Any] = [{"type": "move", "from": "france", "to": "france"},
           {"type": "move", "side": "french", "from": "atlantis", "to": "spain"},
           {"type": "battle", "country": "spain", "armies": "x", "force": None},
           {"type": "reinforce", "side": "french", "placed": {"spain": "x", "nowhere": 3}},
           {"type": "reinforce", "side": "vikings", "placed": {"spain": 2}},
           {"type": "destroyed", "country": 9}, {"type": "march"}, {"type": 7}, None, "x"]
    draw(v, odd)
    draw(v, TURN * 80)  # a long digest
    for events in ("not a list", 42, {"type": "move"}):
        draw(v, events)  # type: ignore[arg-type]


def test_losses_and_the_totals_on_the_map_are_readable_on_a_phone() -> None:
    # a crowded turn: a battle being fought with a card played, another still to fight,
    # and a battle just fought; the last battle's losses and the armies and countries each
    # side holds are still shown, each with its role at the phone size, inside the panel
    v = battle_view()
    smallest = min_essential_size(napoleon.WIDTH)
    with TextLog() as log:
        draw(v, TURN)
    below = [d for d in log.drawn if d.box is not None and d.box[1] >= napoleon.BOTTOM_Y]
    assert all(d.box is not None and d.box[0] >= napoleon.MAP_X and
               d.box[2] <= napoleon.MAP_X + napoleon.MAP_SIZE and
               d.box[3] <= napoleon.HEIGHT - 10 for d in below)

    def line(start: str) -> list[Any]:
        first = next(i for i, d in enumerate(below) if d.text.startswith(start))
        return [d for d in below if d.box is not None and below[first].box is not None
                and abs(d.box[1] - below[first].box[1]) < 6]

    losses = line("Spain losses")
    joined = "".join(d.text for d in losses)
    assert "Spain losses:" in joined and "French 2" in joined and "Allies 0" in joined
    assert all(d.role == "log" and d.size >= smallest for d in losses)
    totals = line("On the map")
    joined = "".join(d.text for d in totals)
    assert "French" in joined and "Allies" in joined and "armies" in joined
    assert all(d.role == "count" and d.size >= smallest for d in totals)
    # nothing small carries what a move is chosen from: only the key to the forces
    small = [d.text for d in below if d.size < smallest]
    assert small in ([], ["force = armies + cards + 1 defending + die"])
