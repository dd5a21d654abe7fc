"""cogs/game.py: lobby custom_ids, the lobby embed, rules excerpts, status lines."""

from __future__ import annotations

import re
import time

import pytest

import engine
from cogs import game as g
from cogs import lobby, wording
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
    custom_id = lobby.lobby_custom_id(action, 42)
    assert custom_id == f"warhost:lobby:{action}:42"
    assert len(custom_id) <= 100
    assert lobby.parse_lobby_custom_id(custom_id) == (action, 42)


@pytest.mark.parametrize("custom_id", [
    "warhost:lobby:join:", "warhost:lobby:dance:4", "warhost:lobby:join:4x",
    "warhost:lobby:join:-4", "xwarhost:lobby:join:4", "warhost:lobby:join:4:5",
    "warhost:lobby:join:" + "9" * 40, "", "counter:5:user:1",
])
def test_custom_id_parsing_refuses_anything_else(custom_id: str) -> None:
    assert lobby.parse_lobby_custom_id(custom_id) is None


def test_unknown_action_has_no_custom_id() -> None:
    with pytest.raises(ValueError):
        lobby.lobby_custom_id("dance", 1)


def test_button_template_matches_its_own_ids() -> None:
    template = re.compile(lobby.LOBBY_TEMPLATE)
    for action in lobby.LOBBY_ACTIONS:
        button = lobby.LobbyButton(action, 99)
        assert button.custom_id == lobby.lobby_custom_id(action, 99)
        assert template.fullmatch(button.custom_id)
        assert (button.action, button.game_id) == (action, 99)
    assert lobby.LobbyButton in g.DYNAMIC_ITEMS


async def test_button_rebuilt_from_a_custom_id() -> None:
    match = re.compile(lobby.LOBBY_TEMPLATE).fullmatch("warhost:lobby:start:12")
    assert match is not None
    button = await lobby.LobbyButton.from_custom_id(None, None, match)  # type: ignore[arg-type]
    assert (button.action, button.game_id) == ("start", 12)


# -- lobby message ---------------------------------------------------------------------------


def test_lobby_view_has_its_buttons_while_in_the_lobby() -> None:
    view = lobby.lobby_view(record())
    assert view is not None and view.timeout is None
    assert [item.custom_id for item in view.children] == [  # type: ignore[attr-defined]
        "warhost:lobby:join:7", "warhost:lobby:leave:7", "warhost:lobby:start:7",
        "warhost:lobby:addbot:7"]
    with_computer = lobby.lobby_view(record(seats=(A, "cpu-1")))
    assert with_computer is not None and [
        item.custom_id for item in with_computer.children][-2:] == [  # type: ignore[attr-defined]
        "warhost:lobby:addbot:7", "warhost:lobby:dropbot:7"]
    assert lobby.lobby_view(record("active")) is None
    assert lobby.lobby_view(record("aborted")) is None


def test_lobby_embed_lists_seats_and_host() -> None:
    embed = lobby.lobby_embed(record(seats=(A, B)))
    assert embed.title is not None and "Conqueror" in embed.title and "#7" in embed.title
    fields = {f.name: f.value for f in embed.fields}
    assert fields["Seats (2/4)"] == f"1. <@{A}> (host)\n2. <@{B}>"
    assert fields["Players"] == "2-4"
    assert embed.footer.text is not None and "third seat" in embed.footer.text
    assert "Join" in (embed.description or "")


def test_lobby_embed_after_start_and_abort() -> None:
    assert "started" in (lobby.lobby_embed(record("active", (A, B, C))).description or "")
    assert "aborted" in (lobby.lobby_embed(record("aborted", ())).description or "")
    fields = {f.name: f.value for f in lobby.lobby_embed(record("aborted", ())).fields}
    assert fields["Seats (0/4)"] == "Nobody yet."


# -- rules --------------------------------------------------------------------------------------


def test_quick_rules_are_the_subsections_of_that_section_only() -> None:
    text = ("# Game\n\nIntro.\n\n## Quick rules\n\n### Goal\nWin it.\n\n### Turn\n"
            "- move\n- end\n\n## Details\n\n### Not this\nLong.")
    assert g.quick_rules(text) == [("Goal", "Win it."), ("Turn", "- move\n- end")]
    assert g.quick_rules("# Game\n\nNo such section.") == []


def test_rules_of_every_game_are_for_players_and_fit_discord() -> None:
    for kind, game in engine.GAMES.items():
        text = (g.DOCS / f"{kind}.md").read_text(encoding="utf-8")
        sections = g.quick_rules(text)
        assert len(sections) >= 4, f"{kind} has no Quick rules section for /game rules"
        embed = g.rules_embed(game, text)
        data = embed.to_dict()
        shown = str(data)
        total = len(embed.title or "") + len(embed.description or "") + sum(
            len(f.name or "") + len(f.value or "") for f in embed.fields)
        assert total <= 6000 and len(embed.fields) <= 25
        assert all(len(f.value or "") <= 1024 and len(f.name or "") <= 256
                   for f in embed.fields)
        assert len(embed.fields) == len(sections) + (1 if game.options else 0)
        for body in (b for _, b in sections):
            assert not any(line.lstrip().startswith("|") for line in body.splitlines()), kind
        for path_like in ("engine/", "cogs/", "render/", "docs/", "shared/", ".py", ".md",
                          ".toml", ".txt", "](", "Rulings Warhost adds"):
            assert path_like not in shown, (kind, path_like)
        assert "/play" in shown


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


