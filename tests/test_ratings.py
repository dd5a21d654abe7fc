"""Ratings and statistics (db/standings.py, db/ratings.py): the rating arithmetic on small
cases checked by hand, the move that ends a game rating it, and a rebuild from the games
giving exactly the numbers the moves gave, on both backends."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

import engine
from db import Store
from db import standings as st
from db.clocks import TimeControl
from db.ratings import MIN_GAMES
from db.records import GameRecord
from db.standings import SeatResult
from engine.core import IllegalAction
from engine.ratings import DEFAULT_MU, DEFAULT_SIGMA
from tests.clocks import FakeClock
from tests.databases import raw

#: The Race test game (tests/fakegame.py): ``step 3`` to a target of 5 wins in two moves.
pytestmark = pytest.mark.usefixtures("race")
HOUR = 3600.0


def seat(index: int, player: str, place: int, won: bool = False) -> SeatResult:
    return SeatResult(index, player, "", place, won, 0, 0, 0.0)


# ---------------------------------------------------------------- the arithmetic


def test_a_win_raises_the_winner_and_lowers_the_loser_by_the_same_amount() -> None:
    new = st.rate({}, [seat(0, "a", 1, True), seat(1, "b", 2)])
    (mu_a, sigma_a), (mu_b, sigma_b) = new["a"], new["b"]
    assert mu_a > DEFAULT_MU > mu_b
    assert mu_a - DEFAULT_MU == pytest.approx(DEFAULT_MU - mu_b)
    assert sigma_a < DEFAULT_SIGMA and sigma_b < DEFAULT_SIGMA     # both better known
    assert 2.0 < mu_a - DEFAULT_MU < 3.5        # openskill's first step is about 2.6


def test_equal_players_who_draw_keep_their_mu() -> None:
    new = st.rate({"a": (30.0, 4.0), "b": (30.0, 4.0)},
                  [seat(0, "a", 1, True), seat(1, "b", 1, True)])
    assert new["a"][0] == pytest.approx(30.0) and new["b"][0] == pytest.approx(30.0)
    assert new["a"][1] < 4.0 + 0.1


def test_an_upset_moves_more_than_an_expected_result() -> None:
    strong, weak = (35.0, 3.0), (20.0, 3.0)
    expected = st.rate({"s": strong, "w": weak}, [seat(0, "s", 1, True), seat(1, "w", 2)])
    upset = st.rate({"s": strong, "w": weak}, [seat(0, "s", 2), seat(1, "w", 1, True)])
    assert upset["w"][0] - weak[0] > expected["s"][0] - strong[0] > 0


def test_a_four_player_finish_orders_the_changes_by_place() -> None:
    new = st.rate({}, [seat(0, "d", 4), seat(1, "b", 2), seat(2, "a", 1, True),
                       seat(3, "c", 3)])
    changes = {p: mu - DEFAULT_MU for p, (mu, _) in new.items()}
    assert changes["a"] > changes["b"] > changes["c"] > changes["d"]
    assert changes["a"] > 0 > changes["d"]


def test_one_identity_on_two_seats_gets_the_mean_of_both() -> None:
    new = st.rate({}, [seat(0, "computer:hard", 1, True), seat(1, "x", 2),
                       seat(2, "computer:hard", 3)])
    alone = st.rate({}, [seat(0, "h1", 1, True), seat(1, "x", 2), seat(2, "h3", 3)])
    assert new["computer:hard"][0] == pytest.approx((alone["h1"][0] + alone["h3"][0]) / 2)


def test_places_share_first_between_winners_and_follow_the_standings() -> None:
    assert st.places(("a", "b"), ("a", "b", "d", "c"), ("a", "b", "c", "d")) == \
        {"a": 1, "b": 1, "d": 3, "c": 4}
    assert st.places(("c",), ("c", "a", "b"), ("a", "b", "c")) == {"c": 1, "a": 2, "b": 3}


# ---------------------------------------------------------------- in the store


async def started(store: Store, players: tuple[str, ...] = ("a", "b"), *, channel: str = "c1",
                  guild: str | None = "g1", target: int = 5, rated: bool = True,
                  control: TimeControl | None = None, computers: int = 0,
                  kind: str = "race") -> GameRecord:
    options = {"target": target} if kind == "race" else {"rounds": 6}
    record = await store.lobby.open(kind, guild, channel, players[0], options,
                                    control, rated=rated, computers=computers)
    for p in players[1:]:
        await store.lobby.join(record.id, p)
    return await store.lobby.start(record.id, players[0], seed=1)


async def play(store: Store, game: GameRecord, *moves: tuple[str, str]) -> GameRecord:
    record = game
    for player, action in moves:
        record = (await store.apply_action(game.id, player, action)).record
    return record


async def win(store: Store, game: GameRecord, winner: str, loser: str) -> GameRecord:
    """``winner`` (to move first) reaches 5 before ``loser``."""
    return await play(store, game, (winner, "step 3"), (loser, "step 1"), (winner, "step 3"))


async def table(store: Store) -> list[tuple[Any, ...]]:
    async with store.reading() as conn:
        ratings = await conn.execute_fetchall(
            "SELECT guild_id, kind, player, mu, sigma, score, games, wins, last_at FROM ratings "
            "ORDER BY guild_id, kind, player")
        results = await conn.execute_fetchall(
            f"SELECT {st.RESULT_COLUMNS} FROM game_results ORDER BY game_id, seat")
    return [tuple(r) for r in ratings] + [tuple(r) for r in results]


async def rating(store: Store, player: str, guild: str = "g1") -> tuple[float, float, int, int]:
    async with store.reading() as conn:
        rows = await conn.execute_fetchall(
            "SELECT mu, sigma, games, wins FROM ratings WHERE guild_id = ? AND kind = 'race' "
            "AND player = ?", (guild, player))
    assert rows, f"{player} has no rating"
    return float(rows[0][0]), float(rows[0][1]), int(rows[0][2]), int(rows[0][3])


async def test_the_move_that_ends_a_game_rates_it(store: Store, clock: FakeClock) -> None:
    game = await started(store)
    assert await table(store) == []
    clock.advance(HOUR)
    done = await win(store, game, "a", "b")
    assert done.status == "finished" and done.timing["finished_at"] == clock()
    a, b = await rating(store, "a"), await rating(store, "b")
    assert a[0] > DEFAULT_MU > b[0] and a[2:] == (1, 1) and b[2:] == (1, 0)
    async with store.reading() as conn:
        rows = await conn.execute_fetchall(
            "SELECT seat, player, place, won, rated, players, finished_at, started_at, "
            "decisions FROM game_results ORDER BY seat")
    assert [tuple(r) for r in rows] == [
        (0, "a", 1, 1, 1, 2, clock(), clock() - HOUR, 2),
        (1, "b", 2, 0, 1, 2, clock(), clock() - HOUR, 1)]


async def test_a_friendly_game_leaves_ratings_alone_but_counts_in_statistics(
        store: Store) -> None:
    await win(store, await started(store, rated=False), "a", "b")
    async with store.reading() as conn:
        assert await conn.execute_fetchall("SELECT * FROM ratings") == []
        rows = await conn.execute_fetchall("SELECT rated, mu FROM game_results")
    assert [tuple(r) for r in rows] == [(0, None), (0, None)]
    stats = await store.ratings.player("g1", "a")
    assert (stats.games, stats.wins, stats.kinds) == (1, 1, ())


async def test_resigning_finishes_last_among_those_still_in(store: Store) -> None:
    game = await started(store, ("a", "b", "c"))
    await play(store, game, ("a", "step 1"), ("b", "resign"), ("c", "step 1"),
               ("a", "step 3"), ("c", "step 3"))
    await play(store, game, ("a", "step 3"))       # a: 7, c: 4, b resigned
    async with store.reading() as conn:
        rows = await conn.execute_fetchall(
            "SELECT player, place FROM game_results ORDER BY place")
    assert [tuple(r) for r in rows] == [("a", 1), ("c", 2), ("b", 3)]
    a, b, c = [await rating(store, p) for p in "abc"]
    assert a[0] > c[0] > DEFAULT_MU > b[0]      # second of three gains a little


async def test_a_player_removed_for_time_is_rated_last(store: Store, clock: FakeClock) -> None:
    game = await started(store, ("a", "b", "c"), target=1000000,
                         control=TimeControl(per_move=HOUR, max_timeouts=1))
    await play(store, game, ("a", "step 1"))
    clock.advance(2 * HOUR)                     # b runs out: removed at the first time-out
    for game_id in await store.hosting.due_games():
        await store.hosting.wake(game_id)
    await play(store, game, ("c", "resign"))    # a is left alone: a wins
    async with store.reading() as conn:
        rows = await conn.execute_fetchall(
            "SELECT player, place, timeouts FROM game_results ORDER BY place")
    assert [tuple(r) for r in rows] == [("a", 1, 0), ("c", 2, 0), ("b", 3, 1)]


async def test_a_computer_seat_is_rated_as_its_level(store: Store) -> None:
    game = await started(store, ("a",), computers=1)
    assert game.seats == ("a", "cpu-1")
    await store.apply_action(game.id, "a", "step 3")
    await store.apply_action(game.id, "cpu-1", "step 3", by_computer=True)
    await store.apply_action(game.id, "a", "step 3")
    level = game.timing["computer_level"]
    bot = await rating(store, f"computer:{level}")
    assert bot[0] < DEFAULT_MU and bot[2:] == (1, 0)
    board = await store.ratings.leaderboard("g1", "race")
    assert [c.player for c in board.computers] == [f"computer:{level}"]
    assert all(not r.player.startswith("computer:") for r in board.rows)


async def test_two_games_ending_at_once_for_one_player_both_count(store: Store) -> None:
    one = await started(store, ("a", "b"), channel="c1")
    two = await started(store, ("a", "c"), channel="c2")
    await play(store, one, ("a", "step 3"), ("b", "step 1"))
    await play(store, two, ("a", "step 3"), ("c", "step 1"))
    await asyncio.gather(store.apply_action(one.id, "a", "step 3"),
                         store.apply_action(two.id, "a", "step 3"))
    assert (await rating(store, "a"))[2:] == (2, 2)
    before = await table(store)
    await store.ratings.rebuild()
    assert await table(store) == before


async def test_a_game_rated_out_of_finishing_order_is_folded_in_order(
        store: Store, clock: FakeClock) -> None:
    """A game whose end was stamped before another's, but committed after it (another
    process, PostgreSQL), still counts in the order the games ended."""
    one = await started(store, ("a", "b"), channel="c1")
    two = await started(store, ("b", "a"), channel="c2")
    await play(store, one, ("a", "step 3"), ("b", "step 1"))
    await play(store, two, ("b", "step 3"), ("a", "step 1"))
    clock.advance(60)
    await play(store, two, ("b", "step 3"))
    clock.t -= 30                               # stamped earlier, saved later
    await play(store, one, ("a", "step 3"))
    incremental = await table(store)
    await store.ratings.rebuild()
    assert await table(store) == incremental


async def play_out(store: Store, game: GameRecord) -> int:
    """Play a game to its end with legal moves, trying to take back the first moves that
    leave their player still to act; how many were taken back (at most 2)."""
    rules = engine.get_game(game.kind)
    undone = 0
    for step in range(3000):
        record = await store.get(game.id)
        if record.status != "active":
            return undone
        state = rules.load(record.state or "")
        player = rules.to_act(state)[0]
        actions = [a for a in rules.legal_actions(state, player) if a != "resign"]
        move = await store.apply_action(game.id, player, actions[step % len(actions)])
        if undone < 2 and player in rules.to_act(move.state):
            try:
                await store.apply_action(game.id, player, "undo")
            except IllegalAction:
                pass
            else:
                undone += 1
    raise AssertionError("the game did not end")


@pytest.mark.usefixtures("toy")
async def test_rebuild_equals_the_moves_after_a_mixed_history(
        store: Store, clock: FakeClock) -> None:
    """Wins, resignations, time-outs, an undo, a friendly game, an archived game, a
    computer, another server, then a user's data deleted: the rebuild agrees each time."""
    players = ("111", "222", "333", "444")
    g1 = await started(store, players[:2], channel="c1")
    await win(store, g1, "111", "222")
    clock.advance(HOUR)
    g2 = await started(store, players[1:4], channel="c2")
    await play(store, g2, ("222", "step 1"), ("333", "step 2"), ("444", "resign"),
               ("222", "step 3"), ("333", "step 3"))      # 333 reaches 5
    clock.advance(HOUR)
    undone = await play_out(store, await started(store, ("333", "222", "444"), channel="c8",
                                                 kind="toy"))
    assert undone >= 1
    clock.advance(HOUR)
    g3 = await started(store, ("333", "111"), channel="c3", target=1000000,
                       control=TimeControl(per_move=HOUR, max_timeouts=1))
    await play(store, g3, ("333", "step 1"))
    clock.advance(2 * HOUR)
    for game_id in await store.hosting.due_games():
        await store.hosting.wake(game_id)
    g4 = await started(store, ("111", "444"), channel="c4", rated=False)
    await win(store, g4, "111", "444")
    g5 = await started(store, ("222",), channel="c5", computers=1)
    await store.apply_action(g5.id, "222", "step 3")
    await store.apply_action(g5.id, "cpu-1", "step 3", by_computer=True)
    await store.apply_action(g5.id, "222", "step 3")
    g6 = await started(store, ("222", "111"), channel="c6", guild="g2")
    await win(store, g6, "222", "111")
    g7 = await started(store, ("444", "111"), channel="c7")
    await win(store, g7, "444", "111")
    for g in (g1, g2, g3, g4, g5, g6, g7):
        assert (await store.get(g.id)).status == "finished", g.id
    clock.advance(400 * 86400)
    for a in await store.outbox.pending(g1.id):     # archived once all was delivered
        await store.outbox.mark_delivered(a.id, None)
    assert await store.archive.archive(g1.id)
    incremental = await table(store)
    assert len([r for r in incremental if len(r) == 9]) >= 7
    await store.ratings.rebuild()
    assert await table(store) == incremental

    await store.privacy.forget_user("111")
    forgotten = await table(store)
    assert not any("111" in r for r in forgotten)
    assert any(str(v).startswith("deleted-") for r in forgotten for v in r)
    await store.ratings.rebuild()
    assert await table(store) == forgotten


