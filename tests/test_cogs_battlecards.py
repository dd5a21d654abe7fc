"""cogs/battlecards.py (notation, choices derived from legal actions and the caller's own
view, /hand, private narration, decision prompts) and the generic hooks it uses in
cogs/common.py (private narration per game, decision prompts made from the public view)."""

from __future__ import annotations

from typing import Any

import pytest

from cogs import common

A, B = "111111111111111111", "222222222222222222"


# -- generic hooks in cogs/common.py ------------------------------------------------------------


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

    def narrate(self, events: list[dict[str, Any]], names: dict[str, str]) -> list[str]:
        return [f"public {e['type']}" for e in events if "private_to" not in e]


def test_a_decision_prompt_can_be_made_from_the_public_view(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "DECISION_PROMPTS", {})
    seen: list[Any] = []

    def prompt(view: Any) -> str:
        seen.append(view)
        return f"{view['prompt']} with `/play`"

    common.register_decision("deciding-bc", "decide", prompt)
    text, ping = common.next_up_line(Deciding(), None)  # type: ignore[arg-type]
    assert ping == [B]
    assert text == (f"Round 3 — <@{B}>: Attack in Dunkirk or decline with `/play` — "
                    "`attack`, `decline`.")
    assert [v["secret"] for v in seen] == ["never"]          # only ever the public view


def test_a_failing_prompt_falls_back_to_the_generic_line(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "DECISION_PROMPTS", {})
    common.register_decision("deciding-bc", "decide", lambda view: view["missing"])
    text, _ = common.next_up_line(Deciding(), None)  # type: ignore[arg-type]
    assert "you must act now (decide)" in text


def test_private_narration_is_per_game_and_defaults_to_the_game(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(common, "PRIVATE_NARRATORS", {})
    game = Deciding()
    events = [{"type": "card", "card": "ace"}]
    assert common.private_lines(game, A, events) == ["public card"]  # type: ignore[arg-type]
    common.register_private_narration(
        "deciding-bc", lambda evs, names: [f"{names[A]} holds {e['card']}" for e in evs])
    assert common.private_lines(game, A, events) == [  # type: ignore[arg-type]
        f"<@{A}> holds ace"]
