"""The pure parts of the abuse limits: token buckets in bounded memory, telling a limited
user once, the permissions /game new needs, the configuration, the log filter's hiding of
interaction tokens, and /privacy's texts and buttons."""

from __future__ import annotations

import logging
import re

import discord
import pytest

import bot
from bot import Config, ConfigError
from cogs import limits, privacy
from cogs.limits import Limiter, Rate, TokenBuckets
from db.privacy import Forgotten, Held

TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.this-is-a-fake-token-for-tests_0123456789"


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


# -- token buckets ----------------------------------------------------------------------------


def test_a_bucket_allows_its_burst_then_its_rate() -> None:
    clock = Clock()
    buckets = TokenBuckets(Rate(10, 1.0), clock=clock)
    assert [buckets.take(1) for _ in range(10)] == [0.0] * 10
    assert buckets.take(1) == pytest.approx(1.0)           # empty: a token in 1 s
    clock.t += 0.5
    assert buckets.take(1) == pytest.approx(0.5)           # a refused take costs nothing
    clock.t += 0.5
    assert buckets.take(1) == 0.0
    assert buckets.take(2) == 0.0                          # users do not share a bucket
    clock.t += 3.0
    assert [buckets.take(1) for _ in range(3)] == [0.0] * 3 and buckets.take(1) > 0


def test_normal_play_is_never_limited() -> None:
    """A brisk player for half an hour: types each action with autocomplete (a request
    per keystroke), sends it, looks at the board for a couple of seconds; now and then
    five quick commands (status, board, log...)."""
    clock = Clock()
    limiter = Limiter(clock=clock)
    for i in range(600):
        for _ in range(12):
            assert limiter.take("autocomplete", 7) == 0.0
            clock.t += 0.12
        for _ in range(5 if i % 20 == 0 else 1):
            assert limiter.take("command", 7) == 0.0
        assert limiter.take("component", 7) == 0.0
        clock.t += 2.0


def test_idle_buckets_are_forgotten_and_memory_is_bounded() -> None:
    clock = Clock()
    buckets = TokenBuckets(Rate(10, 1.0), clock=clock, max_keys=100)
    for user in range(50):
        for _ in range(5):
            buckets.take(user)
    assert len(buckets) == 50
    clock.t += 2.0                       # not yet full again: kept
    buckets.take(1000)
    assert len(buckets) == 51
    clock.t += 10.0                      # full again: the same as no bucket, dropped
    buckets.take(1001)
    assert len(buckets) == 1
    for user in range(500):              # a flood of users: never more than max_keys
        buckets.take(5000 + user)
        assert len(buckets) <= 100


def test_a_limited_user_is_told_once_in_a_row() -> None:
    clock = Clock()
    limiter = Limiter(Rate(2, 1.0), clock=clock)
    assert limiter.take("command", 1) == 0.0 and limiter.take("command", 1) == 0.0
    assert limiter.take("command", 1) > 0 and limiter.tell(1)
    assert limiter.take("command", 1) > 0 and not limiter.tell(1)     # quiet after that
    clock.t += 1.0
    assert limiter.take("command", 1) == 0.0                          # back in bounds
    assert limiter.take("command", 1) > 0 and limiter.tell(1)         # told again
    limiter.forget(1)
    assert limiter.take("command", 1) == 0.0


@pytest.mark.parametrize("rate", [Rate(0, 1.0), Rate(1, 0.0), Rate(5, -1.0)])
def test_nonsense_rates_are_refused(rate: Rate) -> None:
    with pytest.raises(ValueError):
        TokenBuckets(rate)


# -- permissions at /game new -----------------------------------------------------------------


def perms(**granted: bool) -> discord.Permissions:
    return discord.Permissions(**granted)


ALL_NEEDED = {"view_channel": True, "send_messages": True, "embed_links": True,
              "attach_files": True, "read_message_history": True,
              "send_messages_in_threads": True}


def test_nothing_missing_when_everything_is_granted() -> None:
    assert limits.missing_permissions(perms(**ALL_NEEDED), in_thread=False) == []
    assert limits.missing_permissions(perms(**ALL_NEEDED), in_thread=True) == []
    assert limits.missing_permissions(perms(administrator=True), in_thread=True) == []


def test_each_missing_permission_is_named() -> None:
    granted = {**ALL_NEEDED, "attach_files": False, "embed_links": False}
    missing = limits.missing_permissions(perms(**granted), in_thread=False)
    assert [name for name, _ in missing] == ["Embed Links", "Attach Files"]
    text = limits.permissions_message(missing, in_thread=False)
    assert "**Embed Links**" in text and "**Attach Files**" in text and "2 permissions" in text
    assert "Server Settings → Roles" in text and "Edit Channel → Permissions" in text
    assert "`/game new` again" in text


def test_a_thread_needs_send_messages_in_threads_not_send_messages() -> None:
    granted = {**ALL_NEEDED, "send_messages": False, "send_messages_in_threads": False}
    assert [n for n, _ in limits.missing_permissions(perms(**granted), True)] == [
        "Send Messages in Threads"]
    assert [n for n, _ in limits.missing_permissions(perms(**granted), False)] == [
        "Send Messages"]
    text = limits.permissions_message([("Send Messages in Threads", "to post")], True)
    assert "thread's parent channel" in text and "1 permission in this thread" in text


def test_the_cap_message_says_what_to_do() -> None:
    text = limits.cap_message(25)
    assert "25 open games" in text and "/game list" in text


# -- configuration ------------------------------------------------------------------------------