async def test_a_database_with_finished_games_builds_its_ratings_once(
        store: Store, database: str) -> None:
    await win(store, await started(store), "a", "b")
    made = await table(store)
    async with store.transaction() as conn:
        await conn.execute("DELETE FROM game_results")
        await conn.execute("DELETE FROM ratings")
        await conn.execute("UPDATE ratings_meta SET built = 0")
    done = await store.ratings.build_if_needed()
    assert done is not None and (done.games, done.rated) == (1, 1)
    assert await table(store) == made
    assert await store.ratings.build_if_needed() is None
    assert raw(database, "SELECT built FROM ratings_meta") == [(1,)]


# ---------------------------------------------------------------- reading


async def test_leaderboard_ranks_people_with_enough_games(store: Store,
                                                          clock: FakeClock) -> None:
    for n in range(MIN_GAMES):
        clock.advance(60)
        await win(store, await started(store, ("a", "b"), channel=f"x{n}"), "a", "b")
    await win(store, await started(store, ("c", "b"), channel="y"), "c", "b")
    board = await store.ratings.leaderboard("g1", "race")
    assert [(r.rank, r.player) for r in board.rows] == [(1, "a"), (2, "b")]
    assert board.total == 2 and board.rows[0].score > board.rows[1].score
    assert board.rows[0].games == MIN_GAMES and board.rows[0].wins == MIN_GAMES
    assert (await store.ratings.leaderboard("g2", "race")).rows == ()
    clock.advance(31 * 86400)
    await win(store, await started(store, ("b", "c"), channel="z"), "b", "c")
    recent = await store.ratings.leaderboard("g1", "race", period="30d")
    assert [(r.player, r.period_games) for r in recent.rows] == [("b", 1)]
    assert recent.rows[0].change is not None and recent.rows[0].change > 0
    second = await store.ratings.leaderboard("g1", "race", offset=1, limit=1)
    assert [(r.rank, r.player) for r in second.rows] == [(2, "b")] and second.total == 2


