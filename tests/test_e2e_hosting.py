"""End to end, weeks of play in moments: the real bot against the Discord double on an
injected clock (``bot.create_bot(config, clock=...)``; nothing sleeps for real).

* Reminders come on time, across a restart, wait for quiet hours, go by direct message
  for a player who asked, then stop with a note in the channel.
* Clocks skip a player who ran out with the game's safe default, through the one move
  path, and remove them after the set number of time-outs; vacations stop clocks in every
  game of the server; the status message is edited in place, never reposted.
* Undo refuses past dice and revealed cards; the log keeps both.
* Nothing private reaches a reminder, a follower's direct message or the status message.
* A finished game's recap is a GIF with one frame per turn.
* A four-player game runs a simulated month with one player gone and one on vacation,
  and finishes with nobody nudging anybody.
"""

from __future__ import annotations

import io

from discord_double import DiscordDouble
from e2e_world import World, dms, is_recap, open_game, public_after, world_fixture
from PIL import Image

from cogs import battlecards as bc
from db.clocks import DAY, HOUR, MINUTE
from engine.battlecards import GAME as BATTLECARDS
from engine.conqueror import GAME as CONQUEROR
from engine.conqueror.ai import choose_action

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "play", "mygames", "vacation", "reminders"]
PEOPLE = ("alice", "bob", "carol", "dave", "erin")
MANAGE_CHANNELS = 1 << 4
#: Monday 2 March 2026, 20:00 UTC.
EVENING = 1772481600.0


def moderators(dd: DiscordDouble) -> None:
    dd.add_role("mods", permissions=MANAGE_CHANNELS, members=["erin"])


#: The double, the bot (restartable on the same database) and its clock, from EVENING.
host = world_fixture(name="host", people=PEOPLE, commands=COMMANDS, seed=11, clock=EVENING,
                     prepare=moderators, RENDER_WORKERS="0")


# -- reminders ---------------------------------------------------------------------------


async def test_reminders_come_on_time_across_a_restart_wait_for_quiet_hours_and_stop(
        host: World) -> None:
    dd, table = host.dd, host.dd.table()
    alice, bob = host.uid("alice"), host.uid("bob")
    refused = await table.slash("bob", "reminders channel", every="1h")
    assert refused.ephemeral and "Manage Channels" in (refused.content or "")
    set_channel = await table.slash("erin", "reminders channel", every="1h", limit=2)
    assert "every 1h, 2 times at most" in (set_channel.content or "")
    mine = await table.slash("alice", "reminders me", dm=True, quiet="22:00-07:00",
                             timezone="UTC")
    assert "quiet hours: 22:00–07:00 (UTC)" in (mine.content or "")
    bad = await table.slash("alice", "reminders me", timezone="Mars/Olympus")
    assert bad.ephemeral and "not a time zone" in (bad.content or "")
    await open_game(table, "conqueror", ["alice", "bob"])
    seen = len(table.messages)

    host.clock.advance(HOUR)                                   # 21:00: the first reminder
    await host.run_due()
    [reminder] = public_after(table, seen)
    assert reminder.content.startswith(f"⏰ <@{alice}>, **Conqueror #1** is waiting for you")
    assert reminder.pings == [alice] and "Reminder 1 of 2" in reminder.content
    seen = len(table.messages)
    host.clock.advance(HOUR)                                   # 22:00: quiet hours
    await host.run_due()
    assert public_after(table, seen) == [] and dms(dd, "alice") == []

    await host.restart()                                       # a new process, same file
    host.clock.t = EVENING + 11 * HOUR                         # 07:00 the next morning
    await host.run_due()
    await host.run_due()                                       # twice: still sent once
    [dm] = dms(dd, "alice")                                    # the second goes by DM
    assert dm.content.startswith("⏰ It is your move — **Conqueror #1**")
    assert "Reminder 2 of 2" in dm.content and public_after(table, seen) == []
    host.clock.advance(HOUR)
    await host.run_due()
    [stop] = public_after(table, seen)
    assert stop.content.startswith(f"🔕 <@{alice}> has not acted after 2 reminders")
    assert stop.pings == []
    seen = len(table.messages)
    host.clock.advance(3 * DAY)
    await host.run_due()
    assert public_after(table, seen) == [] and len(dms(dd, "alice")) == 1

    # alice moves: bob's decision gets its own reminders, in the channel (no DMs asked)
    await table.slash("alice", "play", action="end")
    seen = len(table.messages)
    host.clock.advance(HOUR)
    await host.run_due()
    [for_bob] = public_after(table, seen)
    assert for_bob.pings == [bob] and "Reminder 1 of 2" in for_bob.content
    assert dms(dd, "bob") == []


# -- clocks, vacations, the status message --------------------------------------------------


