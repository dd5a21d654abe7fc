"""render/: PNG board images drawn from view dicts (no engine import: views built here)."""

from __future__ import annotations

import copy
import io
from typing import Any

import pytest
from PIL import Image

import render
from render import common, conqueror
from tests.boards import same_picture

A, B, C, D = "111", "222", "333", "444"
BASES = {A: "a1", B: "f6", C: "f1", D: "a6"}
SQUARES = [f + r for r in "123456" for f in "abcdef"]


def square(resource: str = "hidden", owner: str | None = None, soldiers: int = 0,
           fort: bool = False, fort_owner: str | None = None,
           base_of: str | None = None) -> dict[str, Any]:
    return {"resource": resource, "base_of": base_of, "owner": owner if soldiers else None,
            "soldiers": soldiers, "fort": fort, "fort_owner": fort_owner}


def player(pid: str, seat: int, **kw: Any) -> dict[str, Any]:
    p: dict[str, Any] = {"id": pid, "seat": seat, "base": BASES[pid], "base_health": 5,
                         "out": False, "ap": 0, "gold": 0, "lumber": 0, "soldiers": 1,
                         "forts": 0}
    p.update(kw)
    return p


def opening_view(ids: tuple[str, ...] = (A, B)) -> dict[str, Any]:
    """A fresh game: every square hidden but the bases, one soldier on each base."""
    board = {s: square() for s in SQUARES}
    for pid in ids:
        board[BASES[pid]] = square("base", pid, 1, base_of=pid)
    players = [player(pid, i + 1, ap=2 if i == 0 else 0) for i, pid in enumerate(ids)]
    return {"kind": "conqueror", "viewer": None, "round": 1, "turn": ids[0],
            "to_act": [ids[0]], "players": players, "board": board, "last_move": None,
            "outcome": None}


def crowded_view() -> dict[str, Any]:
    """Late game, four players: every square revealed, stacks of 6, forts (one ownerless),
    a ruin (D is out), the outcome set."""
    cycle = ["gold", "lumber", "blank"]
    board = {s: square(cycle[i % 3]) for i, s in enumerate(SQUARES)}
    board["a1"] = square("base", A, 6, base_of=A)
    board["f6"] = square("base", B, 2, base_of=B)
    board["f1"] = square("base", C, 0, base_of=C)
    board["a6"] = square("ruin", B, 3)  # D's base, destroyed
    stacks = {"b1": (A, 6), "b2": (A, 5), "c3": (A, 4), "d4": (B, 6), "e5": (B, 6),
              "e2": (C, 6), "e1": (C, 1), "c4": (B, 2), "b5": (A, 3), "d2": (C, 2)}
    for s, (owner, n) in stacks.items():
        board[s]["owner"], board[s]["soldiers"] = owner, n
    board["c3"].update(fort=True, fort_owner=A)
    board["d4"].update(fort=True, fort_owner=B)
    board["e2"].update(fort=True, fort_owner=C)
    board["c5"].update(fort=True, fort_owner=None)  # D's old fort: ownerless
    players = [
        player(A, 1, ap=3, gold=4, lumber=7, soldiers=24, forts=1, base_health=2),
        player(B, 2, ap=0, gold=12, lumber=1, soldiers=19, forts=1, base_health=5),
        player(C, 3, ap=0, gold=0, lumber=3, soldiers=9, forts=1, base_health=1),
        player(D, 4, out=True, base_health=0, soldiers=0),
    ]
    return {"kind": "conqueror", "viewer": A, "round": 27, "turn": None, "to_act": [],
            "players": players, "board": board,
            "last_move": {"player": A, "action": "move b2 c3 5", "from": "b2", "to": "c3"},
            "outcome": {"winners": [A], "standings": [A, B, C, D],
                        "reason": "Player 1 holds the most territory after the last round."}}


def midgame_view() -> dict[str, Any]:
    """A running 3-player game with a battle just fought."""
    view = opening_view((A, B, C))
    board = view["board"]
    for s, res in {"a2": "gold", "b2": "lumber", "b1": "blank", "e5": "gold",
                   "e6": "blank", "c3": "lumber", "e1": "gold", "e2": "lumber"}.items():
        board[s]["resource"] = res
    board["a1"]["soldiers"] = 3
    board["b2"].update(owner=A, soldiers=2)
    board["c3"].update(owner=A, soldiers=4, fort=True, fort_owner=A)
    board["e5"].update(owner=B, soldiers=3)
    board["e2"].update(owner=C, soldiers=5)
    view["players"][0].update(ap=1, gold=2, lumber=3, soldiers=9, forts=1)
    view["players"][1].update(soldiers=5, base_health=3)
    view["round"] = 6
    view["last_move"] = {"player": A, "action": "move b2 c3 4", "from": "b2", "to": "c3"}
    return view


