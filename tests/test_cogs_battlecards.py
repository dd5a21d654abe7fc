"""cogs/battlecards.py (notation, choices derived from legal actions and the caller's own
view, /hand, private narration, decision prompts) and the generic hooks it uses in
cogs/wording.py (private narration per game, decision prompts made from the public view)."""

from __future__ import annotations

from functools import partial
from typing import Any

import discord
import pytest
from discord.ext import commands

from cogs import battlecards as bc
from cogs import wording
from cogs.verbs import GameCommands, completers
from engine import IllegalAction
from engine.battlecards import GAME
from engine.battlecards.ai import choose_action
from engine.battlecards.cards import ARSENAL, CONFLICT, SIDES
from engine.battlecards.notation import VERBS
from engine.verbs import notation

A, B = "111111111111111111", "222222222222222222"

N = partial(notation, VERBS)


# -- generic hooks in cogs/wording.py------------------------------------------------------------


class Deciding:
    """A stand-in game where B must decide something during A's turn."""

    kind = "deciding-bc"

    def __init__(self, phase: str = "decide") -> None:
        self.phase = phase

    def outcome(self, state: object) -> None:
        return None

    def to_act(self, state: object) -> list[str]:
        return [B]

    def current_turn(self, state: object) -> str:
        return A

    def view(self, state: object, player: str | None) -> dict[str, object]:
        return {"round": 3, "phase": self.phase, "prompt": "Attack in Dunkirk or decline",
                "secret": "never" if player is None else "SECRET"}

    def legal_actions(self, state: object, player: str) -> list[str]:
        return ["attack", "decline"] if player == B else []

    def players(self, state: object) -> list[str]:
        return [A, B]

    def narrate(self, events: list[dict[str, Any]], names: dict[str, str]) -> list[str]:
        return [f"public {e['type']}" for e in events if "private_to" not in e]


def test_a_decision_prompt_can_be_made_from_the_public_view(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wording, "DECISION_PROMPTS", {})
    seen: list[Any] = []

    def prompt(view: Any) -> str:
        seen.append(view)
        return f"{view['prompt']} with `/play`"

    wording.register_decision("deciding-bc", "decide", prompt)
    text, ping = wording.next_up_line(Deciding(), None)  # type: ignore[arg-type]
    assert ping == [B]
    assert text == (f"Round 3 — <@{B}>: Attack in Dunkirk or decline with `/play` — "
                    "`attack`, `decline`.")
    assert [v["secret"] for v in seen] == ["never"]          # only ever the public view


def test_a_failing_prompt_falls_back_to_the_views_own_prompt(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wording, "DECISION_PROMPTS", {})
    wording.register_decision("deciding-bc", "decide", lambda view: view["missing"])
    text, _ = wording.next_up_line(Deciding(), None)  # type: ignore[arg-type]
    assert "attack in Dunkirk or decline; use `/play`" in text


