"""The Battlecards card set: composition invariants and the generated doc tables."""

from __future__ import annotations

import copy
import tomllib
from collections import Counter
from pathlib import Path

import pytest

from engine.battlecards import cards as c

DOC = Path(__file__).resolve().parents[1] / "docs" / "games" / "battlecards.md"
DATA = Path(c.__file__).resolve().parent / "data"


def test_deck_sizes_and_action_numbers():
    assert len(c.CONFLICT) == 50
    assert len(c.ARSENAL["german"]) == 47 and len(c.ARSENAL["british"]) == 47
    assert Counter(x.action_number for x in c.CONFLICT) == {n: 5 for n in range(1, 11)}


def test_battlecards_total_75_and_include_both_total_victories():
    assert 12 <= len(c.BATTLES) <= 16
    assert sum(b.vp for b in c.BATTLES) == 75 and c.VICTORY_TARGET == 38
    tv = {b.name: b.aggressor for b in c.BATTLES if b.total_victory}
    assert tv == {"Invasion of Britain": "german", "Battle for Germany": "british"}
    assert "Battlecard List" not in {x.name for x in c.CONFLICT}


def test_units_leaders_and_names():
    for side in c.SIDES:
        leaders = [u.name for u in c.ARSENAL[side] if u.type == "leader"]
        assert leaders and len(set(leaders)) == len(leaders)
        for u in c.ARSENAL[side]:
            assert u.phases and set(u.phases) <= {1, 2, 3, 4}
            assert set(u.attack) == set(u.defense) == set(c.FORCES)
            assert {u.type, u.stack} <= {*c.FORCES, "leader"}
    names = [x.name for x in c.CONFLICT] + [u.name for s in c.SIDES for u in c.ARSENAL[s]]
    assert len(set(names)) == len(names)


def _raw(name):
    return tomllib.loads((DATA / name).read_text("utf-8"))


@pytest.mark.parametrize("breakage,match", [
    (lambda d: d["card"].pop(), "49 cards"),
    (lambda d: d["card"][30].update(action_number=1), "exactly five"),
    (lambda d: d["card"][0].update(vp=7), "total 75"),
    (lambda d: d["card"][0].update(forces=["space"]), "forces"),
])
def test_bad_conflict_data_is_refused(breakage, match):
    data = copy.deepcopy(_raw("conflict.toml"))
    breakage(data)
    with pytest.raises(c.CardDataError, match=match):
        c.load_conflict(data)


def test_bad_arsenal_data_is_refused():
    data = _raw("arsenal_german.toml")
    broken = copy.deepcopy(data)
    broken["card"].pop()
    with pytest.raises(c.CardDataError, match="46 cards"):
        c.load_arsenal(broken, "german")
    broken = copy.deepcopy(data)
    leader = next(x for x in broken["card"] if x["type"] == "leader")
    broken["card"][0] = dict(leader, id="G01")
    with pytest.raises(c.CardDataError, match="leader appears twice"):
        c.load_arsenal(broken, "german")


def test_the_doc_tables_match_the_generator():
    text = DOC.read_text("utf-8")
    start, end = "<!-- cards:begin -->\n", "<!-- cards:end -->"
    assert start in text and end in text
    embedded = text.split(start, 1)[1].split(end, 1)[0]
    assert embedded == c.markdown(), (
        "docs/games/battlecards.md is out of date: paste the output of "
        "`python -m engine.battlecards.cardlist` between the markers")
