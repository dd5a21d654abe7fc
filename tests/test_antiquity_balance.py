"""Antiquity's balance simulation runs at every player count (a few games each; the full
study is in docs/games/antiquity.md, made with ``python -m engine.antiquity.simulate``)."""

from __future__ import annotations

import pytest

from engine.antiquity import GAME
from engine.antiquity import constants as C
from engine.antiquity.ai import choose_action
from engine.antiquity.simulate import main, play, report, run


@pytest.mark.parametrize("players", [2, 3, 4, 5, 6])
def test_games_between_automatic_players_end(players: int) -> None:
    tally = run(players, 3, first_seed=players * 100)
    s = tally.summary()
    assert s["games"] == 3
    assert sum(s["endings"].values()) == 3
    assert sum(s["seat_wins"]) == pytest.approx(3)   # every game has its winner(s)
    assert all(1 <= r <= C.ROUNDS for r in tally.rounds)
    assert all(t >= r for t, r in zip(tally.turns, tally.rounds, strict=True))
    assert set(s["personalities"]) <= {"king", "citizen", "scholar", "navigator", "general"}


def test_the_round_limit_option_reaches_the_games() -> None:
    game = play(3, 7, rounds=min(C.ROUND_CHOICES))
    assert game.rounds <= min(C.ROUND_CHOICES)
    assert game.ending in ("rounds", "target")
    assert game.winners


def test_the_automatic_player_only_plays_legal_actions() -> None:
    state = GAME.new_game(["a", "b", "c", "d"], 11)
    for _ in range(400):
        acting = GAME.to_act(state)
        if not acting:
            break
        action = choose_action(GAME, state, acting[0])
        assert action in GAME.legal_actions(state, acting[0])
        state, _ = GAME.apply(state, acting[0], action)


def test_the_report_names_every_figure(capsys: pytest.CaptureFixture[str]) -> None:
    text = report([2], 2, first_seed=5)
    for word in ("2 players: 2 games", "rounds average", "median", "turns average",
                 "wins by seat", "seat 1", "seat 2", "wins by nation", "ended:",
                 "personalities per game", "king", "scholar"):
        assert word in text
    main(["--players", "3", "--games", "1", "--seed", "2"])
    assert "3 players: 1 games" in capsys.readouterr().out
