"""cogs/game.py: lobby custom_ids, the lobby embed, rules excerpts, status lines."""

from __future__ import annotations

import re
import time

import pytest

import engine
from cogs import game as g
from db import GameRecord, StoreError

A, B, C = "111111111111111111", "222222222222222222", "333333333333333333"


def record(status: str = "lobby", seats: tuple[str, ...] = (A,), kind: str = "conqueror",
           game_id: int = 7) -> GameRecord:
    now = time.time()
    return GameRecord(id=game_id, kind=kind, guild_id="1", channel_id="2", host_id=A,
                      status=status, seats=seats, seed=0, options={}, state=None, version=0,
                      lobby_message_id=None, created_at=now, updated_at=now)


# -- custom ids ------------------------------------------------------------------------------


@pytest.mark.parametrize("action", ["join", "leave", "start"])
def test_custom_id_round_trip(action: str) -> None:
    custom_id = g.lobby_custom_id(action, 42)
    assert custom_id == f"warhost:lobby:{action}:42"
    assert len(custom_id) <= 100
    assert g.parse_lobby_custom_id(custom_id) == (action, 42)


@pytest.mark.parametrize("custom_id", [
    "warhost:lobby:join:", "warhost:lobby:dance:4", "warhost:lobby:join:4x",
    "warhost:lobby:join:-4", "xwarhost:lobby:join:4", "warhost:lobby:join:4:5",
    "warhost:lobby:join:" + "9" * 40, "", "counter:5:user:1",
])
def test_custom_id_parsing_refuses_anything_else(custom_id: str) -> None:
    assert g.parse_lobby_custom_id(custom_id) is None


def test_unknown_action_has_no_custom_id() -> None:
    with pytest.raises(ValueError):
        g.lobby_custom_id("dance", 1)


def test_button_template_matches_its_own_ids() -> None:
    template = re.compile(g.LOBBY_TEMPLATE)
    for action in g.LOBBY_ACTIONS:
        button = g.LobbyButton(action, 99)
        assert button.custom_id == g.lobby_custom_id(action, 99)
        assert template.fullmatch(button.custom_id)
        assert (button.action, button.game_id) == (action, 99)
    assert g.LobbyButton in g.DYNAMIC_ITEMS


async def test_button_rebuilt_from_a_custom_id() -> None:
    match = re.compile(g.LOBBY_TEMPLATE).fullmatch("warhost:lobby:start:12")
    assert match is not None
    button = await g.LobbyButton.from_custom_id(None, None, match)  # type: ignore[arg-type]
    assert (button.action, button.game_id) == ("start", 12)


# -- lobby message ---------------------------------------------------------------------------


def test_lobby_view_has_three_buttons_while_in_the_lobby() -> None:
    view = g.lobby_view(record())
    assert view is not None and view.timeout is None
    assert [item.custom_id for item in view.children] == [  # type: ignore[attr-defined]
        "warhost:lobby:join:7", "warhost:lobby:leave:7", "warhost:lobby:start:7"]
    assert g.lobby_view(record("active")) is None
    assert g.lobby_view(record("aborted")) is None


def test_lobby_embed_lists_seats_and_host() -> None:
    embed = g.lobby_embed(record(seats=(A, B)))
    assert embed.title is not None and "Conqueror" in embed.title and "#7" in embed.title
    fields = {f.name: f.value for f in embed.fields}
    assert fields["Seats (2/4)"] == f"1. <@{A}> (host)\n2. <@{B}>"
    assert fields["Players"] == "2-4"
    assert embed.footer.text is not None and "third seat" in embed.footer.text
    assert "Join" in (embed.description or "")


def test_lobby_embed_after_start_and_abort() -> None:
    assert "started" in (g.lobby_embed(record("active", (A, B, C))).description or "")
    assert "aborted" in (g.lobby_embed(record("aborted", ())).description or "")
    fields = {f.name: f.value for f in g.lobby_embed(record("aborted", ())).fields}
    assert fields["Seats (0/4)"] == "Nobody yet."


# -- rules --------------------------------------------------------------------------------------


def test_rules_excerpt_prefers_a_summary_section() -> None:
    text = "# Game\n\nIntro.\n\n## Summary\n\nShort version.\n\n## Details\n\nLong."
    excerpt = g.rules_excerpt(text, "docs/games/x.md")
    assert excerpt.startswith("## Summary")
    assert "Short version." in excerpt and "Long." not in excerpt
    assert excerpt.endswith("Full rules: `docs/games/x.md`")


def test_rules_excerpt_cuts_long_documents() -> None:
    text = "# Game\n\n" + "\n\n".join("paragraph " * 30 for _ in range(40))
    excerpt = g.rules_excerpt(text, "docs/games/x.md")
    assert len(excerpt) < 2000
    assert "…" in excerpt and "docs/games/x.md" in excerpt


def test_rules_of_every_game_fit_in_a_message() -> None:
    for kind in engine.GAMES:
        path = g.DOCS / f"{kind}.md"
        if path.exists():
            excerpt = g.rules_excerpt(path.read_text(encoding="utf-8"), f"docs/games/{kind}.md")
            assert len(excerpt) <= 2000


# -- status -----------------------------------------------------------------------------------


def test_player_stat_lines_from_a_real_view() -> None:
    game = engine.get_game("conqueror")
    view = game.view(game.new_game([A, B], 5), None)
    lines = g.player_stat_lines(view)
    assert len(lines) == 2
    assert lines[0].startswith(f"1. <@{A}> — ")
    assert "base health 5" in lines[0] and "gold 0" in lines[0]


def test_player_stat_lines_tolerate_odd_views() -> None:
    assert g.player_stat_lines({}) == []
    assert g.player_stat_lines({"players": "nope"}) == []
    assert g.player_stat_lines({"players": [A, {"nope": 1}]}) == []
    assert g.player_stat_lines({"players": [{"id": A, "out": True}]}) == [f"1. <@{A}> (out)"]


def test_kind_choices_cover_every_game() -> None:
    assert {c.value for c in g.KIND_CHOICES} == set(engine.GAMES)


def test_reorder_seats_moves_one_player() -> None:
    from cogs.game import reorder_seats

    assert reorder_seats(("a", "b", "c"), "c", 1) == ["c", "a", "b"]
    assert reorder_seats(("a", "b", "c"), "a", 3) == ["b", "c", "a"]
    assert reorder_seats(("a", "b"), "b", 2) == ["a", "b"]
    with pytest.raises(StoreError, match="no seat"):
        reorder_seats(("a", "b"), "z", 1)
    with pytest.raises(StoreError, match="from 1 to 2"):
        reorder_seats(("a", "b"), "a", 3)