BATTLE = [{"type": "move", "player": A, "from": "b2", "to": "c3", "count": 4},
          {"type": "battle", "kind": "soldiers", "attacker": A, "defender": B,
           "from": "b2", "to": "c3", "winner": "attacker"}]


def decode(png: bytes) -> Image.Image:
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    image = Image.open(io.BytesIO(png))
    assert image.format == "PNG"
    image.load()
    return image.convert("RGB")


def tile_pixels(image: Image.Image, name: str) -> list[tuple[int, int, int]]:
    box = conqueror._tile_box(name)
    assert box is not None
    x0, y0, x1, y1 = (round(v) for v in box)
    raw = image.crop((x0, y0, x1, y1)).tobytes()
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


def is_reddish(p: tuple[int, int, int]) -> bool:
    r, g, b = p
    return r > 170 and g < 110 and b < 110


def is_bluish(p: tuple[int, int, int]) -> bool:
    r, _, b = p
    return b > 180 and r < 110


# --- dispatch and contract ---------------------------------------------------------


def test_opening_renders_a_png_of_the_expected_size() -> None:
    image = decode(render.render("conqueror", opening_view()))
    assert image.size == (conqueror.WIDTH, conqueror.HEIGHT)
    assert 900 <= image.size[0] <= 1100


def test_crowded_late_position_renders() -> None:
    png = render.render("conqueror", crowded_view(), BATTLE, {A: "Alice", B: "Bob"})
    image = decode(png)
    assert image.size == (conqueror.WIDTH, conqueror.HEIGHT)
    assert len(png) < 200_000


@pytest.mark.parametrize("make", [opening_view, crowded_view, midgame_view])
def test_render_never_mutates_the_view_events_or_names(make: Any) -> None:
    view = make()
    events = copy.deepcopy(BATTLE)
    names = {A: "Alice"}
    before = copy.deepcopy((view, events, names))
    render.render("conqueror", view, events, names)
    assert (view, events, names) == before


@pytest.mark.parametrize("kind", ["chess", "common", "", "../conqueror", "Conqueror",
                                  "conqueror.x", "__init__"])
def test_unknown_kind_is_a_value_error(kind: str) -> None:
    with pytest.raises(ValueError):
        render.render(kind, opening_view())


def test_dispatch_goes_through_the_kind_module() -> None:
    view = midgame_view()
    assert same_picture(render.render("conqueror", view, BATTLE),
                        conqueror.render(view, BATTLE, None))


# --- names -------------------------------------------------------------------------

HOSTILE = ["🔥🐉👑" * 5, "x" * 500, "שלום עליכם", "مرحبا بالعالم", "", "   ", "\n\t\r",
           "a\u0301\u0301\u0301\u0301" * 40, "\u202eevil\u202c", "Ω" * 60, "\x00\x07bell",
           "中文名字很长很长很长很长很长很长很长很长"]


@pytest.mark.parametrize("name", HOSTILE)
def test_hostile_names_do_not_crash(name: str) -> None:
    names = {A: name, B: name, C: name, D: name}
    for view in (crowded_view(), midgame_view()):
        decode(render.render("conqueror", view, BATTLE, names))


def test_names_fall_back_to_seat_numbers() -> None:
    assert common.display_name(None, A, 1) == "Player 1"
    assert common.display_name({A: ""}, A, 2) == "Player 2"
    assert common.display_name({A: "🔥🔥"}, A, 3) == "Player 3"  # nothing drawable left
    assert common.display_name({A: "Ann\nBell"}, A, 1) == "Ann Bell"


def test_clean_and_fit_text() -> None:
    assert common.clean_text("a\x00b\u200bc") == "abc"
    assert common.clean_text("x" * 500) == "x" * common.MAX_TEXT
    assert common.clean_text(None) == ""
    font = common.font(20, bold=True)
    fitted = common.fit_text("W" * 80, font, 150)
    assert fitted.endswith("…") and font.getlength(fitted) <= 150
    assert common.fit_text("short", font, 150) == "short"
    assert common.fit_text("anything", font, 0) == ""