async def test_clocks_skip_then_remove_and_a_vacation_stops_every_game(host: World) -> None:
    dd = host.dd
    alice, bob, carol = host.uid("alice"), host.uid("bob"), host.uid("carol")
    first = dd.table()
    second = first.thread("second game")
    bad = await first.slash("alice", "game new", kind="conqueror", clock="soon")
    assert bad.ephemeral and "not a duration" in (bad.content or "")
    await open_game(first, "conqueror", ["alice", "bob"], clock="1d", timeouts=2)
    await open_game(second, "conqueror", ["carol", "bob"], clock="1d")
    lobby = first.messages[0]
    status_id = lobby.id
    # carol goes on vacation for 3 days: her game waits for her
    away = await second.slash("carol", "vacation start", days=3)
    assert away.ephemeral and "on vacation until" in (away.content or "")
    status = await second.slash("bob", "game status")
    assert f"🏖️ <@{carol}> is on vacation until" in (status.content or "")

    host.clock.advance(DAY + MINUTE)                           # alice lets her day go by
    await host.run_due()
    [skip] = [m for m in public_after(first, 0) if "ran out of time" in m.content]
    assert f"⏰ <@{alice}> ran out of time; Warhost played `end` for them." in skip.content
    assert skip.pings == [bob]
    assert [e.origin for e in await host.store.history.log(1)] == ["timeout"]
    assert await host.store.history.log(2) == []                      # carol's clock is stopped
    mygames = await first.slash("bob", "mygames")
    assert "Conqueror #1" in (mygames.content or "") and "time runs out <t:" in (
        mygames.content or "")

    # bob plays, alice runs out again: removed; the game is over for lack of players
    await first.slash("bob", "play", action="end")
    host.clock.advance(DAY + MINUTE)
    await host.run_due()
    log = [(e.player, e.action, e.origin) for e in await host.store.history.log(1)]
    assert log[-2:] == [(alice, "end", "timeout"), (alice, "resign", "timeout")]
    record = await host.store.get(1)
    assert record.status == "finished" and record.timing["timeouts"] == {alice: 2}
    result = first.last_message(lambda m: "Game over" in m.content and not is_recap(m))
    assert "ran out of time once too often" in result.content

    # still on vacation after two days: nothing happened to carol's game
    assert await host.store.history.log(2) == []
    host.clock.t = EVENING + 3 * DAY + 12 * HOUR               # the vacation is over...
    await host.run_due()
    assert await host.store.history.log(2) == []                       # ...and her day counts now
    host.clock.t = EVENING + 4 * DAY + MINUTE
    await host.run_due()
    assert [e.origin for e in await host.store.history.log(2)] == ["timeout"]

    # the lobby message became the status message: edited in place, pinned, never reposted
    status_msg = dd.messages[status_id]
    assert status_msg.pinned and len(status_msg.history) >= 3
    assert [m.id for m in first.messages if m.embeds and "game #1" in
            m.embeds[0].get("title", "")] == [status_id]
    assert status_msg.attachments and "Game over" in status_msg.embeds[0]["description"]


# -- undo ----------------------------------------------------------------------------------


async def test_undo_previews_refuses_past_dice_and_cards_and_the_log_keeps_both(
        host: World) -> None:
    dd = host.dd
    table = dd.table()
    alice = host.uid("alice")
    await open_game(table, "conqueror", ["alice", "bob"])
    for action in ("convert ap", "move a1 b2 1", "recruit 1"):
        done = await table.slash("alice", "play", action=action)
        assert (done.content or "").startswith("✅")
    before = await host.store.get(1)
    too_far = await table.slash("alice", "game undo", count=2)
    assert too_far.ephemeral and "at most 1 action: further back, it rolled dice" in (
        too_far.content or "")
    other = await table.slash("bob", "game undo")
    assert "nothing to undo (another player acted after that)" in (other.content or "")
    preview = await table.slash("alice", "game undo")
    assert "`#3` `recruit 1`" in (preview.content or "") and preview.ephemeral
    done = await table.click("alice", "Undo 1 action", message=preview.message)
    assert done.ephemeral and "↩️ Took back 1 action (move 3)." in (done.content or "")
    after = await host.store.get(1)
    assert after.version == before.version + 1
    assert CONQUEROR.dump(host.store.load_state(after)) != CONQUEROR.dump(
        host.store.load_state(before))
    again = await table.click("alice", "Undo 1 action", message=preview.message)
    assert "moved on since you looked" in (again.content or "")   # a stale preview
    log = await table.slash("bob", "game log")
    assert f"`#4` ↩️ <@{alice}> took back move 3" in (log.content or "")
    assert "`#3`" in (log.content or "") and await host.store.history.verify(1)
    # Battlecards: a deployed card is on the table for good
    cards = table.thread("cards")
    await open_game(cards, "battlecards", ["alice", "bob"])
    state = host.store.load_state(await host.store.active_in_channel(str(cards.channel.id)))
    await cards.slash("alice", "play", action=BATTLECARDS.legal_actions(state, alice)[0])
    refused = await cards.slash("alice", "game undo")
    assert "nothing to undo (it rolled dice or drew or revealed a card)" in (
        refused.content or "")