async def test_player_stats_streaks_favourite_rank_and_history(store: Store,
                                                               clock: FakeClock) -> None:
    outcomes = [True, True, False, True, True, True, False, True]
    for n, won in enumerate(outcomes):
        clock.advance(3600)
        game = await started(store, ("a", "b") if won else ("b", "a"), channel=f"c{n}")
        await win(store, game, *(("a", "b") if won else ("b", "a")))
    stats = await store.ratings.player("g1", "a")
    assert (stats.games, stats.wins) == (8, 6)
    assert (stats.current_streak, stats.best_streak) == (1, 3)
    assert stats.favourite == "race" and stats.chart_kind == "race"
    assert len(stats.history) == 8 and stats.history[-1][0] == clock()
    assert [k.rank for k in stats.kinds] == [1]
    assert stats.average_decision == 0.0        # the fake clock stood still within games
    nobody = await store.ratings.player("g1", "zzz")
    assert (nobody.games, nobody.kinds, nobody.history, nobody.favourite) == (0, (), (), None)


async def test_kind_stats_win_share_by_seat_and_length(store: Store, clock: FakeClock) -> None:
    for n in range(4):
        game = await started(store, ("a", "b"), channel=f"c{n}", guild="g1" if n else "g2")
        clock.advance(86400)
        await win(store, game, "a", "b")       # the first seat always wins
    here = await store.ratings.kind_stats("g1", "race")
    assert (here.guild_games, here.all_games, here.decided) == (3, 4, 3)
    assert [(s.label, s.games, s.wins) for s in here.seats] == [
        ("Seat 1 of 2", 3, 3), ("Seat 2 of 2", 3, 0)]
    assert here.days_median == pytest.approx(1.0) and here.rounds_median is None
    everywhere = await store.ratings.kind_stats("g1", "race", everywhere=True)
    assert everywhere.seats[0].games == 4 and everywhere.seats[0].interval[0] > 0.4