def test_bundled_fonts_are_used() -> None:
    assert (common.FONT_DIR / "DejaVuSans.ttf").is_file()
    assert (common.FONT_DIR / "DejaVuSans-Bold.ttf").is_file()
    assert (common.FONT_DIR / "LICENSE.txt").is_file()
    f = common.font(20, bold=True)
    assert f is common.font(20, bold=True)  # cached
    assert "DejaVu" in (getattr(f, "path", "") or "")


# --- pixels prove things are drawn -------------------------------------------------


def test_last_move_marks_the_target_square() -> None:
    view = midgame_view()
    plain = dict(view, last_move=None)
    with_move = decode(render.render("conqueror", view))
    without = decode(render.render("conqueror", plain))
    assert tile_pixels(with_move, "c3") != tile_pixels(without, "c3")
    # squares far from the move are untouched
    assert tile_pixels(with_move, "f1") == tile_pixels(without, "f1")


def test_battle_event_marks_the_attacked_square() -> None:
    view = midgame_view()
    fought = decode(render.render("conqueror", view, BATTLE))
    quiet = decode(render.render("conqueror", view, BATTLE[:1]))
    assert tile_pixels(fought, "c3") != tile_pixels(quiet, "c3")
    red = sum(map(is_reddish, tile_pixels(fought, "c3")))
    assert red > sum(map(is_reddish, tile_pixels(quiet, "c3"))) + 50


def test_private_and_unknown_events_are_not_drawn() -> None:
    view = midgame_view()
    base = render.render("conqueror", view, [])
    private = [dict(BATTLE[1], private_to=A), {"type": "mystery", "to": "c3"}, {"nope": 1},
               {"type": "battle", "to": "z9"}, {"type": "battle"}]
    assert same_picture(render.render("conqueror", view, private), base)


def test_stacks_are_drawn_in_the_owners_colour() -> None:
    image = decode(render.render("conqueror", crowded_view()))
    red = sum(map(is_reddish, tile_pixels(image, "b1")))  # A (seat 1, red) has 6 there
    blue = sum(map(is_bluish, tile_pixels(image, "b1")))
    assert red > 500 and blue == 0
    blue_stack = sum(map(is_bluish, tile_pixels(image, "e5")))  # B (seat 2, blue)
    assert blue_stack > 500


def test_resources_look_different() -> None:
    view = crowded_view()
    for s in ("a2", "b2", "c2"):  # gold, lumber, blank in the helper's cycle
        view["board"][s].update(owner=None, soldiers=0)
    view["board"]["d1"] = square()  # hidden
    image = decode(render.render("conqueror", view))

    def mean(name: str) -> tuple[float, ...]:
        px = tile_pixels(image, name)
        return tuple(sum(p[i] for p in px) / len(px) for i in range(3))

    looks = [mean(s) for s in ("a2", "b2", "c2", "d1")]
    for i in range(4):
        for j in range(i + 1, 4):
            assert sum(abs(a - b) for a, b in zip(looks[i], looks[j], strict=True)) > 30


def test_soldier_count_changes_the_picture() -> None:
    view = midgame_view()
    other = copy.deepcopy(view)
    other["board"]["e5"]["soldiers"] = 4
    a = decode(render.render("conqueror", view))
    b = decode(render.render("conqueror", other))
    assert tile_pixels(a, "e5") != tile_pixels(b, "e5")


def test_odd_views_still_render() -> None:
    view = opening_view()
    view["board"]["zz"] = square("gold", A, 3)
    view["board"]["c3"] = square("volcano", "nobody", 2, fort=True, fort_owner="ghost")
    view["last_move"] = {"player": "ghost", "action": None, "from": "q9", "to": "c3"}
    view["players"].append({"id": "555", "seat": 9})
    decode(render.render("conqueror", view))
    decode(render.render("conqueror", {"kind": "conqueror"}))