def test_limits_default_on_and_configurable() -> None:
    config = Config.from_env({"DISCORD_TOKEN": TOKEN}, None)
    assert (config.rate_limits, config.max_open_games, config.lobby_expiry_hours) == (
        True, 25, 24.0)
    assert isinstance(bot.create_bot(config).limiter, Limiter)
    config = Config.from_env({"DISCORD_TOKEN": TOKEN, "RATE_LIMITS": "off",
                              "MAX_OPEN_GAMES": "0", "LOBBY_EXPIRY_HOURS": "1.5"}, None)
    assert (config.rate_limits, config.max_open_games, config.lobby_expiry_hours) == (
        False, 0, 1.5)
    assert bot.create_bot(config).limiter is None


@pytest.mark.parametrize(("name", "value"), [
    ("RATE_LIMITS", "sometimes"), ("MAX_OPEN_GAMES", "-1"), ("MAX_OPEN_GAMES", "many"),
    ("LOBBY_EXPIRY_HOURS", "a day"), ("LOBBY_EXPIRY_HOURS", "-2"),
    ("LOBBY_EXPIRY_HOURS", "nan"), ("LOBBY_EXPIRY_HOURS", "1e9")])
def test_bad_limits_are_refused_with_a_message(name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Config.from_env({"DISCORD_TOKEN": TOKEN, name: value}, None)


# -- the log filter --------------------------------------------------------------------------


def test_interaction_and_webhook_tokens_are_hidden_in_logged_urls() -> None:
    secret = "aW50ZXJhY3Rpb246" + "x" * 60
    for url in (f"POST https://discord.com/api/v10/interactions/123456/{secret}/callback",
                f"PATCH https://discord.com/api/v10/webhooks/987/{secret}/messages/@original"):
        record = logging.LogRecord("discord.http", logging.DEBUG, __file__, 1,
                                   "%s with %s has returned %s", (url, None, 204), None)
        assert bot.RedactFilter(TOKEN).filter(record)
        message = record.getMessage()
        assert secret not in message and "[token hidden]" in message
        assert "/callback" in message or "/messages/@original" in message
    event = {"op": 0, "t": "INTERACTION_CREATE", "d": {"id": "1", "token": secret}}
    record = logging.LogRecord("discord.gateway", logging.DEBUG, __file__, 1,
                               "WebSocket Event: %s", (event,), None)
    bot.RedactFilter(TOKEN).filter(record)
    assert secret not in record.getMessage() and "'token': '[token hidden]'" in \
        record.getMessage()
    stray = logging.LogRecord("aiosqlite", logging.DEBUG, __file__, 1, "executing %r",
                              ((1, "reply", secret),), None)
    bot.RedactFilter(TOKEN).filter(stray)
    assert secret not in stray.getMessage()
    plain = logging.LogRecord("x", logging.INFO, __file__, 1, "GET /webhooks/1/messages", (),
                              None)
    bot.RedactFilter("").filter(plain)
    assert plain.getMessage() == "GET /webhooks/1/messages"


def test_debug_logging_keeps_the_database_driver_quiet(monkeypatch: pytest.MonkeyPatch) -> None:
    """aiosqlite's DEBUG lines are every statement with its values: not for the log."""
    root, driver = logging.getLogger(), logging.getLogger("aiosqlite")
    before = list(root.handlers)
    monkeypatch.setattr(root, "level", root.level)
    monkeypatch.setattr(driver, "level", driver.level)
    try:
        bot.setup_logging(Config(token=TOKEN, log_level="DEBUG"))
        assert root.getEffectiveLevel() == logging.DEBUG
        assert not driver.isEnabledFor(logging.DEBUG)
    finally:
        for handler in root.handlers[:]:
            if handler not in before:
                root.removeHandler(handler)


# -- /privacy's texts and buttons ----------------------------------------------------------------


def test_privacy_text_says_what_is_stored_and_fits_a_message() -> None:
    full = Held(games=3, open_games=1, moves=57, settings=True, vacations=1, following=2,
                waiting=4, ratings=2)
    text = privacy.privacy_text(full)
    assert "3 games (1 open), 57 moves, settings: yes, 1 vacation, following 2 games, " \
           "2 ratings, 4 messages waiting" in text
    for word in ("user id", "moves", "settings", "vacations", "follow", "anonymous",
                 "400 days", "backups", "ratings"):
        assert word in text
    assert len(text) <= 2000
    assert "About you now:** nothing." in privacy.privacy_text(Held())
    assert "Delete everything" in privacy.confirm_text(full)


def test_done_text_reports_failures() -> None:
    fine = privacy.done_text(Forgotten(left=(), resigned=(1,), anonymised=(1, 2), deleted=3))
    assert "resigned from 1 game, anonymised 2 games, deleted 3 other records" in fine
    assert "left 0 lobbies" in fine and "nothing that names you" in fine
    failed = privacy.done_text(Forgotten(anonymised=(1,), failed=(7, 9)))
    assert "#7, #9" in failed and "still name you" in failed


def test_privacy_buttons_round_trip() -> None:
    template = re.compile(privacy.PRIVACY_TEMPLATE)
    view = privacy.privacy_view("confirm")
    ids = [getattr(item, "custom_id", None) for item in view.children]
    assert len(ids) == 2 and re.fullmatch(r"warhost:privacy:yes:\d+", ids[0] or "")
    assert ids[1] == "warhost:privacy:no"
    for custom_id in [*ids, "warhost:privacy:ask"]:
        assert template.fullmatch(custom_id or "")
    assert not template.fullmatch("warhost:privacy:yes:12:3")
    assert privacy.PrivacyButton in privacy.DYNAMIC_ITEMS