# -- game options ------------------------------------------------------------------------------


def _race() -> engine.Game:  # type: ignore[type-arg]
    try:
        from tests.fakegame import GAME
    except ImportError:
        from fakegame import GAME  # type: ignore[no-redef]
    return GAME


def optioned() -> engine.Game:  # type: ignore[type-arg]
    """A game with options of every shape: int choices, free int, bool, free text."""
    base = type(_race())

    class Optioned(base):  # type: ignore[valid-type, misc]
        name = "Optioned"
        options = (
            engine.Option("size", 10, "Board size.", (10, 8)),
            engine.Option("forward_bonus", 30, "Credits for moving forward.", (30, 40)),
            engine.Option("turns", 50, "Turn limit."),
            engine.Option("fog", False, "Hide the board."),
            engine.Option("map", "plain", "Map name."),
        )

    return Optioned()


def test_parse_options_defaults_when_empty() -> None:
    game = optioned()
    defaults = {"size": 10, "forward_bonus": 30, "turns": 50, "fog": False, "map": "plain"}
    assert lobby.parse_options(game, None) == defaults
    assert lobby.parse_options(game, "") == defaults
    assert lobby.parse_options(game, "   ") == defaults
    assert lobby.parse_options(engine.get_game("conqueror"), None) == {}


def test_parse_options_reads_pairs_of_every_shape() -> None:
    game = optioned()
    parsed = lobby.parse_options(game, "size=8 Forward-Bonus = 40, turns:12 fog=yes map=Hills")
    assert parsed == {"size": 8, "forward_bonus": 40, "turns": 12, "fog": True, "map": "Hills"}
    assert isinstance(parsed["size"], int)
    assert lobby.parse_options(game, "fog=off")["fog"] is False
    assert lobby.parse_options(_race(), "target=5") == {"target": 5}


@pytest.mark.parametrize(("text", "message"), [
    ("size=9", "must be one of: 10, 8"),
    ("size=big", "must be one of: 10, 8"),
    ("colour=red", "no option called `colour`"),
    ("size", "name=value"),
    ("size=", "name=value"),
    ("=8", "name=value"),
    ("turns=many", "must be a number"),
    ("fog=maybe", "must be yes or no"),
    ("size=8 size=10", "given twice"),
])
def test_parse_options_refuses_clearly(text: str, message: str) -> None:
    with pytest.raises(engine.IllegalAction, match=re.escape(message)):
        lobby.parse_options(optioned(), text)


def test_parse_options_of_a_game_without_options() -> None:
    conqueror = engine.get_game("conqueror")
    with pytest.raises(engine.IllegalAction, match="no option called `size`"):
        lobby.parse_options(conqueror, "size=8")
    with pytest.raises(engine.IllegalAction, match="has no options"):
        lobby.parse_options(conqueror, "fast")


def test_parse_options_of_every_real_game_accepts_every_choice() -> None:
    for game in engine.GAMES.values():
        for option in game.options:
            for choice in option.choices or (option.default,):
                parsed = lobby.parse_options(game, f"{option.name}={choice}")
                assert parsed[option.name] == choice


def test_option_suggestions_complete_the_last_word() -> None:
    game = optioned()
    values = [v for _, v in lobby.option_suggestions(game, "")]
    assert values[:4] == ["size=10", "size=8", "forward_bonus=30", "forward_bonus=40"]
    assert "turns=50" in values and "fog=False" in values and "map=plain" in values
    assert [v for _, v in lobby.option_suggestions(game, "forw")] == [
        "forward_bonus=30", "forward_bonus=40"]
    # what is typed stays; options already given are not offered again
    after = [v for _, v in lobby.option_suggestions(game, "size=8 ")]
    assert after[:2] == ["size=8 forward_bonus=30", "size=8 forward_bonus=40"]
    assert not any(v.count("size=") > 1 for v in after)
    assert [v for _, v in lobby.option_suggestions(game, "size=8 bonus=4")] == [
        "size=8 forward_bonus=40"]
    assert lobby.option_suggestions(game, "💥" * 50) == []
    assert lobby.option_suggestions(engine.get_game("conqueror"), "") == []


def test_option_suggestion_labels_explain_and_fit() -> None:
    labels = dict((v, label) for label, v in lobby.option_suggestions(optioned(), ""))
    assert labels["size=10"] == "size=10 — Board size. (default)"
    assert labels["size=8"] == "size=8 — Board size."
    long = lobby.option_suggestions(optioned(), "map=plain " * 20)
    assert all(len(label) <= 100 for label, _ in long)
    assert len(lobby.option_suggestions(optioned(), "", limit=3)) == 3