def test_forts_are_drawn_in_the_owners_colour_or_grey() -> None:
    view = crowded_view()
    bare = copy.deepcopy(view)
    bare["board"]["c5"].update(fort=False)
    bare["board"]["d4"].update(fort=False, fort_owner=None)
    with_forts = decode(render.render("conqueror", view))
    without = decode(render.render("conqueror", bare))
    assert tile_pixels(with_forts, "c5") != tile_pixels(without, "c5")
    # the ownerless fort on c5 (an empty blank square) is drawn without any player colour
    assert not any(is_reddish(p) or is_bluish(p) for p in tile_pixels(with_forts, "c5"))
    # B's fort on d4 adds blue around B's stack
    extra_blue = (sum(map(is_bluish, tile_pixels(with_forts, "d4")))
                  - sum(map(is_bluish, tile_pixels(without, "d4"))))
    assert extra_blue > 300


def test_base_health_is_shown() -> None:
    view = opening_view()
    hurt = copy.deepcopy(view)
    hurt["players"][0]["base_health"] = 2
    a = decode(render.render("conqueror", view))
    b = decode(render.render("conqueror", hurt))
    assert tile_pixels(a, "a1") != tile_pixels(b, "a1")
    assert sum(map(is_reddish, tile_pixels(a, "a1"))) > sum(map(is_reddish, tile_pixels(b, "a1")))


def test_ruin_is_grey() -> None:
    view = crowded_view()
    view["board"]["a6"].update(owner=None, soldiers=0)
    image = decode(render.render("conqueror", view))
    px = tile_pixels(image, "a6")
    coloured = [p for p in px if max(p) - min(p) > 40]
    assert len(coloured) < len(px) // 50


def test_panel_changes_with_the_turn_and_the_outcome() -> None:
    view = midgame_view()
    panel = (conqueror.PANEL_X0, 0, conqueror.WIDTH, conqueror.HEIGHT)
    a = decode(render.render("conqueror", view)).crop(panel).tobytes()
    b = decode(render.render("conqueror", dict(view, turn=B, to_act=[B]))).crop(panel).tobytes()
    over = dict(view, turn=None, to_act=[],
                outcome={"winners": [B], "standings": [B, A, C], "reason": "Base destroyed."})
    c = decode(render.render("conqueror", over)).crop(panel).tobytes()
    assert len({a, b, c}) == 3


# --- a whole turn of events is marked ------------------------------------------------

#: A turn of A's (seat 1, red): three moves, a battle, a recruit and a fort.
TURN: list[dict[str, Any]] = [
    {"type": "turn_start", "player": A, "round": 6, "ap": 3, "ap_lost": 0, "gold": 1,
     "gold_lost": 0, "lumber": 1, "lumber_lost": 0},
    {"type": "move", "player": A, "from": "a1", "to": "a2", "count": 1},
    {"type": "move", "player": A, "from": "b2", "to": "c3", "count": 2},
    {"type": "battle", "kind": "fort", "attacker": A, "defender": B, "from": "b2", "to": "c3",
     "attackers": 2, "defenders": 1, "strength": 3, "rule": "dice", "winner": "attacker",
     "attacker_losses": 0, "defender_losses": 1, "survivors": 2},
    {"type": "move", "player": A, "from": "e2", "to": "d1", "count": 1},
    {"type": "discover", "square": "d1", "rolls": [4], "resource": "gold", "rerolled": False},
    {"type": "recruit", "player": A, "count": 2, "square": "a1"},
    {"type": "fort", "player": A, "square": "b1"},
    {"type": "end_turn", "player": A, "ap_kept": 0},
]


def centre_between(a: str, b: str) -> tuple[float, float]:
    """The midpoint of two squares' counters: on the arrow of a move between them."""
    ca = conqueror._token_centre(a, "blank")
    cb = conqueror._token_centre(b, "blank")
    assert ca is not None and cb is not None
    return (ca[0] + cb[0]) / 2, (ca[1] + cb[1]) / 2


def region(image: Image.Image, centre: tuple[float, float],
           half: float = 6) -> list[tuple[int, int, int]]:
    x, y = (round(v) for v in centre)
    h = round(half)
    raw = image.crop((x - h, y - h, x + h, y + h)).tobytes()
    return [(raw[i], raw[i + 1], raw[i + 2]) for i in range(0, len(raw), 3)]


def quiet(view: dict[str, Any]) -> dict[str, Any]:
    """The view without its last move (so nothing but events marks the board)."""
    return dict(view, last_move=None)


def test_every_move_of_the_turn_gets_an_arrow() -> None:
    view = quiet(midgame_view())
    marked = decode(render.render("conqueror", view, TURN))
    plain = decode(render.render("conqueror", view))
    for e in TURN:
        if e["type"] == "move":
            mid = centre_between(e["from"], e["to"])
            assert region(marked, mid) != region(plain, mid), e
    # squares no event touched are unchanged
    for name in ("f1", "f4", "e6", "d5"):
        assert tile_pixels(marked, name) == tile_pixels(plain, name), name