def test_private_narration_is_per_game_and_defaults_to_the_game(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(wording, "PRIVATE_NARRATORS", {})
    game = Deciding()
    events = [{"type": "card", "card": "ace"}]
    assert wording.private_lines(game, A, events) == ["public card"]  # type: ignore[arg-type]
    wording.register_private_narration(
        "deciding-bc", lambda evs, names: [f"{names[A]} holds {e['card']}" for e in evs])
    assert wording.private_lines(game, A, events) == [  # type: ignore[arg-type]
        f"<@{A}> holds ace"]


# -- notation -------------------------------------------------------------------------------------

UNIT_NAMES = {u.name for s in SIDES for u in ARSENAL[s]}
KEPT_NAMES = {c.name for c in CONFLICT if c.kind == "keep"}


def test_notation_builders() -> None:
    assert N("deploy", " 2 ") == "deploy 2"
    assert N("deploy", "2 · Spitfire Squadron (Air → Air stack)") == "deploy 2"
    assert N("scout", "Ground") == "scout ground"
    assert N("fire", "G1", "a2") == "fire g1 a2"
    assert N("fire", "g1 · Panzer IV", "a2 · Spitfire") == "fire g1 a2"
    assert N("support", "s1", "g1") == "support s1 g1"
    assert N("play", "1 · Radar: +2", "g2") == "play 1 g2"
    assert N("withdraw", "A1") == "withdraw a1"
    assert N("autofire", "ON") == "autofire on"
    assert N("autofire", "no") == "autofire off"


def test_garbage_is_passed_on_for_the_engine_to_refuse() -> None:
    assert N("deploy", "panzer") == "deploy panzer"
    assert N("fire", "x9", "g1 g2") == "fire x9 g1 g2"      # inner spaces kept: refused
    state = GAME.new_game([A, B], 1)
    for action in ("deploy panzer", "fire x9 g1 g2", "withdraw 🙂"):
        with pytest.raises(IllegalAction):
            GAME.apply(state, A, action)
    assert N("withdraw", "🙂") == "withdraw 🙂"


LEGAL = ["deploy 1", "deploy 3", "done", "fire g1 a1", "fire g1 a2", "fire a1 a2",
         "support s1 g1", "support s1 a1", "play 1 g1", "play 2 a1", "withdraw g2",
         "stay", "autofire off"]


def test_firsts_and_seconds() -> None:
    assert bc.firsts(LEGAL, "deploy") == ["1", "3"]
    assert bc.firsts(LEGAL, "fire") == ["g1", "a1"]
    assert bc.seconds(LEGAL, "fire", "g1") == ["a1", "a2"]
    assert bc.seconds(LEGAL, "fire", "g1 · Panzer IV") == ["a1", "a2"]
    assert bc.seconds(LEGAL, "fire", None) == ["a1", "a2"]
    assert bc.seconds(LEGAL, "support", "s1") == ["g1", "a1"]
    assert bc.seconds(LEGAL, "play", "2 · Radar") == ["a1"]
    assert bc.firsts(LEGAL, "withdraw") == ["g2"]
    assert bc.firsts([], "fire") == [] and bc.seconds(LEGAL, "fire", "s9") == []


# -- against the real engine ---------------------------------------------------------------------


def _games(count: int = 4) -> list[list[Any]]:
    """Computer-played games (every state with someone to act), some with auto-fire off."""
    played = []
    for seed in range(count):
        state = GAME.new_game([A, B], seed)
        states = []
        step = 0
        while GAME.outcome(state) is None and step < 1500:
            states.append(state)
            player = GAME.to_act(state)[step % len(GAME.to_act(state))]
            if seed % 2 and step < 2:
                action = "autofire off"
            else:
                action = choose_action(GAME, state, player)
            state, _ = GAME.apply(state, player, action)
            step += 1
        played.append(states)
    return played


GAMES = _games()


def rebuild(legal: list[str]) -> set[str]:
    """Every action the friendly commands can build from choices derived from ``legal``."""
    built = {N("deploy", s) for s in bc.firsts(legal, "deploy")}
    built |= {N("withdraw", u) for u in bc.firsts(legal, "withdraw")}
    built |= {N("scout", f) for f in bc.FORCES if f"scout {f}" in legal}
    for verb, build in (("fire", partial(N, "fire")), ("support", partial(N, "support")),
                        ("play", partial(N, "play"))):
        for first in bc.firsts(legal, verb):
            built |= {build(first, second) for second in bc.seconds(legal, verb, first)}
    built |= {N("autofire", s) for s in ("on", "off") if f"autofire {s}" in legal}
    return built | {a for a in ("draw", "emergency", "done", "attack", "decline",
                                "pass", "stay") if a in legal}


def test_the_commands_build_exactly_the_legal_actions_of_real_games() -> None:
    checked = set()
    for states in GAMES:
        for state in states:
            for player in GAME.to_act(state):
                legal = GAME.legal_actions(state, player)
                assert rebuild(legal) == set(legal)
                checked |= {a.split()[0] for a in legal}
    assert {"deploy", "draw", "attack", "fire", "withdraw", "stay", "done"} <= checked


def test_slot_labels_come_only_from_the_callers_own_view() -> None:
    labelled = 0
    for states in GAMES[:2]:
        for state in states:
            for player in GAME.to_act(state):
                other = B if player == A else A
                legal = GAME.legal_actions(state, player)
                mine = GAME.view(state, player)
                hand = [c["name"] for c in bc.player_entry(mine, player)["hand"]]  # type: ignore
                kept = [c["name"] for c in bc.player_entry(mine, player)["kept"]]  # type: ignore
                for label, slot in bc.hand_labels(bc.firsts(legal, "deploy"), mine, player):
                    assert label.startswith(f"{slot} · {hand[int(slot) - 1]} (")
                    labelled += 1
                for label, slot in bc.kept_labels(bc.firsts(legal, "play"), mine, player):
                    assert label.startswith(f"{slot} · {kept[int(slot) - 1]}: ")
                # anyone else's view, or the public one, labels nothing
                for view in (GAME.view(state, other), GAME.view(state, None)):
                    for label, slot in bc.hand_labels(bc.firsts(legal, "deploy"), view, player):
                        assert label == f"slot {slot}"
                    for label, slot in bc.kept_labels(bc.firsts(legal, "play"), view, player):
                        assert label == f"kept card {slot}"
                # and the caller's own view never labels someone else's slots
                assert all(label.startswith("slot ")
                           for label, _ in bc.hand_labels(bc.firsts(legal, "deploy"), mine, other))
    assert labelled > 20


def test_battle_units_are_labelled_with_their_public_names() -> None:
    for states in GAMES:
        for state in states:
            view = GAME.view(state, None)
            if view["battle"] is None:
                continue
            [player] = GAME.to_act(state)
            enemy = bc.opponent_of(view, player)
            units = {(u["owner"], u["ref"]): u["card"]["name"] for u in view["battle"]["units"]}
            legal = GAME.legal_actions(state, player)
            for verb in ("fire", "withdraw", "support"):
                for label, ref in bc.unit_labels(bc.firsts(legal, verb), view, player):
                    assert label == f"{ref} · {units[(player, ref)]}"
            for first in bc.firsts(legal, "fire"):
                for label, ref in bc.unit_labels(bc.seconds(legal, "fire", first), view,
                                                 enemy):
                    assert label == f"{ref} · {units[(enemy, ref)]}"
            return
    pytest.fail("no battle in these games")


# -- /hand ----------------------------------------------------------------------------------------


def test_hand_embed_shows_the_callers_cards_only() -> None:
    state = GAME.new_game([A, B], 3)
    state, _ = GAME.apply(state, A, "deploy 1")
    mine = GAME.view(state, A)
    entry = bc.player_entry(mine, A)
    assert entry is not None
    embed = bc.hand_embed(mine, A)
    assert embed is not None
    text = embed.description + "".join(f.name + f.value for f in embed.fields)  # type: ignore
    for i, card in enumerate(entry["hand"], 1):
        assert f"`{i}` **{card['name']}**" in text
    [deployed] = [c for cards in entry["stack_cards"].values() for c in cards]
    assert f"**{deployed['name']}**" in text
    theirs = {c["name"] for c in bc.player_entry(GAME.view(state, B), B)["hand"]}  # type: ignore
    assert not any(name in text for name in theirs - {c["name"] for c in entry["hand"]}
                   - {deployed["name"]})
    assert bc.hand_embed(mine, B) is None                 # not B's own view
    assert bc.hand_embed(GAME.view(state, None), A) is None
    assert bc.hand_embed(GAME.view(state, B), A) is None


def test_a_huge_hand_fits_discords_embed_limits() -> None:
    card = {"name": "X" * 40, "type": "leader", "stack": "ground", "phases": [1, 2, 3, 4],
            "attack": {"ground": 10, "air": None, "sea": 9},
            "defense": {"ground": 10, "air": 10, "sea": 10},
            "support": {"bonus": 3, "to": ["ground", "air", "sea"], "text": "…"}}
    kept = {"name": "K" * 40, "text": "T" * 200}
    view = {"viewer": A, "players": [{"id": A, "side": "german", "hand": [card] * 47,
                                      "stack_cards": {f: [card] * 47 for f in bc.FORCES},
                                      "kept": [kept] * 20}]}
    embed = bc.hand_embed(view, A)
    assert embed is not None
    assert len(embed) <= 6000 and len(embed.description or "") <= 4096
    assert all(len(f.value) <= 1024 and len(f.name) <= 256 for f in embed.fields)  # type: ignore
    assert "more" in (embed.description or "")


def test_unit_stats() -> None:
    card = {"type": "air", "stack": "air", "phases": [1, 3],
            "attack": {"ground": 7, "air": None, "sea": 2},
            "defense": {"ground": 4, "air": 3, "sea": 2},
            "support": {"bonus": 2, "to": ["ground"]}}
    assert bc.unit_stats(card) == ("Air · phases 1,3 · atk 7/–/2 · def 4/3/2 · "
                                   "support +2 Ground")
    assert bc.unit_stats({**card, "type": "leader", "stack": "sea", "support": None}
                         ).startswith("Leader, Sea stack · ")


# -- private narration and decisions ------------------------------------------------------------


def test_private_events_are_told_to_their_player_by_the_registered_narrator() -> None:
    assert wording.PRIVATE_NARRATORS[bc.KIND] is bc.private_narration
    seen = set()
    for states in GAMES:
        for before in states:
            for player in GAME.to_act(before):
                action = choose_action(GAME, before, player)
                _, events = GAME.apply(before, player, action)
                for recipient, private in wording.private_events_for(events).items():
                    lines = wording.private_lines(GAME, recipient, private)
                    assert lines and lines[-1] == "`/hand` shows all your cards."
                    assert len(lines) == len(private) + 1
                    seen |= {e["type"] for e in private}
                break
    assert {"deployed_card", "arsenal_cards"} <= seen
    lines = bc.private_narration([{"type": "scout_report", "stack": "sea", "cards": []},
                                  {"type": "kept_card", "card": "Radar", "text": "+2"},
                                  {"type": "unknown"}], {})
    assert lines == ["The enemy Sea stack is empty.",
                     "You keep **Radar**: +2 (play it in a battle with `/battlecards play`).",
                     "`/hand` shows all your cards."]
    assert bc.private_narration([{"type": "deployed"}], {}) == []


def test_off_turn_decisions_name_the_player_and_what_to_decide() -> None:
    phases = set()
    for states in GAMES:
        for state in states:
            acting = GAME.to_act(state)
            if acting == [GAME.current_turn(state)]:
                continue
            text, ping = wording.next_up_line(GAME, state)
            assert ping == acting
            public = GAME.view(state, None)
            assert public["prompt"][1:].rstrip(".") in text
            assert "/battlecards" in text
            for name in UNIT_NAMES | KEPT_NAMES:     # a prompt never names a private card
                if name in text:
                    assert name in str(public)
            phases.add(public["phase"])
    assert {"setup", "decide"} <= phases


# -- the cogs ----------------------------------------------------------------------------------


def _bot() -> commands.Bot:
    return commands.Bot(command_prefix="!", intents=discord.Intents.none())


def test_cog_commands() -> None:
    cog = GameCommands(_bot())
    group = cog.groups["battlecards"]
    assert group.name == "battlecards"
    assert sorted(c.name for c in group.commands) == [
        "attack", "autofire", "decline", "deploy", "done", "draw", "emergency", "fire",
        "hand", "pass", "play", "scout", "stay", "support", "withdraw"]

    def params(name: str) -> dict[str, Any]:
        command = group.get_command(name)
        assert command is not None
        return {p.display_name: p for p in command.parameters}  # type: ignore[union-attr]

    for name, options in {"deploy": ["slot"], "fire": ["unit", "target"],
                          "support": ["supporter", "unit"], "play": ["kept", "unit"],
                          "withdraw": ["unit"]}.items():
        found = params(name)
        assert sorted(found) == sorted(options)
        for option in options:
            assert found[option].autocomplete, (name, option)
    assert [c.value for c in params("scout")["stack"].choices] == ["ground", "air", "sea"]
    assert [c.value for c in params("autofire")["setting"].choices] == ["on", "off"]
    [hand] = cog.get_app_commands()              # /hand, for every game with hands
    assert hand.name == "hand" and not hand.parameters  # type: ignore[union-attr]


async def test_every_autocomplete_answers_empty_instead_of_raising() -> None:
    from types import SimpleNamespace

    cog = GameCommands(_bot())
    broken = SimpleNamespace(client=SimpleNamespace(), channel_id=5,  # no store at all
                             user=SimpleNamespace(id=int(A)),
                             namespace=SimpleNamespace(unit="g1", kept="1", supporter="s1"))
    callbacks = list(completers(cog.groups["battlecards"]).values())
    assert len(callbacks) == 8
    for callback in callbacks:
        assert await callback(broken, "") == []
        assert await callback(broken, "💥" * 100) == []