def test_cli_rebuilds_the_ratings(database: str, tmp_path: Any,
                                  capsys: pytest.CaptureFixture[str]) -> None:
    from db.__main__ import main

    async def finish_a_game() -> list[tuple[Any, ...]]:
        store = await Store.open(database)
        try:
            await win(store, await started(store), "a", "b")
            made = await table(store)
            async with store.transaction() as conn:
                await conn.execute("DELETE FROM ratings")
            return made
        finally:
            await store.close()

    async def now() -> list[tuple[Any, ...]]:
        store = await Store.open(database)
        try:
            return await table(store)
        finally:
            await store.close()

    made = asyncio.run(finish_a_game())
    settings = {"DATABASE_URL": database} if database.startswith("postgresql") else {}
    where = [] if settings else ["--database", database]
    assert main(["ratings", *where], settings) == 1
    assert "--rebuild" in capsys.readouterr().err
    assert main(["ratings", "--rebuild", *where], settings) == 0
    assert "from 1 finished games: 1 rated" in capsys.readouterr().out
    assert asyncio.run(now()) == made
    assert main(["ratings", "--rebuild", "--database", str(tmp_path / "none.db")], {}) == 1


def test_the_games_sides_are_read_from_their_public_views() -> None:
    """Win share by side (``/game stats``) names the sides the games show."""
    sides = {kind: engine.get_game(kind).sides(engine.get_game(kind).new_game(["p", "q"], 1))
             for kind in ("napoleon", "battlecards", "liege", "antiquity", "conqueror")}
    assert sides["napoleon"] == {"p": "french", "q": "allies"}
    assert sides["battlecards"] == {"p": "german", "q": "british"}
    assert sides["liege"] == {"p": "south", "q": "north"}
    assert sides["antiquity"] == {"p": "Romans", "q": "Carthaginians"}
    assert sides["conqueror"] == {"p": "", "q": ""}       # seats only
    assert engine.get_game("conqueror").rounds(
        engine.get_game("conqueror").new_game(["p", "q"], 1)) == 1