@pytest.mark.parametrize(("mover", "test"), [(A, is_reddish), (B, is_bluish)])
def test_an_arrow_is_drawn_in_the_movers_colour(mover: str, test: Any) -> None:
    view = quiet(midgame_view())
    move = [{"type": "move", "player": mover, "from": "d3", "to": "d4", "count": 1}]
    marked = decode(render.render("conqueror", view, move))
    plain = decode(render.render("conqueror", view))
    mid = centre_between("d3", "d4")
    assert sum(map(test, region(marked, mid))) > sum(map(test, region(plain, mid))) + 30


def test_moves_between_the_same_squares_are_drawn_side_by_side() -> None:
    view = quiet(midgame_view())
    there = {"type": "move", "player": A, "from": "d3", "to": "d4", "count": 1}
    back = dict(there, **{"from": "d4", "to": "d3"})
    one = decode(render.render("conqueror", view, [there]))
    both = decode(render.render("conqueror", view, [there, back]))
    mid = centre_between("d3", "d4")
    # the single arrow runs through the midpoint; the pair is spread either side of it
    reds_one = sum(map(is_reddish, region(one, mid, 3)))
    reds_both = sum(map(is_reddish, region(both, mid, 3)))
    assert reds_one > 10 and reds_both < reds_one
    wide_one = sum(map(is_reddish, region(one, mid, 18)))
    wide_both = sum(map(is_reddish, region(both, mid, 18)))
    assert wide_both > wide_one


def test_every_battle_recruit_and_fort_of_the_turn_is_marked() -> None:
    view = quiet(midgame_view())
    battles = [*TURN, {"type": "battle", "kind": "soldiers", "attacker": A, "defender": B,
                       "from": "e4", "to": "e5", "winner": "defender"}]
    marked = decode(render.render("conqueror", view, battles))
    plain = decode(render.render("conqueror", view))
    for name in ("c3", "e5"):  # a red frame and crossed swords
        red = sum(map(is_reddish, tile_pixels(marked, name)))
        assert red > sum(map(is_reddish, tile_pixels(plain, name))) + 50, name
    assert tile_pixels(marked, "a1") != tile_pixels(plain, "a1")  # "+2" on the base
    assert tile_pixels(marked, "b1") != tile_pixels(plain, "b1")  # the new fort's frame


def test_a_turn_replaces_the_last_move_box() -> None:
    view = midgame_view()
    panel = (conqueror.PANEL_X0, 0, conqueror.WIDTH, conqueror.HEIGHT)
    last_move = decode(render.render("conqueror", view)).crop(panel).tobytes()
    this_turn = decode(render.render("conqueror", view, TURN)).crop(panel).tobytes()
    assert this_turn != last_move
    # no events (or none usable) falls back to the view's last move
    assert same_picture(render.render("conqueror", view, []),
                        render.render("conqueror", view, None))
    # with events, the view's last move is not drawn on the board
    moved = decode(render.render("conqueror", view, TURN))
    unmoved = decode(render.render("conqueror", quiet(view), TURN))
    assert tile_pixels(moved, "c3") == tile_pixels(unmoved, "c3")


def test_a_private_event_is_ignored() -> None:
    view = quiet(midgame_view())
    secret: list[dict[str, Any]] = [
        {"type": "move", "player": A, "from": "d3", "to": "d4", "count": 1, "private_to": A},
        {"type": "battle", "kind": "soldiers", "attacker": A, "defender": B, "from": "e4",
         "to": "e5", "winner": "attacker", "private_to": B}]
    assert same_picture(render.render("conqueror", view, TURN + secret),
                        render.render("conqueror", view, TURN))
    assert same_picture(render.render("conqueror", view, secret),
                        render.render("conqueror", view))


