"""End to end, the real bot and the Discord double: a server's own settings, and every
number or text option of the hosting commands given what a client may send past its
declared bounds.

* ``/settings show``, ``set`` and ``reset`` (Manage Server): the server's value or the
  default, bad values refused in words, and the value used where it matters: the cap on
  open games, lobbies that expire, the reminders' defaults.
* ``/vacation start days:-3`` (and huge numbers) and ``/reminders channel limit:99``
  are answered in words, nothing changed; odd text in ``/reminders me`` too.
* ``/reminders me timezone:`` autocompletes IANA zones from any part of the name.

The double's client refuses values outside an option's declared range, as Discord's
does; a crafted interaction (:func:`send_raw`) is what a modified client could send.
"""

from __future__ import annotations

from typing import Any

import pytest
from discord_double import ClientRefused, DiscordDouble, Reply, Table
from discord_double.models import APPLICATION_COMMAND
from e2e_world import World, open_game, world_fixture

from cogs.lobby import LobbyExpiry
from db.clocks import HOUR
from db.hosting import YEAR

pytest_plugins = ["discord_double.fixtures"]

COMMANDS = ["game", "settings", "vacation", "reminders"]
PEOPLE = ("alice", "bob", "erin")
MANAGE_GUILD = 1 << 5
MANAGE_CHANNELS = 1 << 4
START = 1_790_000_000.0


def admins(dd: DiscordDouble) -> None:
    dd.add_role("admins", permissions=MANAGE_GUILD | MANAGE_CHANNELS, members=["erin"])


site = world_fixture(name="site", people=PEOPLE, commands=COMMANDS, seed=5, clock=START,
                     prepare=admins, RENDER_WORKERS="0", MAX_OPEN_GAMES="3")


def _leaf(options: list[dict[str, Any]]) -> list[dict[str, Any]]:
    while options and options[0].get("type") in (1, 2):
        options = options[0].setdefault("options", [])
    return options


async def send_raw(table: Table, user: str, command: str, valid: dict[str, Any],
                   sent: dict[str, Any]) -> Reply:
    """``/command`` built from ``valid`` options (what the client accepts), then with the
    values of ``sent`` put in their place: what a client may send past the bounds."""
    actor = table.user(user)
    data = table._command_data(actor, command, valid, focused=None)
    for option in _leaf(data.setdefault("options", [])):
        if option["name"] in sent:
            option["value"] = sent[option["name"]]
    return await table._send(APPLICATION_COMMAND, actor, table.channel, data,
                             " ".join(command.split()), repr(sent))


def said(reply: Reply) -> str:
    assert reply.ephemeral and len(reply.callbacks) == 1, reply.describe()
    return reply.content or ""


# -- /settings -------------------------------------------------------------------------------


async def test_settings_show_set_reset_and_the_cap_follows(site: World) -> None:
    table = site.dd.table()
    command = site.dd.command("settings")
    assert int(command["default_member_permissions"]) == MANAGE_GUILD
    shown = said(await table.slash("erin", "settings show"))
    assert "`max_open_games`: **3 games** (the default)" in shown
    assert "`lobby_expiry_hours`: **24 hours** (the default)" in shown
    assert "`reminder_every`: **12h** (the default)" in shown
    assert "`reminder_limit`: **3 reminders per move** (the default)" in shown

    changed = said(await table.slash("erin", "settings set", name="max_open_games",
                                     value="1"))
    assert changed == "`max_open_games` is now **1 game** here (it was 3 games, the default)."
    assert "`max_open_games`: **1 game** (this server's)" in said(
        await table.slash("erin", "settings show"))
    await open_game(table, "conqueror", ["alice", "bob"])
    other = site.dd.table(channel="second")
    refused = said(await other.slash("alice", "game new", kind="conqueror"))
    assert "already has 1 open game" in refused

    # the server's owner (every permission) may too
    assert "(this server's)" in said(await table.slash("guild-owner", "settings show"))
    back = said(await table.slash("erin", "settings reset", name="max_open_games"))
    assert back == "`max_open_games` is back to the default: **3 games**."
    assert "already had the default" in said(
        await table.slash("erin", "settings reset", name="max_open_games"))
    opened = await other.slash("alice", "game new", kind="conqueror")
    assert not opened.ephemeral                                 # the cap is 3 again


