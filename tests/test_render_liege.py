"""render/liege.py: the Liège board image, from views built here by hand following
docs/games/liege-interface.md (the engine is not imported)."""

from __future__ import annotations

import copy
import io
from typing import Any

import pytest
from PIL import Image

import render
from render import liege
from render.common import TextLog, min_essential_size
from tests.boards import same_picture

A, B, C, D = "111", "222", "333", "444"
SIDES = {A: "south", B: "north", C: "west", D: "east"}
PRICES = {"rifle": 20, "mg": 130, "mortar": 160, "av": 210, "trench": 40,
          "grenade": 80, "missile": 30, "gas": 40}
LEFT = {"trench": 3, "grenade": 3, "missile": 2, "gas": 2}


def highlights(side: str, size: int = 10) -> list[str]:
    files = "abcdefghij"[:size]
    lo, hi = files[size // 2 - 1], files[size // 2]
    return {"south": [f"{lo}1", f"{hi}1"], "north": [f"{lo}{size}", f"{hi}{size}"],
            "west": [f"a{size // 2}", f"a{size // 2 + 1}"],
            "east": [f"{files[-1]}{size // 2}", f"{files[-1]}{size // 2 + 1}"]}[side]


def player(pid: str, seat: int, size: int = 10, **kw: Any) -> dict[str, Any]:
    p: dict[str, Any] = {"id": pid, "seat": seat, "side": SIDES[pid], "credits": 400,
                         "lives": 3, "out": False, "general": None, "in_vehicle": False,
                         "in_trench": False, "highlights": highlights(SIDES[pid], size),
                         "prices": dict(PRICES), "left": dict(LEFT)}
    p.update(kw)
    return p


def piece(square: str, type_: str, owner: str | None, **kw: Any) -> dict[str, Any]:
    p: dict[str, Any] = {"square": square, "type": type_, "owner": owner,
                         "facing": None, "damaged": False, "general_inside": None,
                         "fought": False, "new": False}
    p.update(kw)
    return p


def base_view(ids: tuple[str, ...] = (A, B), size: int = 10) -> dict[str, Any]:
    return {"kind": "liege", "viewer": None, "size": size, "round": 1, "turn": ids[0],
            "to_act": [ids[0]], "phase": "setup",
            "players": [player(pid, i + 1, size) for i, pid in enumerate(ids)],
            "pieces": [], "damage_tokens_left": 5, "last_fight": None, "blast": None,
            "selected": None, "last_move": None, "outcome": None}


def opening_view(size: int = 10) -> dict[str, Any]:
    """Both Generals just placed on a highlighted square; South to move them."""
    view = base_view((A, B), size)
    north = highlights("north", size)[1]
    view["players"][0]["general"] = highlights("south", size)[0]
    view["players"][1]["general"] = north
    view.update(phase="general", last_move={"player": B, "action": f"general {north}",
                                            "from": None, "to": north})
    return view


def crowded_view() -> dict[str, Any]:
    """Round 9, four players, every piece type, Generals in a trench and in a vehicle,
    damaged pieces, a selected range, a blast and the last fight; B chooses a casualty."""
    view = base_view((A, B, C, D))
    pa, pb, pc, pd = view["players"]
    pa.update(credits=135, lives=2, general="e3", in_vehicle=True,
              left={"trench": 1, "grenade": 2, "missile": 0, "gas": 1},
              prices=dict(PRICES, missile=70, gas=80))
    pb.update(credits=20, lives=1, general="f8", in_trench=True,
              left={"trench": 0, "grenade": 3, "missile": 2, "gas": 2})
    pc.update(credits=310, lives=3, general="b6",
              left={"trench": 2, "grenade": 0, "missile": 1, "gas": 0},
              prices=dict(PRICES, missile=50, gas=60))
    pd.update(credits=0, lives=3, general="i5")
    view["pieces"] = [
        piece("e3", "av", A, general_inside=A),
        piece("d4", "rifle", A, fought=True),
        piece("e4", "mg", A, facing="n", fought=True),
        piece("f4", "mortar", A, facing="n", damaged=True),
        piece("c3", "rifle", A, new=True),
        piece("g3", "trench", None),
        piece("f8", "trench", None, general_inside=B),
        piece("e6", "rifle", B, damaged=True),
        piece("f6", "mg", B, facing="s", damaged=True),
        piece("g7", "mortar", B, facing="w"),
        piece("d7", "av", B),
        piece("b5", "rifle", C),
        piece("c6", "mg", C, facing="e"),
        piece("b7", "mortar", C, facing="e", new=True),
        piece("h5", "mg", D, facing="w"),
        piece("h6", "rifle", D),
        piece("i7", "av", D, fought=True),
        piece("c8", "trench", None),
    ]
    view.update(round=9, turn=A, to_act=[B], phase="casualty", damage_tokens_left=2,
                last_fight={"attacker": A, "defender": B, "from": "e4", "to": "e6",
                            "attackers": ["e4", "d4"], "defenders": ["e6", "f6"],
                            "winner": "attacker"},
                blast={"kind": "gas", "target": "h8", "squares": [
                    "g7", "h7", "i7", "g8", "h8", "i8", "g9", "h9", "i9"]},
                selected={"square": "e4", "range": ["d5", "e5", "f5", "d6", "e6", "f6",
                                                    "d4", "f4"]},
                last_move={"player": A, "action": "attack e4 e6", "from": "e4", "to": "e6"})
    return view


def over_view() -> dict[str, Any]:
    view = crowded_view()
    view["players"][1].update(out=True, lives=0, general=None, in_trench=False)
    view["players"][3].update(out=True, lives=0, general=None)
    view["pieces"] = [p for p in view["pieces"] if p["owner"] not in (B, D)]
    for p in view["pieces"]:
        p["general_inside"] = A if p["square"] == "e3" else None
    view.update(turn=None, to_act=[], phase="over", last_fight=None, blast=None,
                selected=None,
                outcome={"winners": [A], "standings": [A, C, B, D],
                         "reason": "Player 1's General reached the far edge and held it "
                                   "for a round."})
    return view


def quiet_view() -> dict[str, Any]:
    """The crowded position without any overlay (no fight, blast, selection or move)."""
    view = crowded_view()
    view.update(last_fight=None, blast=None, selected=None, last_move=None)
    return view


NAMES = {A: "Alice", B: "Bob", C: "Chen", D: "Dmitri"}
RED, BLUE, GREEN, AMBER = (220, 72, 72), (66, 133, 230), (62, 176, 98), (232, 170, 40)


def decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image.convert("RGB")


def draw(view: dict[str, Any], names: dict[str, str] | None = None) -> Image.Image:
    return decode(render.render("liege", view, None, names))


Pixel = tuple[int, int, int]


def pixels(image: Image.Image, box: tuple[float, float, float, float]) -> list[Pixel]:
    x0, y0, x1, y1 = (round(v) for v in box)
    raw = image.crop((x0, y0, x1, y1)).tobytes()
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


def cell(image: Image.Image, name: str, size: int = 10) -> list[Pixel]:
    box = liege._Board(size).box(name)
    assert box is not None
    return pixels(image, box)


def panel(image: Image.Image) -> list[Pixel]:
    return pixels(image, (liege.PANEL_X0, 0, liege.WIDTH, liege.HEIGHT))


def near(colour: Pixel, tolerance: int = 30) -> Any:
    def test(p: Pixel) -> bool:
        return all(abs(a - b) <= tolerance for a, b in zip(p, colour, strict=True))
    return test


def count(image_pixels: list[Pixel], test: Any) -> int:
    return sum(1 for p in image_pixels if test(p))


def is_red(p: Pixel) -> bool:
    return p[0] > 180 and p[1] < 100 and p[2] < 100


def is_whitish(p: Pixel) -> bool:
    return min(p) > 215


def is_gold(p: Pixel) -> bool:
    return p[0] > 220 and 170 < p[1] < 225 and p[2] < 110


def mean(px: list[Pixel]) -> tuple[float, float, float]:
    n = len(px)
    return (sum(p[0] for p in px) / n, sum(p[1] for p in px) / n, sum(p[2] for p in px) / n)


# --- contract ------------------------------------------------------------------------------


@pytest.mark.parametrize("size", [10, 8])
def test_renders_a_png_of_the_expected_size(size: int) -> None:
    image = draw(opening_view(size))
    assert image.size == (liege.WIDTH, liege.HEIGHT)
    assert 1000 <= image.size[0] <= 1100


def test_crowded_position_renders_small_enough() -> None:
    png = render.render("liege", crowded_view(), None, NAMES)
    assert decode(png).size == (liege.WIDTH, liege.HEIGHT)
    assert len(png) < 250_000


def test_over_position_renders_and_its_panel_differs() -> None:
    running = draw(crowded_view())
    over = draw(over_view())
    assert over.size == (liege.WIDTH, liege.HEIGHT)
    assert panel(over) != panel(running)
    # the winner's card carries a gold WINNER badge
    name_row = (liege.PANEL_X0, liege.CARDS_TOP, liege.PANEL_X1, liege.CARDS_TOP + 31)
    assert count(pixels(over, name_row), is_gold) > count(pixels(running, name_row), is_gold) + 50


def test_dispatch_goes_through_the_kind_module() -> None:
    view = crowded_view()
    assert same_picture(render.render("liege", view, [], NAMES), liege.render(view, None, NAMES))


@pytest.mark.parametrize("make", [opening_view, crowded_view, over_view])
def test_render_never_mutates_the_view_events_or_names(make: Any) -> None:
    view = make()
    events = [{"type": "fight", "attacker": A, "defender": B, "from": "e4", "to": "e6"}]
    names = dict(NAMES)
    before = copy.deepcopy((view, events, names))
    render.render("liege", view, events, names)
    assert (view, events, names) == before


HOSTILE = ["🔥🐉👑" * 5, "x" * 500, "שלום עליכם", "مرحبا بالعالم", "", "   ", "\n\t\r",
           "a\u0301\u0301\u0301\u0301" * 40, "\u202eevil\u202c", "W" * 60, "\x00\x07bell",
           "中文名字很长很长很长很长很长很长很长很长"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_do_not_crash(name: str) -> None:
    names = {A: name, B: name, C: name, D: name}
    for view in (crowded_view(), over_view(), opening_view(8)):
        assert draw(view, names).size == (liege.WIDTH, liege.HEIGHT)


def test_long_names_never_spill_out_of_the_panel() -> None:
    names = {pid: "W" * 80 for pid in (A, B, C, D)}
    image = draw(crowded_view(), names)
    plain = draw(crowded_view(), {pid: "W" for pid in (A, B, C, D)})
    # the strip right of the panel stays background
    edge = (liege.PANEL_X1 + 2, 0, liege.WIDTH, liege.HEIGHT)
    assert pixels(image, edge) == pixels(plain, edge)


def test_odd_views_still_render() -> None:
    for view in ({}, {"kind": "liege"}, {"size": "ten", "players": "x", "pieces": 7},
                 {"size": 3, "players": [None, 5, {"id": 9}], "pieces": [None, {"square": 4}]}):
        draw(view)
    view = crowded_view()
    view["pieces"] += [piece("z9", "rifle", A), piece("e5", "catapult", "ghost"),
                       piece("k1", "mg", B, facing="up"), {"square": "a11"}]
    view["players"].append({"id": "555", "seat": 9, "side": "up", "general": "q7"})
    view.update(last_fight={"attackers": "e4", "defenders": [None, "zz"], "from": 3},
                blast={"kind": "nuke", "squares": ["a1", "b1", 12]},
                selected={"square": "x0", "range": None},
                last_move={"player": "ghost", "from": "a0", "to": "j10"},
                damage_tokens_left=-4, round="x", phase=None, turn=5, to_act="all")
    draw(view)


def test_squares_outside_an_8x8_board_are_ignored() -> None:
    view = opening_view(8)
    extra = copy.deepcopy(view)
    extra["pieces"] = [piece("j10", "rifle", A), piece("i3", "av", B)]
    assert draw(extra).tobytes() == draw(view).tobytes()


# --- the board -----------------------------------------------------------------------------


def test_opening_generals_stand_on_their_highlighted_squares() -> None:
    image = draw(opening_view())
    a_sq, b_sq = highlights("south")[0], highlights("north")[1]
    # each General is a disc in its owner's colour with a gold star
    assert count(cell(image, a_sq), near(RED)) > 200
    assert count(cell(image, a_sq), is_gold) > 200
    assert count(cell(image, b_sq), near(BLUE)) > 200
    assert count(cell(image, b_sq), is_gold) > 200
    # nothing else on the board: the other highlighted square holds no gold star
    assert count(cell(image, highlights("south")[1]), is_gold) == 0
    assert count(cell(image, "e5"), is_gold) == 0


def test_home_edges_are_tinted_and_highlights_marked() -> None:
    image = draw(opening_view())
    south, north = mean(cell(image, "b1")), mean(cell(image, "b10"))
    middle = mean(cell(image, "b5"))
    assert south[0] - south[2] > middle[0] - middle[2] + 15  # redder
    assert north[2] - north[0] > middle[2] - middle[0] + 15  # bluer
    # a highlighted square (empty) differs from the plain home square beside it
    assert mean(cell(image, "f1")) != mean(cell(image, "g1"))
    # 4 players: West's edge is green, East's amber
    four = draw(quiet_view())
    west, east = mean(cell(four, "a2")), mean(cell(four, "j2"))
    assert west[1] - west[0] > mean(cell(four, "c2"))[1] - mean(cell(four, "c2"))[0] + 10
    assert east[0] - east[2] > mean(cell(four, "c2"))[0] - mean(cell(four, "c2"))[2] + 15


@pytest.mark.parametrize(("square", "colour"), [
    ("d4", RED), ("c3", RED), ("e6", BLUE), ("d7", BLUE), ("g7", BLUE), ("b5", GREEN),
    ("c6", GREEN), ("b7", GREEN), ("h5", AMBER), ("h6", AMBER), ("i7", AMBER)])
def test_pieces_are_drawn_in_their_owners_colour(square: str, colour: Pixel) -> None:
    view = quiet_view()
    for p in view["pieces"]:
        p.update(damaged=False, fought=False, new=False)
    px = cell(draw(view), square)
    assert count(px, near(colour)) > 300
    others = [c for c in (RED, BLUE, GREEN, AMBER) if c != colour]
    assert all(count(px, near(o, 20)) < 30 for o in others)


def test_every_piece_type_looks_different() -> None:
    looks = {}
    for kind in ("rifle", "mg", "mortar", "av", "trench"):
        view = base_view()
        view["pieces"] = [piece("e5", kind, None if kind == "trench" else A,
                                facing="n" if kind in ("mg", "mortar") else None)]
        looks[kind] = cell(draw(view), "e5")
    kinds = list(looks)
    for i, a in enumerate(kinds):
        for b in kinds[i + 1:]:
            differing = sum(1 for p, q in zip(looks[a], looks[b], strict=True) if p != q)
            assert differing > 400, (a, b)


def test_trench_is_neutral_earthwork() -> None:
    image = draw(quiet_view())
    px = cell(image, "g3")  # an empty trench
    assert all(count(px, near(c, 25)) < 20 for c in (RED, BLUE, GREEN, AMBER))
    brown = count(px, lambda p: p[0] > p[1] > p[2] and p[0] - p[2] > 40)
    assert brown > len(px) // 3


def test_general_inside_a_trench_and_an_armored_vehicle() -> None:
    image = draw(quiet_view())
    empty_trench = cell(image, "g3")
    in_trench = cell(image, "f8")  # B's General (blue) in a trench
    assert count(in_trench, is_gold) > 100 and count(empty_trench, is_gold) == 0
    assert count(in_trench, near(BLUE)) > 100
    # A's General rides the vehicle on e3; B's vehicle on d7 carries nobody
    view = quiet_view()
    view["pieces"][0]["general_inside"] = None
    view["players"][0].update(general="e2", in_vehicle=False)
    without = draw(view)
    assert count(cell(image, "e3"), is_gold) > count(cell(without, "e3"), is_gold) + 40
    assert count(cell(image, "d7"), is_gold) == 0


def test_facing_arrows_point_the_way() -> None:
    def mg(facing: str) -> Image.Image:
        view = base_view()
        view["pieces"] = [piece("e5", "mg", A, facing=facing)]
        return draw(view)

    box = liege._Board(10).box("e5")
    assert box is not None
    x0, y0, x1, y1 = box
    k = 8  # the strip between the cell's edge and the counter's
    strips = {"n": (x0 + 20, y0, x1 - 20, y0 + k), "s": (x0 + 20, y1 - k, x1 - 20, y1),
              "w": (x0, y0 + 20, x0 + k, y1 - 20), "e": (x1 - k, y0 + 20, x1, y1 - 20)}
    for facing in "nesw":
        image = mg(facing)
        for side, strip in strips.items():
            light = count(pixels(image, strip), is_whitish)
            if side == facing:
                assert light > 5, (facing, side)
            else:
                assert light == 0, (facing, side)


def test_damaged_pieces_carry_a_burst() -> None:
    view = quiet_view()
    healed = copy.deepcopy(view)
    for p in healed["pieces"]:
        p["damaged"] = False
    a, b = draw(view), draw(healed)

    def black(p: Pixel) -> bool:
        return max(p) < 40

    for sq in ("f4", "e6", "f6"):  # a red burst with a black core
        assert count(cell(a, sq), black) > count(cell(b, sq), black) + 30
    assert count(cell(a, "e6"), is_red) > count(cell(b, "e6"), is_red) + 30  # on blue
    assert cell(a, "d4") == cell(b, "d4")  # undamaged pieces are unchanged


def test_fought_and_new_pieces_are_marked() -> None:
    view = quiet_view()
    plain = copy.deepcopy(view)
    for p in plain["pieces"]:
        p["fought"] = p["new"] = False
    a, b = draw(view), draw(plain)
    assert cell(a, "d4") != cell(b, "d4")  # fought
    assert cell(a, "c3") != cell(b, "c3")  # new
    assert cell(a, "h6") == cell(b, "h6")  # neither


def test_selected_range_changes_exactly_the_overlay_squares() -> None:
    view = quiet_view()
    selected = copy.deepcopy(view)
    selected["selected"] = {"square": "c6", "range": ["d6", "e6", "f6", "d5", "d7", "e7"]}
    a, b = draw(selected), draw(view)
    for sq in ["c6", "d6", "e6", "f6", "d5", "d7", "e7"]:
        assert cell(a, sq) != cell(b, sq), sq
    for sq in ["a1", "h3", "b9", "g8", "j10"]:
        assert cell(a, sq) == cell(b, sq), sq
    # the overlay is a translucent blue wash: the empty d6 turns bluer
    with_range, without = mean(cell(a, "d6")), mean(cell(b, "d6"))
    assert with_range[2] > without[2] + 20


@pytest.mark.parametrize("kind", ["grenade", "missile", "gas"])
def test_blast_overlays_its_squares_by_kind(kind: str) -> None:
    squares = ["d4", "c4", "e4", "d3", "d5"] if kind == "grenade" else [
        f + r for f in "cde" for r in "345"]
    view = base_view()
    view["phase"] = "fight"
    view["blast"] = {"kind": kind, "target": "d4", "squares": squares}
    a, b = draw(view), draw(base_view())
    for sq in squares:
        assert cell(a, sq) != cell(b, sq)
    assert cell(a, "h8") == cell(b, "h8")
    if kind == "grenade":
        assert cell(a, "c3") == cell(b, "c3")  # a grenade's blast is a plus, not a square
    looks = set()
    for k in ("grenade", "missile", "gas"):
        v = copy.deepcopy(view)
        v["blast"]["kind"] = k
        looks.add(tuple(cell(draw(v), "d5")))
    assert len(looks) == 3


def test_last_fight_outlines_attackers_and_defenders_differently() -> None:
    view = quiet_view()
    fought = copy.deepcopy(view)
    fought["last_fight"] = {"attacker": C, "defender": B, "from": "c6", "to": "d7",
                            "attackers": ["c6", "b7"], "defenders": ["d7"], "winner": "defender"}
    a, b = draw(fought), draw(view)

    def rim(image: Image.Image, sq: str) -> list[Pixel]:
        box = liege._Board(10).box(sq)
        assert box is not None
        x0, y0, x1, _ = box
        # a strip along the top edge's left half (the fight badge sits top right)
        return pixels(image, (x0 + 2, y0 + 2, (x0 + x1) / 2, y0 + 7))

    for sq in ("c6", "b7"):  # attackers: solid red
        assert count(rim(a, sq), is_red) > count(rim(b, sq), is_red) + 20
    # defender: a dashed light outline, not red
    assert count(rim(a, "d7"), is_whitish) > count(rim(b, "d7"), is_whitish) + 10
    assert count(rim(a, "d7"), is_red) <= count(rim(b, "d7"), is_red) + 5
    assert cell(a, "h3") == cell(b, "h3")


def test_last_move_marks_the_target_square() -> None:
    view = quiet_view()
    moved = copy.deepcopy(view)
    moved["last_move"] = {"player": D, "action": "shift h4 h5", "from": "h4", "to": "h5"}
    a, b = draw(moved), draw(view)
    assert cell(a, "h5") != cell(b, "h5") and cell(a, "h4") != cell(b, "h4")
    assert count(cell(a, "h5"), near((255, 214, 102), 25)) > count(
        cell(b, "h5"), near((255, 214, 102), 25)) + 100
    assert cell(a, "b2") == cell(b, "b2")


# --- the panel -------------------------------------------------------------------------------


def test_damage_token_pool_greys_used_tokens() -> None:
    view = quiet_view()
    counts = []
    for left in (5, 2, 0):
        image = draw(dict(view, damage_tokens_left=left))
        counts.append(count(panel(image), is_red))
    assert counts[0] > counts[1] > counts[2]


def test_raised_prices_are_highlighted() -> None:
    view = quiet_view()
    plain = copy.deepcopy(view)
    for p in plain["players"]:
        p["prices"] = dict(PRICES)
    a, b = panel(draw(view)), panel(draw(plain))
    assert a != b
    orange = near((255, 150, 110), 40)
    assert count(a, orange) > count(b, orange) + 20


def test_panel_changes_with_credits_lives_limits_and_phase() -> None:
    view = quiet_view()
    base = panel(draw(view))
    for change in ({"credits": 999}, {"lives": 1}, {"left": dict(LEFT, gas=0)}):
        other = copy.deepcopy(view)
        other["players"][2].update(change)
        assert panel(draw(other)) != base, change
    assert panel(draw(dict(view, phase="fight", to_act=[A]))) != base
    assert panel(draw(dict(view, round=10))) != base



# --- a whole turn of events is marked --------------------------------------------------------


def turn_view() -> dict[str, Any]:
    """After A's turn: the General stepped e1 -> e2, a Rifle d4 -> d5 and an MG c2 -> c3,
    an MG bought on g2, a fight won from d5 against B's Rifle on d6 (destroyed)."""
    view = base_view((A, B))
    view["players"][0]["general"] = "e2"
    view["players"][1]["general"] = "f10"
    view["pieces"] = [piece("d5", "rifle", A), piece("c3", "mg", A, facing="n"),
                      piece("g2", "mg", A, facing="n"), piece("e8", "rifle", B),
                      piece("h7", "mortar", B, facing="s")]
    view.update(phase="general", turn=B, to_act=[B], round=3)
    return view


TURN: list[dict[str, Any]] = [
    {"type": "general_move", "player": A, "from": "e1", "to": "e2", "into": None},
    {"type": "shift", "player": A, "piece": "rifle", "from": "d4", "to": "d5"},
    {"type": "shift", "player": A, "piece": "mg", "from": "c2", "to": "c3"},
    {"type": "buy", "player": A, "piece": "mg", "square": "g2", "price": 130, "credits": 270,
     "facing": "n"},
    {"type": "fight", "attacker": A, "defender": B, "from": "d5", "to": "d6",
     "attackers": [{"square": "d5", "piece": "rifle", "damaged": False}],
     "defenders": [{"square": "d6", "piece": "rifle", "damaged": False},
                   {"square": "e7", "piece": "mg", "damaged": False}],
     "offense": 1, "defense": 1, "in_range": True, "rounds": [], "winner": "attacker",
     "loser": B, "only_damage": False},
    {"type": "casualty", "player": B, "square": "d6", "piece": "rifle", "result": "destroyed"},
    {"type": "end_turn", "player": A, "bonus": 30, "credits": 300},
    {"type": "turn_start", "player": B, "round": 3},
]

BLAST: list[dict[str, Any]] = [
    {"type": "grenade", "player": A, "from": "d5", "target": "e8", "price": 80, "credits": 320,
     "squares": ["e7", "d8", "e8", "f8", "e9"],
     "rolls": [{"square": "e8", "piece": "rifle", "owner": B, "roll": 2, "survived": False}]}]


def draw_events(view: dict[str, Any], events: Any) -> Image.Image:
    return decode(render.render("liege", view, events, NAMES))


def test_every_move_of_the_turn_leaves_a_trail() -> None:
    view = turn_view()
    marked, plain = draw_events(view, TURN), draw(view)
    gold = near((255, 214, 102), 25)
    for src, dst in (("e1", "e2"), ("d4", "d5"), ("c2", "c3")):
        assert cell(marked, src) != cell(plain, src), src  # the trail
        assert count(cell(marked, dst), gold) > count(cell(plain, dst), gold) + 60, dst
    for sq in ("a9", "j1", "h3"):  # nothing happened there
        assert cell(marked, sq) == cell(plain, sq), sq


def test_every_fight_purchase_and_loss_is_marked() -> None:
    view = turn_view()
    marked, plain = draw_events(view, TURN), draw(view)

    def rim(image: Image.Image, sq: str) -> list[Pixel]:
        box = liege._Board(10).box(sq)
        assert box is not None
        x0, y0, x1, _ = box
        return pixels(image, (x0 + 2, y0 + 2, (x0 + x1) / 2, y0 + 7))

    # the attacker (solid red), both defenders (dashed white)
    assert count(rim(marked, "d5"), is_red) > count(rim(plain, "d5"), is_red) + 20
    for sq in ("d6", "e7"):
        assert count(rim(marked, sq), is_whitish) > count(rim(plain, sq), is_whitish) + 10
    # the Rifle destroyed on d6 leaves a red cross on the empty square
    assert count(cell(marked, "d6"), is_red) > count(cell(plain, "d6"), is_red) + 100
    # the MG bought on g2: a dashed gold frame
    gold = near((255, 214, 102), 25)
    assert count(cell(marked, "g2"), gold) > count(cell(plain, "g2"), gold) + 40


def test_every_blast_area_is_marked() -> None:
    view = turn_view()
    marked, plain = draw_events(view, BLAST), draw(view)
    for sq in BLAST[0]["squares"]:
        assert cell(marked, sq) != cell(plain, sq), sq
    for sq in ("f7", "c8", "g8", "e10", "b5"):  # a plus, and the shot only crosses d5-e8
        assert cell(marked, sq) == cell(plain, sq), sq
    # two blasts in one image (e.g. two players' turns): both areas
    gas = dict(BLAST[0], type="gas", target="b3", squares=["a2", "b2", "c2", "a3", "b3",
                                                           "c3", "a4", "b4", "c4"])
    both = draw_events(view, [*BLAST, gas])
    assert cell(both, "e9") != cell(plain, "e9") and cell(both, "a4") != cell(plain, "a4")


def test_this_turn_replaces_the_last_action_box() -> None:
    view = turn_view()
    view["last_move"] = {"player": A, "action": "end", "from": None, "to": None}
    assert panel(draw_events(view, TURN)) != panel(draw(view))
    # no usable events: the view's last fight, blast and move are drawn instead
    assert same_picture(render.render("liege", view, [], NAMES),
                        render.render("liege", view, None, NAMES))
    fought = dict(view, last_fight={"attacker": A, "defender": B, "from": "d5", "to": "e8",
                                    "attackers": ["d5"], "defenders": ["e8"],
                                    "winner": "attacker"})
    assert cell(draw(fought), "e8") != cell(draw(view), "e8")
    # with events, they alone say what happened
    assert cell(draw_events(fought, TURN), "e8") == cell(draw_events(view, TURN), "e8")


def test_a_private_event_is_ignored() -> None:
    view = turn_view()
    secret: list[dict[str, Any]] = [dict(TURN[1], private_to=A),
                                    dict(BLAST[0], private_to=B)]
    assert same_picture(render.render("liege", view, TURN + secret, NAMES),
                        render.render("liege", view, TURN, NAMES))
    assert same_picture(render.render("liege", view, secret, NAMES),
                        render.render("liege", view, None, NAMES))


HOSTILE_EVENTS: list[Any] = [
    None, 3.5, "fight", [], {}, {"type": None}, {"type": ["shift"]},
    {"type": "shift"}, {"type": "shift", "from": "d4"}, {"type": "shift", "from": "d4",
                                                         "to": "d4"},
    {"type": "general_move", "from": "E1", "to": "k11", "player": 4},
    {"type": "general_placed", "square": ["e1"]}, {"type": "turn", "square": "c3", "to": "up"},
    {"type": "buy", "square": "z0", "piece": "tank"}, {"type": "buy", "square": "b2",
                                                       "piece": {"x": 1}},
    {"type": "grenade"}, {"type": "missile", "target": "e5", "squares": "e5",
                          "destroyed": "all"},
    {"type": "gas", "target": 5, "squares": [None, "e5", 7, "q1"], "effects": [None, 3]},
    {"type": "grenade", "target": "e5", "rolls": [{"square": 9, "survived": False}, "x"]},
    {"type": "fight"}, {"type": "fight", "attackers": "d5", "defenders": [None, {"sq": 1}]},
    {"type": "fight", "from": "d5", "to": "d6", "attackers": [{"square": "d5"}] * 500,
     "winner": ["attacker"], "attacker": {"id": A}},
    {"type": "casualty", "square": "d6", "result": None}, {"type": "casualty", "result": "x"},
    {"type": "life_lost", "player": A, "lives": "many", "square": "e2", "to": "e2"},
    {"type": "eliminated", "player": 7}, {"type": "edge_win", "player": "😀" * 400},
    {"type": "end_turn", "player": A, "bonus": "a lot"}, {"type": "skip", "player": None},
]


def test_hostile_events_do_not_crash_or_change_anything() -> None:
    for make in (turn_view, crowded_view, over_view, lambda: opening_view(8)):
        view = make()
        events = copy.deepcopy(HOSTILE_EVENTS)
        before = copy.deepcopy((view, events))
        draw_events(view, events)
        assert (view, events) == before
    for odd in ("not a list", {"type": "shift"}, 42, [[{"type": "fight"}]]):
        draw_events(turn_view(), odd)
    draw_events(turn_view(), TURN * 60)  # a very long digest


@pytest.mark.parametrize("rnd", [1, 9, 10, 99, 999, 9999, 123456])
def test_the_title_never_touches_the_round(rnd: int) -> None:
    from render.common import TextLog
    from render.common.overlap import overlapping_texts

    view = opening_view()
    view["round"] = rnd
    with TextLog() as log:
        render.render("liege", view)
    title = next(d for d in log.drawn if d.text.startswith("BATTLE"))
    label = next(d for d in log.drawn if d.text.startswith("Round"))
    assert title.text == "BATTLE OF LIÈGE" and label.text == f"Round {min(rnd, 9999)}"
    assert title.box is not None and label.box is not None
    assert title.box[2] + 8 <= label.box[0]  # a clear gap between them
    assert not overlapping_texts(log)


# --- phone first: prices and phases ----------------------------------------------------------


@pytest.mark.parametrize("prices", [dict(PRICES), dict(PRICES, missile=70, gas=80),
                                    dict(PRICES, missile=130, gas=9999)])
def test_card_prices_and_phase_pills_are_readable_on_a_phone(prices: dict[str, int]) -> None:
    view = crowded_view()
    for p in view["players"]:
        p["prices"] = dict(prices)
    view.update(phase="deploy", to_act=[A])
    with TextLog() as log:
        render.render("liege", view, None, None)
    smallest = min_essential_size(log.width)
    shown = [d for d in log.drawn if d.box is not None and d.box[0] >= liege.PANEL_X0 - 1]
    # each card's Missile and Gas prices: recorded as scores at the phone size, inside the card
    for kind in ("missile", "gas"):
        label = str(prices[kind])
        found = [d for d in shown if d.text.rstrip("c") == label]
        assert len(found) >= 4, (kind, [d.text for d in shown])
        for d in found:
            assert d.role == "score" and d.size >= smallest, d
            assert d.box is not None and d.box[2] <= liege.PANEL_X1, d
    # the four phases, the current one named in full, all at the phone size
    pills = [d for d in shown if d.text in ("Deploy", "G", "M", "F")]
    assert sorted(d.text for d in pills) == ["Deploy", "F", "G", "M"]
    assert all(d.role == "turn" and d.size >= smallest for d in pills)
    assert all(d.box is not None and d.box[2] <= liege.PANEL_X1 for d in pills)