# -- secrets ----------------------------------------------------------------------------------


async def test_nothing_private_reaches_reminders_followers_or_the_status(host: World) -> None:
    dd, table = host.dd, host.dd.table()
    alice, bob = host.uid("alice"), host.uid("bob")
    await table.slash("alice", "reminders me", dm=True)
    await table.slash("erin", "reminders channel", every="4h")
    game_id = await open_game(table, "battlecards", ["alice", "bob"], clock="12h")
    followed = await table.slash("carol", "game follow")
    assert followed.ephemeral and "direct message" in (followed.content or "")
    record = await host.store.get(game_id)
    for _ in range(40):                 # let time run: reminders, DMs, safe defaults
        host.clock.advance(5 * HOUR)
        await host.run_due()
        record = await host.store.get(game_id)
        if record.status != "active":
            break
        state = host.store.load_state(record)
        mover = BATTLECARDS.to_act(state)[0]
        if mover == bob:                # bob plays at once; alice is never there
            await table.slash("bob", "play", action=BATTLECARDS.legal_actions(state, bob)[0])
    state = host.store.load_state(await host.store.get(game_id))
    secret = set()
    for pid in (alice, bob):
        entry = bc.player_entry(BATTLECARDS.view(state, pid), pid)
        secret.update(card["name"] for card in entry["hand"])  # type: ignore[index]
    public_text = "\n".join(m.text for m in table.messages if not m.ephemeral)
    hidden = {name for name in secret if name not in public_text}
    assert hidden, "the test needs cards nobody has seen"
    reminders = [m for m in table.messages if m.content.startswith(("⏰", "🔕"))]
    reminder_dms = [m for m in dms(dd, "alice") if m.content.startswith("⏰")]
    follows = dms(dd, "carol")
    status = dd.messages[table.messages[0].id]
    assert reminders and reminder_dms and follows
    for message in [*reminders, *reminder_dms, *follows, status]:
        assert not any(name in message.text for name in hidden), message.text
    # what the follower gets is what the channel got, line for line
    channel_lines = set(public_text.splitlines())
    for follow in follows:
        assert follow.text.startswith("👀 **Battlecards")
        assert set(follow.text.splitlines()[1:]) <= channel_lines, follow.text


# -- a month -----------------------------------------------------------------------------------


async def test_a_month_with_one_player_gone_and_one_on_vacation_finishes_unattended(
        host: World) -> None:
    dd, table = host.dd, host.dd.table()
    ids = {name: host.uid(name) for name in ("alice", "bob", "carol", "dave")}
    names = {v: k for k, v in ids.items()}
    game_id = await open_game(table, "conqueror", ["alice", "bob", "carol", "dave"],
                              clock="1d", timeouts=2)
    started = host.clock.t
    vacation_done = False
    moves = 0
    for _ in range(3000):
        record = await host.store.get(game_id)
        if record.status != "active":
            break
        state = host.store.load_state(record)
        [mover] = CONQUEROR.to_act(state)
        name = names[mover]
        if name == "carol" and not vacation_done and host.clock.t - started > 2 * DAY:
            await table.slash("carol", "vacation start", days=10)
            vacation_done = True
        current, _, _ = await host.store.hosting.vacation(str(dd.guild.id), ids["carol"])
        if name == "dave" or (name == "carol" and current is not None):
            host.clock.advance(6 * HOUR)              # nobody there: time passes
            await host.run_due()
            continue
        host.clock.advance(3 * HOUR)                  # a human takes their time
        await table.slash(name, "play", action=choose_action(CONQUEROR, state, mover))
        moves += 1
    record = await host.store.get(game_id)
    assert record.status == "finished" and await host.store.history.verify(game_id)
    assert host.clock.t - started >= 30 * DAY
    log = await host.store.history.log(game_id, limit=10000)
    timeouts = [(names[e.player], e.action) for e in log if e.origin == "timeout"]
    assert timeouts == [("dave", "end"), ("dave", "end"), ("dave", "resign")]
    assert not any(names[e.player] == "carol" and e.origin == "timeout" for e in log)
    # dave was reminded before his clock ran out; the game ended with the recap
    assert any(m.content.startswith(f"⏰ <@{ids['dave']}>") for m in table.messages)
    recap = table.last_message(is_recap)
    [gif] = recap.attachments
    image = Image.open(io.BytesIO(gif.data))
    digests = [a for a in await host.store.outbox.digests(game_id)
               if a.payload["last"] >= a.payload["first"]]
    assert image.format == "GIF" and image.n_frames == len(digests)
    assert "the whole game in" in recap.content