@pytest.mark.parametrize("name, value, words", [
    ("max_open_games", "-3", "a number of games from 0 (no cap) to 100000; you gave `-3`"),
    ("max_open_games", "1e999", "you gave `1e999`"),
    ("max_open_games", "nan", "you gave `nan`"),
    ("max_open_games", "99999999999999999999", "you gave `99999999999999999999`"),
    ("max_open_games", "2.5", "you gave `2.5`"),
    ("max_open_games", "٣", "you gave `٣`"),
    ("lobby_expiry_hours", "inf", "from 0 (lobbies never expire) to 8784; you gave `inf`"),
    ("lobby_expiry_hours", "9000", "you gave `9000`"),
    ("reminder_every", "10s", "a duration from 1 minute to 365 days"),
    ("reminder_every", "400d", "you gave `400d`"),
    ("reminder_limit", "11", "from 0 (none) to 10; you gave `11`"),
    ("reminder_limit", "`@everyone` " + "x" * 80, "you gave `'@everyone' xxxx"),
])
async def test_bad_values_are_refused_in_words_and_nothing_changes(
        site: World, name: str, value: str, words: str) -> None:
    table = site.dd.table()
    refused = said(await table.slash("erin", "settings set", name=name, value=value))
    assert words in refused, refused
    assert not any(v.own for v in (await site.store.server_settings.of(
        site.dd.guild.id)).values())


async def test_settings_past_what_the_client_allows(site: World) -> None:
    table = site.dd.table()
    # a name that is not one of the choices
    unknown = said(await send_raw(table, "erin", "settings set",
                                  {"name": "max_open_games", "value": "1"},
                                  {"name": "dice_luck"}))
    assert unknown.startswith("There is no setting `dice_luck`; the settings are "
                              "`max_open_games`,")
    # a value longer than declared
    long = said(await send_raw(table, "erin", "settings set",
                               {"name": "reminder_limit", "value": "1"},
                               {"value": "7" * 500}))
    assert "you gave `77777" in long and len(long) < 300
    # someone without Manage Server (Discord hides it from them; a client may still send)
    with pytest.raises(ClientRefused):
        await table.slash("bob", "settings show")
    site.dd.add_role("everyone-sees", permissions=0, members=["bob"])
    command = site.dd.command("settings")
    saved = command["default_member_permissions"]
    command["default_member_permissions"] = None
    try:
        assert said(await table.slash("bob", "settings set", name="max_open_games",
                                      value="0")).startswith("Only members with Manage "
                                                             "Server")
    finally:
        command["default_member_permissions"] = saved
    assert not any(v.own for v in (await site.store.server_settings.of(
        site.dd.guild.id)).values())


async def test_a_servers_lobby_expiry_and_reminders_are_used(site: World) -> None:
    table = site.dd.table()
    said(await table.slash("erin", "settings set", name="lobby_expiry_hours", value="2"))
    opened = await table.slash("alice", "game new", kind="conqueror")
    assert not opened.ephemeral
    expiry = site.running.bot.get_cog("LobbyExpiry")
    assert isinstance(expiry, LobbyExpiry) and site.clock is not None
    site.clock.advance(1 * HOUR)
    assert await expiry.run_once() == []                        # 1 hour: still open
    site.clock.advance(1.5 * HOUR)
    closed = await expiry.run_once()                            # 2.5 hours: closed
    assert [r.status for r in closed] == ["aborted"]

    said(await table.slash("erin", "settings set", name="reminder_every", value="1d"))
    said(await table.slash("erin", "settings set", name="reminder_limit", value="never"))
    channel = said(await table.slash("erin", "reminders channel"))
    assert "reminded every 1d, 0 times at most" in channel
    assert await site.store.hosting.reminder_defaults(site.dd.guild.id) == (24 * HOUR, 0)


# -- /vacation and /reminders past their bounds --------------------------------------------


@pytest.mark.parametrize("days, shown", [(-3, "-3"), (0, "0"), (31, "31"),
                                         (10**30, "1000000000000000000…"),
                                         (2.5e300, "2.5e+300")])