def test_every_suggestion_parses() -> None:
    game = optioned()
    for _, value in lobby.option_suggestions(game, ""):
        lobby.parse_options(game, value)


def test_lobby_embed_shows_the_options(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(engine.GAMES, "race", _race())
    opened = record(kind="race")
    embed = lobby.lobby_embed(GameRecord(**{**opened.__dict__, "options": {"target": 5}}))
    fields = {f.name: f.value for f in embed.fields}
    assert fields["Options"] == "`target=5` (default 20) — Score needed to win."
    plain = {f.name for f in lobby.lobby_embed(record()).fields}
    assert "Options" not in plain                                  # Conqueror has none


def test_options_lines_and_reference() -> None:
    game = optioned()
    lines = wording.options_lines(game, {"size": 8})
    assert lines[0] == "`size=8` (default 10) — Board size."
    assert lines[1] == "`forward_bonus=30` — Credits for moving forward."
    ref = lobby.options_reference(game)
    assert ref[0] == "`size=10|8` (default 10) — Board size."
    assert ref[2] == "`turns=…` (default 50) — Turn limit."


def test_rules_embed_keeps_the_options_whole() -> None:
    embed = g.rules_embed(optioned(), "# Game\n\n## Quick rules\n\n### Goal\nWin.\n")
    [goal, options] = embed.fields
    assert goal.name == "Goal" and options.value == "\n".join(lobby.options_reference(optioned()))
    plain = g.rules_embed(engine.get_game("conqueror"), "")
    assert [f.name for f in plain.fields] == ["The game"]   # no Quick rules: the summary


async def test_help_is_written_from_every_registered_command() -> None:
    import discord
    from discord.ext import commands

    from cogs import help as help_cog
    from cogs.verbs import GameCommands

    bot = commands.Bot(command_prefix="!", intents=discord.Intents.none())
    await bot.add_cog(g.GameCog(bot))
    await bot.add_cog(GameCommands(bot))
    await bot.add_cog(help_cog.HelpCog(bot))
    roots = bot.tree.get_commands()
    text = help_cog.help_text(roots)
    assert len(text) <= 1900 and text.startswith("**Warhost**")
    for name in ("/conqueror", "/liege", "/battlecards", "/hand", "/play", "/help",
                 *(f"/{k}" for k in engine.GAMES)):
        assert f"**{name}**" in text
    game_line = next(line for line in text.splitlines() if line.startswith("**/game**"))
    for sub in ("new", "seat", "hint", "back", "follow", "unfollow", "undo", "abort"):
        assert f" {sub}" in game_line       # every /game subcommand, none written by hand
    assert text.index("**/game**") < text.index("**/play**") < text.index("**/help**")
    embed = help_cog.help_embed(roots)
    embeds = [embed, *(help_cog.help_embed(roots, about=name)
                       for name in help_cog.group_names(roots))]
    described = "\n".join(str(f.value) for e in embeds for f in e.fields)
    for root in roots:
        for leaf in help_cog.leaves(root):
            if leaf.parent is not None:
                assert f"`/{leaf.qualified_name}` — {leaf.description}" in described
    assert all(len(e) <= 6000 and all(len(str(f.value)) <= 1024 for f in e.fields)
               for e in embeds)
    assert help_cog.help_text([]).startswith("**Warhost**")     # nothing registered: intro


# -- /game export and the lobby's dice --------------------------------------------------------


def test_a_large_record_is_sent_gzipped_and_a_huge_one_refused(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import gzip
    import json

    game = record("active", (A,), "liege")
    data = {"format": "warhost-record", "actions": ["x" * 100] * 50}
    small, size = g.record_file(game, data)
    assert small is not None and small.filename == f"warhost-liege-{game.id}.json"
    monkeypatch.setattr(g, "EXPORT_PLAIN_LIMIT", size - 1)
    packed, packed_size = g.record_file(game, data)
    assert packed is not None and packed.filename.endswith(".json.gz")
    assert json.loads(gzip.decompress(packed.fp.read())) == data and packed_size < size
    monkeypatch.setattr(g, "EXPORT_LIMIT", packed_size - 1)
    assert g.record_file(game, data) == (None, packed_size)


def test_the_lobby_shows_the_commitment_never_the_secret() -> None:
    dice = {"scheme": "warhost-dice-1", "seed": "5e" * 32, "salt": "a1" * 16,
            "commitment": "c0" * 32}
    import json

    shown = lobby.lobby_embed(GameRecord(**{**record("lobby", (A,), "liege").__dict__,
                                            "dice": dice})).to_dict()
    text = json.dumps(shown)
    assert "c0" * 32 in text and "5e" * 32 not in text and "a1" * 16 not in text
    over = wording.dice_text(dice, revealed=True)
    assert "5e" * 32 in over and "a1" * 16 in over
    assert "not committed" in wording.dice_text({}, revealed=True)