async def test_privacy_counts_a_users_ratings_and_deletes_them(store: Store) -> None:
    await win(store, await started(store, ("111", "222")), "111", "222")
    assert (await store.privacy.held_about("111")).ratings == 1
    await store.privacy.forget_user("111")
    assert (await store.privacy.held_about("111")).ratings == 0
    assert (await store.ratings.player("g1", "111")).games == 0
    assert (await store.ratings.player("g1", "222")).games == 1


def test_the_lobby_says_whether_the_game_is_rated() -> None:
    from cogs.lobby import lobby_embed

    def fields(timing: dict[str, Any]) -> dict[str, str]:
        record = GameRecord(id=1, kind="conqueror", guild_id="1", channel_id="2",
                            host_id="3", status="lobby", seats=("3",), seed=0, options={},
                            state=None, version=0, lobby_message_id=None, created_at=0.0,
                            updated_at=0.0, timing=timing)
        return {f.name or "": f.value or "" for f in lobby_embed(record).fields}

    assert fields({})["Rated"].startswith("yes")
    assert fields({"rated": False})["Rated"] == "no: a friendly game"


def test_a_game_without_a_winner_or_with_one_player_is_not_rated() -> None:
    """Ended without a result (no winners): counted, unplaced, unrated; one player on two
    seats (two computers of one level alone) cannot be rated against itself."""
    from engine.core import Outcome

    class Ended:
        def __init__(self, winners: tuple[str, ...]) -> None:
            self.result = Outcome(winners, ("a", "b"), "over")

        def outcome(self, state: Any) -> Outcome:
            return self.result

        def sides(self, state: Any) -> dict[str, str]:
            return {}

        def rounds(self, state: Any) -> int | None:
            return 4

    def record(seats: tuple[str, ...], timing: dict[str, Any]) -> GameRecord:
        return GameRecord(id=9, kind="race", guild_id=None, channel_id="c", host_id="a",
                          status="finished", seats=seats, seed=0, options={}, state="",
                          version=3, lobby_message_id=None, created_at=0.0, updated_at=1.0,
                          timing=timing)

    drawn = st.result_of(Ended(()), record(("a", "b"), {}), None, 5.0)  # type: ignore[arg-type]
    assert drawn is not None and not drawn.rated and drawn.guild_id == ""
    assert [(s.place, s.won) for s in drawn.seats] == [(None, False), (None, False)]
    won = st.result_of(Ended(("a",)), record(("a", "b"), {}), None, 5.0)  # type: ignore[arg-type]
    assert won is not None and won.rated and won.rounds == 4
    bots = {"computers": {"cpu-1": "hard", "cpu-2": "hard"}}
    alone = st.result_of(Ended(("cpu-1",)), record(("cpu-1", "cpu-2"), bots), None,  # type: ignore[arg-type]
                         5.0)
    assert alone is not None and not alone.rated
    assert [s.player for s in alone.seats] == ["computer:hard", "computer:hard"]