async def test_vacation_days_out_of_bounds_are_answered_in_words(
        site: World, days: Any, shown: str) -> None:
    table = site.dd.table()
    reply = said(await send_raw(table, "alice", "vacation start", {"days": 3},
                                {"days": days}))
    assert reply == f"Vacation is 1 to 30 days; you asked for {shown}."
    current, used, left = await site.store.hosting.vacation(site.dd.guild.id,
                                                            site.uid("alice"))
    assert current is None and used == 0 and left == 30


async def test_vacation_in_bounds_still_works_and_the_store_refuses_in_words(
        site: World) -> None:
    table = site.dd.table()
    assert "on vacation until" in said(await table.slash("alice", "vacation start", days=2))
    from db import StoreError
    with pytest.raises(StoreError, match=r"Vacation is 1 to 30 days; you asked for -3\."):
        await site.store.hosting.start_vacation(site.dd.guild.id, site.uid("bob"), -3)
    with pytest.raises(StoreError, match="you asked for nan"):
        await site.store.hosting.start_vacation(site.dd.guild.id, site.uid("bob"),
                                                float("nan"))
    assert YEAR > 0


@pytest.mark.parametrize("limit", [-1, 11, 10**20])
async def test_reminders_channel_limit_out_of_bounds(site: World, limit: int) -> None:
    table = site.dd.table()
    reply = said(await send_raw(table, "erin", "reminders channel", {"limit": 2},
                                {"limit": limit}))
    assert reply.startswith("Reminders per move are 0 to 10; you asked for ")
    settings = await site.store.hosting.channel_settings(table.channel.id)
    assert settings.reminder_limit is None


@pytest.mark.parametrize("options, words", [
    ({"every": "9" * 29 + "d"}, "A duration must be from 1 minute to 365 days."),
    ({"every": "x" * 400}, "is not a duration"),
    ({"timezone": "Europe"}, "`Europe` is not a time zone I know"),
    ({"timezone": "Mars/Olympus\u202e"}, "is not a time zone I know"),
    ({"timezone": "a\x00b"}, "is not a time zone I know"),
    ({"quiet": "٢٢:٠٠-٠٧:٠٠"}, "Give your `timezone` too"),
    ({"quiet": "25:00-07:00", "timezone": "UTC"}, "times of day from 00:00 to 23:59"),
    ({"dm": "yes please"}, "`dm` is true or false."),
])
async def test_reminders_me_odd_text_is_answered_in_words(
        site: World, options: dict[str, Any], words: str) -> None:
    table = site.dd.table()
    typical = {"every": "1h", "timezone": "UTC", "quiet": "22:00-07:00", "dm": True}
    valid = {name: typical[name] for name in options}
    reply = said(await send_raw(table, "alice", "reminders me", valid, options))
    assert words in reply, reply
    assert (await site.store.hosting.player_settings(site.uid("alice"))).timezone is None


async def test_timezones_autocomplete_from_any_part_of_the_name(site: World) -> None:
    table = site.dd.table()
    paris = await table.autocomplete("alice", "reminders me", "timezone", typed="paris")
    assert paris[0].value == "Europe/Paris"
    new_york = await table.autocomplete("alice", "reminders me", "timezone", typed="new y")
    assert new_york[0].value == "America/New_York"
    utc = await table.autocomplete("alice", "reminders me", "timezone", typed="UTC")
    assert utc[0].value == "UTC"
    pst = await table.autocomplete("alice", "reminders me", "timezone", typed="pst")
    assert pst[0] == ("America/Los_Angeles (PST)", "America/Los_Angeles")
    many = await table.autocomplete("alice", "reminders me", "timezone", typed="a")
    assert len(many) == 25 and all(len(c.name) <= 100 for c in many)
    assert await table.autocomplete("alice", "reminders me", "timezone",
                                    typed="zz" * 60) == []
    first = await table.autocomplete("alice", "reminders me", "timezone")
    assert first[0].value == "UTC" and len(first) <= 25
    # a zone written in any case is taken as the zone
    mine = said(await table.slash("alice", "reminders me", quiet="22:00-07:00",
                                  timezone="europe/paris"))
    assert "(Europe/Paris)" in mine