HOSTILE_EVENTS: list[Any] = [
    None, 7, "move", [], {}, {"type": None}, {"type": 5, "from": "a1", "to": "a2"},
    {"type": "move"}, {"type": "move", "from": "a1"}, {"type": "move", "from": "a1", "to": "a1"},
    {"type": "move", "from": "A1", "to": "b2", "count": "x", "player": 9},
    {"type": "move", "from": ["a1"], "to": {"b2": 1}, "count": 10**12, "player": None},
    {"type": "move", "from": "z9", "to": "a0", "count": -3},
    {"type": "battle", "to": "c3", "winner": ["attacker"], "damage": "lots", "kind": 3},
    {"type": "battle", "to": "c3", "attacker": {"id": A}, "kind": "base", "damage": -5},
    {"type": "recruit", "square": "a1", "count": 10**9, "player": A},
    {"type": "recruit", "square": None, "count": 2}, {"type": "recruit", "square": "b2"},
    {"type": "fort", "square": "e9"}, {"type": "raze", "square": "c5", "player": ["x"]},
    {"type": "capture_fort", "square": "d4"}, {"type": "discover", "square": 12},
    {"type": "convert"}, {"type": "end_turn", "player": 5}, {"type": "eliminated"},
    {"type": "eliminated", "player": "🔥" * 300}, {"type": "game_over", "winners": "all"},
    {"type": "move", "player": "ghost\n\u202e", "from": "c3", "to": "d4", "count": 2},
]


def test_hostile_events_do_not_crash_or_change_anything() -> None:
    for make in (midgame_view, crowded_view, opening_view):
        view = make()
        events = copy.deepcopy(HOSTILE_EVENTS)
        before = copy.deepcopy((view, events))
        decode(render.render("conqueror", view, events, {A: "Alice"}))
        assert (view, events) == before
    for odd in ("not a list", {"type": "move"}, 42, [[{"type": "move"}]]):
        decode(render.render("conqueror", midgame_view(), odd))  # type: ignore[arg-type]
    # a very long turn: many moves (numbered), still quick and sound
    many = [{"type": "move", "player": A, "from": "d3", "to": "d4", "count": 1}] * 300
    decode(render.render("conqueror", midgame_view(), many))


# --- Discord markdown is never drawn ----------------------------------------------------


@pytest.mark.parametrize(("written", "drawn"), [
    ("The French move armies (`move 3 france spain`), then `end`",
     "The French move armies (move 3 france spain), then end"),
    ("pick a field (`go gold`)", "pick a field (go gold)"),
    ("**Alice** wins *on points* __today__ ~~maybe~~", "Alice wins on points today maybe"),
    ("-# a small line", "a small line"),
    ("> quoted **`done`**", "quoted done"),
    ("<@900> beat <@!901> and <@5>", "alice beat bob and @someone"),
    ("a ||secret|| <:sword:123> [rules](https://example.com)", "a secret :sword: rules"),
    ("snake_case_name and 2*3*4 stay", "snake_case_name and 2*3*4 stay"),
    (r"an escaped \*star\*", "an escaped *star*"),
    ("a stray ` backtick", "a stray  backtick"),
])
def test_plain_text_strips_discord_markdown(written: str, drawn: str) -> None:
    from render.common import plain_text

    assert plain_text(written, {"900": "alice", "901": "bob"}) == drawn


def test_a_prompt_with_markdown_is_drawn_without_it() -> None:
    import engine
    from render.common import TextLog

    for kind in ("napoleon", "battlecards", "conqueror", "liege"):
        game = engine.GAMES[kind]
        view = game.view(game.new_game(["900", "901"], 1), None)
        view["prompt"] = "Move (`move 3 france spain`), then **`end`**"
        if isinstance(view.get("last_move"), dict):
            view["last_move"]["action"] = "`go gold`"
        view["outcome"] = None
        with TextLog() as log:
            render.render(kind, view, None, None)
        drawn = " ".join(d.text for d in log.drawn)
        assert "`" not in drawn and "**" not in drawn, kind


@pytest.mark.parametrize("kind", ["conqueror", "liege"])
def test_a_mention_in_the_outcome_is_drawn_as_the_players_name(kind: str) -> None:
    import engine
    from render.common import TextLog

    game = engine.GAMES[kind]
    view = game.view(game.new_game(["900", "901"], 1), None)
    view["outcome"] = {"winners": ["900"], "standings": [["900"], ["901"]],
                       "reason": "<@900> took **every** keep from <@901>"}
    view["phase"] = "over"
    with TextLog() as log:
        render.render(kind, view, None, {"900": "alice", "901": "bob"})
    drawn = " ".join(d.text for d in log.drawn)
    assert "alice took every keep from bob" in drawn
    assert "<@" not in drawn and "**" not in drawn
