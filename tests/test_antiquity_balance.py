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


# -- the map properties the balance pass rests on (docs/games/antiquity.md, "Balance") ---------

def _early_sites(nation: str, n: int) -> list[str]:
    """Empty sites (no home of a nation in play) one land step from one of ``nation``'s
    homes, or on the shore of a shallow sea on a home's coast: what it can found without
    know-how in its first Maneuvers. The simulation's figures were made with these."""
    from engine.antiquity import board as B

    taken = {h for other in B.nations_in_play(n) for h in B.NATIONS[other].home}
    near: set[str] = set()
    for home in B.NATIONS[nation].home:
        near.update(B.neighbours(home, n))
        for sea in B.coasts(home, n):
            if not B.SEAS[sea].deep:
                near.update(B.shore(sea, n))
    return [p for p in B.provinces_in_play(n) if p in near and p not in taken]


def test_the_map_keeps_the_rulings_shape() -> None:
    from engine.antiquity import board as B

    assert len(B.PROVINCES) == 34 and len(B.SEAS) == 13
    assert {p.resource for p in B.PROVINCES.values()} == {"marble", "iron", "gold"}
    assert [s for s in B.SEA_ORDER if B.SEAS[s].deep] == [
        "atlanticus", "ionium", "libycum", "carpathium"]
    for nation in B.NATIONS.values():
        assert sorted(B.PROVINCES[h].resource for h in nation.home) == ["gold", "iron", "marble"]
    assert [len(B.provinces_in_play(n)) for n in range(2, 7)] == [17, 23, 28, 30, 34]
    assert [len(B.seas_in_play(n)) for n in range(2, 7)] == [8, 10, 12, 13, 13]


def test_the_egyptian_corner_is_no_longer_a_fortress_with_one_door() -> None:
    from engine.antiquity import board as B

    # Judaea joins with the Egyptians (a second marble site behind Sinai, theirs alone at 4
    # players; at 5 too: the Phoenicians, whose home it is, play only at 6) and Cyprus only
    # with the sixth nation
    assert (B.PROVINCES["judaea"].players, B.PROVINCES["cyprus"].players) == (4, 6)
    assert B.PROVINCES["judaea"].resource == "marble"
    assert _early_sites("egyptians", 4) == ["marmarica", "judaea"]
    assert _early_sites("egyptians", 5) == ["marmarica", "cilicia", "judaea"]
    # gold on the coast at Sinai (on Mare Syriacum from 5 players), iron at Alexandreia
    assert [B.PROVINCES[p].resource for p in ("aegyptus", "thebais", "sinai")] == [
        "iron", "marble", "gold"]


WEST = {"romans": ["narbonensis", "cisalpina", "apulia", "sardinia", "sicilia"],
        "carthaginians": ["baetica", "tarraconensis", "narbonensis", "mauretania", "sardinia",
                          "sicilia", "cyrenaica"]}
EARLY = {
    2: {**WEST, "carthaginians": WEST["carthaginians"][:-1]},
    3: {**WEST, "greeks": ["illyria", "thracia", "creta"]},
    4: {**WEST, "greeks": ["illyria", "thracia", "creta"], "egyptians": ["marmarica", "judaea"]},
    5: {**WEST, "carthaginians": ["narbonensis", "mauretania", "sardinia", "sicilia", "cyrenaica"],
        "greeks": ["illyria", "thracia", "creta", "asia"],
        "egyptians": ["marmarica", "cilicia", "judaea"],
        "iberians": ["celtiberia", "narbonensis", "mauretania"]},
    6: {**WEST, "carthaginians": ["narbonensis", "mauretania", "sardinia", "sicilia", "cyrenaica",
                                  "baleares"],
        "greeks": ["illyria", "thracia", "creta", "asia"],
        "egyptians": ["marmarica", "cilicia", "cyprus"], "phoenicians": ["cilicia", "cyprus"],
        "iberians": ["celtiberia", "narbonensis", "mauretania", "baleares"]},
}


def test_the_iberians_play_at_5_players_and_the_phoenicians_only_at_6() -> None:
    from engine.antiquity import board as B

    assert B.nations_in_play(5) == ("romans", "carthaginians", "greeks", "egyptians",
                                    "iberians")
    assert B.nations_in_play(6)[-1] == "phoenicians"
    # the Phoenician corner (Phoenicia, Syria) joins with its nation, and with it Cyprus;
    # Asia, Cilicia and Mare Syriacum are free at 5 players
    assert [B.region_players(r) for r in ("phoenicia", "syria", "cyprus", "asia", "cilicia",
                                          "syriacum")] == [6, 6, 6, 5, 5, 5]
    # Massalia is the one marble site within the Iberians' reach (their home has Tarraco)
    assert B.PROVINCES["narbonensis"].resource == "marble"


def test_the_balearic_isles_give_the_west_a_contested_site_only_at_6_players() -> None:
    from engine.antiquity import board as B

    # at 6 players the Iberians' corner, reached only by the Romans and the Carthaginians,
    # won 1.49 times its share; an island on the Iberians' shallow sea that the
    # Carthaginians reach as early as they do brought the largest ratio to 1.23x over
    # 3000 games (docs/games/antiquity.md, "The Balearic isles at 6 players")
    baleares = B.PROVINCES["baleares"]
    assert (baleares.players, baleares.resource, baleares.coasts) == (6, "gold", ("balearicum",))
    assert B.neighbours("baleares", 6) == ()
    assert not B.SEAS["balearicum"].deep
    assert all("baleares" not in B.provinces_in_play(n) for n in range(2, 6))
    assert "baleares" in B.shore("balearicum", 6) and "baleares" not in B.shore("balearicum", 5)
    contested = [n for n in B.nations_in_play(6) if "baleares" in _early_sites(n, 6)]
    assert contested == ["carthaginians", "iberians"]


@pytest.mark.parametrize("n", sorted(EARLY))
def test_each_home_reaches_the_free_sites_the_balance_figures_were_made_with(n: int) -> None:
    from engine.antiquity import board as B

    assert {nation: _early_sites(nation, n) for nation in B.nations_in_play(n)} == EARLY[n]
