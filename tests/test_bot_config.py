"""bot.py: configuration, the no-token message, and keeping the token out of logs."""

from __future__ import annotations

import logging
import subprocess
import sys
from pathlib import Path

import discord
import pytest

import bot
from bot import Config, ConfigError

ROOT = Path(__file__).resolve().parent.parent
TOKEN = "MTIzNDU2Nzg5MDEyMzQ1Njc4.GhIjKl.this-is-a-fake-token-for-tests_0123456789"


def run_bot(tmp_path: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, str(ROOT / "bot.py")], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)


@pytest.mark.parametrize("env", [{}, {"DISCORD_TOKEN": ""}, {"DISCORD_TOKEN": "   "}])
def test_no_token_exits_with_help_not_traceback(tmp_path: Path, env: dict[str, str]) -> None:
    result = run_bot(tmp_path, env)
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "DISCORD_TOKEN" in output
    assert ".env" in output
    assert "Reset Token" in output
    assert "applications.commands" in output
    assert "Traceback" not in output
    assert len(output.splitlines()) < 20


def test_empty_token_in_dotenv_still_helps(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text("DISCORD_TOKEN=\nDATABASE_PATH=./x.db\n")
    result = run_bot(tmp_path, {})
    assert result.returncode != 0
    assert "DISCORD_TOKEN" in result.stderr
    assert "Traceback" not in result.stdout + result.stderr


def test_bad_guild_id_is_a_message_not_a_traceback(tmp_path: Path) -> None:
    result = run_bot(tmp_path, {"DISCORD_TOKEN": TOKEN, "DEV_GUILD_ID": "my server"})
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "DEV_GUILD_ID" in output
    assert "Traceback" not in output
    assert TOKEN not in output


def test_defaults(tmp_path: Path) -> None:
    config = Config.from_env({"DISCORD_TOKEN": TOKEN}, tmp_path / ".env")
    assert config.token == TOKEN
    assert config.database_path == "./warhost.db"
    assert config.dev_guild_id is None
    assert config.log_level == "INFO"
    assert config.api_base is None and config.gateway_url is None
    assert config.computer_workers == 1
    assert (config.reminder_every, config.reminder_limit) == (12 * 3600, 3)
    assert config.force_sync is False


def test_server_defaults_and_forced_sync_are_read(tmp_path: Path) -> None:
    config = Config.from_env({"DISCORD_TOKEN": TOKEN, "REMINDER_EVERY": "1d6h",
                              "REMINDER_LIMIT": "0", "WARHOST_FORCE_SYNC": "1",
                              "MAX_OPEN_GAMES": "0", "LOBBY_EXPIRY_HOURS": "0.5"},
                             tmp_path / ".env")
    assert (config.reminder_every, config.reminder_limit) == (30 * 3600, 0)
    assert config.force_sync is True
    assert (config.max_open_games, config.lobby_expiry_hours) == (0, 0.5)


def test_the_event_loop_is_uvloops_unless_asyncios_is_asked_for(tmp_path: Path) -> None:
    import asyncio

    import uvloop

    default = Config.from_env({"DISCORD_TOKEN": TOKEN}, tmp_path / ".env")
    assert default.event_loop == "uvloop"
    factory = bot.loop_factory(default)
    assert factory is not None
    loop = factory()
    try:
        assert isinstance(loop, uvloop.Loop)
    finally:
        loop.close()
    own = Config.from_env({"DISCORD_TOKEN": TOKEN, "WARHOST_EVENT_LOOP": " AsyncIO "},
                          tmp_path / ".env")
    assert own.event_loop == "asyncio" and bot.loop_factory(own) is None
    with asyncio.Runner(loop_factory=bot.loop_factory(own)) as runner:
        assert not isinstance(runner.get_loop(), uvloop.Loop)
    for wrong in ("trio", "uvloop2", "٣"):
        with pytest.raises(ConfigError, match="WARHOST_EVENT_LOOP must be uvloop"):
            Config.from_env({"DISCORD_TOKEN": TOKEN, "WARHOST_EVENT_LOOP": wrong},
                            tmp_path / ".env")


def test_board_warmup_is_on_unless_turned_off(tmp_path: Path) -> None:
    assert Config.from_env({"DISCORD_TOKEN": TOKEN}, tmp_path / ".env").board_warmup is True
    off = Config.from_env({"DISCORD_TOKEN": TOKEN, "BOARD_WARMUP": "off"}, tmp_path / ".env")
    assert off.board_warmup is False
    assert bot.WarhostBot(off).boards.warm is False
    with pytest.raises(ConfigError, match="BOARD_WARMUP must be on"):
        Config.from_env({"DISCORD_TOKEN": TOKEN, "BOARD_WARMUP": "sometimes"}, tmp_path / ".env")


def test_computer_workers_can_be_set_or_turned_into_a_thread(tmp_path: Path) -> None:
    for text, workers in (("0", 0), ("3", 3)):
        config = Config.from_env({"DISCORD_TOKEN": TOKEN, "COMPUTER_WORKERS": text},
                                 tmp_path / ".env")
        assert config.computer_workers == workers


def test_dotenv_is_read(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"DISCORD_TOKEN={TOKEN}\nDATABASE_PATH=/data/games.db\n"
                      "DEV_GUILD_ID=123456789012345678\nLOG_LEVEL=debug\n")
    config = Config.from_env({}, dotenv)
    assert config.token == TOKEN
    assert config.database_path == "/data/games.db"
    assert config.dev_guild_id == 123456789012345678
    assert config.log_level == "DEBUG"


def test_environment_wins_over_dotenv(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text("DISCORD_TOKEN=from-file\nDATABASE_PATH=file.db\nLOG_LEVEL=WARNING\n")
    config = Config.from_env({"DISCORD_TOKEN": TOKEN, "DATABASE_PATH": "env.db"}, dotenv)
    assert config.token == TOKEN
    assert config.database_path == "env.db"
    assert config.log_level == "WARNING"  # not in the environment: the file's value


def test_empty_environment_value_does_not_hide_dotenv(tmp_path: Path) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"DISCORD_TOKEN={TOKEN}\n")
    assert Config.from_env({"DISCORD_TOKEN": ""}, dotenv).token == TOKEN


def test_missing_dotenv_is_fine(tmp_path: Path) -> None:
    assert Config.from_env({"DISCORD_TOKEN": TOKEN}, tmp_path / "nope" / ".env").token == TOKEN
    assert Config.from_env({"DISCORD_TOKEN": TOKEN}, None).token == TOKEN


def test_missing_token_raises_config_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="DISCORD_TOKEN"):
        Config.from_env({"DATABASE_PATH": "x.db"}, tmp_path / ".env")


@pytest.mark.parametrize("name,value", [("DEV_GUILD_ID", "abc"), ("DEV_GUILD_ID", "-5"),
                                        ("DEV_GUILD_ID", "9" * 40), ("LOG_LEVEL", "LOUD"),
                                        ("COMPUTER_WORKERS", "-1"),
                                        ("COMPUTER_WORKERS", "65"),
                                        ("COMPUTER_WORKERS", "two"),
                                        ("REMINDER_EVERY", "10s"), ("REMINDER_EVERY", "soon"),
                                        ("REMINDER_LIMIT", "11"), ("REMINDER_LIMIT", "-1"),
                                        ("REMINDER_LIMIT", "٣"), ("WARHOST_FORCE_SYNC", "2"),
                                        ("LOBBY_EXPIRY_HOURS", "nan"),
                                        ("LOBBY_EXPIRY_HOURS", "inf"),
                                        ("MAX_OPEN_GAMES", "１")])
def test_bad_values_are_refused_with_a_message(tmp_path: Path, name: str, value: str) -> None:
    with pytest.raises(ConfigError, match=name):
        Config.from_env({"DISCORD_TOKEN": TOKEN, name: value}, tmp_path / ".env")


def test_api_base_alone_leaves_the_gateway_to_ask_for(tmp_path: Path) -> None:
    config = Config.from_env({"DISCORD_TOKEN": TOKEN,
                              "DISCORD_API_BASE": "http://127.0.0.1:8765/api/v10/"},
                             tmp_path / ".env")
    assert config.api_base == "http://127.0.0.1:8765/api/v10"
    assert config.gateway_url is None  # asked of the API (GET /gateway/bot) in setup_hook


def test_gateway_url_without_api_base_is_ignored(tmp_path: Path) -> None:
    config = Config.from_env({"DISCORD_TOKEN": TOKEN, "DISCORD_GATEWAY_URL": "ws://x/"},
                             tmp_path / ".env")
    assert config.gateway_url is None


def test_explicit_gateway_url_wins(tmp_path: Path) -> None:
    config = Config.from_env({"DISCORD_TOKEN": TOKEN,
                              "DISCORD_API_BASE": "http://127.0.0.1:1/api/v10",
                              "DISCORD_GATEWAY_URL": "ws://127.0.0.1:2/gw"}, tmp_path / ".env")
    assert config.gateway_url == "ws://127.0.0.1:2/gw"


def test_gateway_without_api_base_is_ignored_for_routes(tmp_path: Path) -> None:
    config = Config.from_env({"DISCORD_TOKEN": TOKEN}, tmp_path / ".env")
    before = discord.http.Route.BASE
    bot.point_discord_at(config)
    assert before == discord.http.Route.BASE


def test_point_discord_at_the_double(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discord.http.Route, "BASE", discord.http.Route.BASE)
    monkeypatch.setattr(discord.gateway.DiscordWebSocket, "DEFAULT_GATEWAY",
                        discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY)
    config = Config(token=TOKEN, api_base="http://127.0.0.1:9/api/v10",
                    gateway_url="ws://127.0.0.1:9/")
    bot.point_discord_at(config)
    assert discord.http.Route.BASE == "http://127.0.0.1:9/api/v10"
    assert str(discord.gateway.DiscordWebSocket.DEFAULT_GATEWAY) == "ws://127.0.0.1:9/"


def test_repr_hides_the_token() -> None:
    config = Config(token=TOKEN)
    assert TOKEN not in repr(config)
    assert TOKEN not in str(config)


def test_token_never_logged_while_configuring(tmp_path: Path,
                                              caplog: pytest.LogCaptureFixture) -> None:
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"DISCORD_TOKEN={TOKEN}\nLOG_LEVEL=DEBUG\n")
    caplog.set_level(logging.DEBUG)
    config = Config.from_env({}, dotenv)
    created = bot.create_bot(config)
    logging.getLogger("warhost").info("config: %r", config)
    assert created.config is config
    assert caplog.records  # something was captured, and none of it is the token
    assert TOKEN not in caplog.text
    for record in caplog.records:
        assert TOKEN not in record.getMessage()


def test_redact_filter_hides_the_token_in_any_record() -> None:
    record = logging.LogRecord("discord.http", logging.DEBUG, __file__, 1,
                               "headers %s", ({"Authorization": f"Bot {TOKEN}"},), None)
    assert bot.RedactFilter(TOKEN).filter(record)
    assert TOKEN not in record.getMessage()
    assert "[token hidden]" in record.getMessage()


def test_redact_filter_hides_a_personal_web_link() -> None:
    # discord.py logs each request's payload at DEBUG: /game web's answer carries a link
    link = "https://warhost.example/p/eyJnIjoiYWJjIiwidSI6IjEifQ.Zm9yZ2VkX3NpZ25hdHVyZV9oZXJl"
    record = logging.LogRecord("discord.http", logging.DEBUG, __file__, 1,
                               "POST with %s", ({"content": f"Your link: {link}"},), None)
    assert bot.RedactFilter(TOKEN).filter(record)
    assert "eyJnIjoi" not in record.getMessage() and "Zm9yZ2Vk" not in record.getMessage()
    assert "/p/[token hidden]" in record.getMessage()


def test_web_settings_are_checked() -> None:
    config = bot.Config.from_env({"DISCORD_TOKEN": TOKEN, "WEB_PORT": "8080",
                                  "WEB_URL": "https://warhost.example/"}, None)
    assert config.web.port == 8080 and config.web.public_url == "https://warhost.example"
    assert bot.Config.from_env({"DISCORD_TOKEN": TOKEN}, None).web.port is None
    for bad in ({"WEB_PORT": "http"}, {"WEB_PORT": "70000"}, {"WEB_PORT": "８０"},
                {"WEB_URL": "warhost.example"}, {"WEB_LINK_DAYS": "-1"},
                {"WEB_LINK_DAYS": "nan"}, {"WEB_RATE_PER_MINUTE": "0"}):
        with pytest.raises(bot.ConfigError, match="WEB_"):
            bot.Config.from_env({"DISCORD_TOKEN": TOKEN, **bad}, None)


def test_setup_logging_installs_the_filter(monkeypatch: pytest.MonkeyPatch) -> None:
    root = logging.getLogger()
    before = list(root.handlers)
    monkeypatch.setattr(root, "level", root.level)
    try:
        bot.setup_logging(Config(token=TOKEN, log_level="DEBUG"))
        added = [h for h in root.handlers if h not in before]
        assert added
        assert any(isinstance(f, bot.RedactFilter) for h in added for f in h.filters)
    finally:
        for handler in root.handlers[:]:
            if handler not in before:
                root.removeHandler(handler)


def test_bot_uses_no_privileged_intents() -> None:
    created = bot.create_bot(Config(token=TOKEN))
    intents = created.intents
    assert not intents.members and not intents.presences and not intents.message_content
    assert created.store is None  # opened in setup_hook, not before
    # no prefix commands: discord.py's "when mentioned" needs no message content intent
    assert created.command_prefix is discord.ext.commands.when_mentioned


def test_cogs_are_discovered_by_setup_function() -> None:
    names = bot.discover_cogs()
    assert "cogs.game" in names
    assert "cogs.groups" in names         # every game's /<kind> group and /hand
    assert "cogs.liege" not in names      # a game's own additions are registered, not loaded
    assert "cogs.help" in names           # /help, written from the registered commands
    for shared in ("moves", "outbox", "wording", "lobby", "interactions"):
        assert f"cogs.{shared}" not in names   # shared modules, not extensions


def test_unreachable_discord_is_a_message_and_the_token_stays_hidden(tmp_path: Path) -> None:
    result = run_bot(tmp_path, {"DISCORD_TOKEN": TOKEN, "LOG_LEVEL": "DEBUG",
                                "DATABASE_PATH": str(tmp_path / "w.db"),
                                "DISCORD_API_BASE": "http://127.0.0.1:9/api/v10"})
    output = result.stdout + result.stderr
    assert result.returncode != 0
    assert "could not reach Discord" in output
    assert "Traceback" not in output
    assert TOKEN not in output


def test_redact_filter_covers_tracebacks() -> None:
    try:
        raise RuntimeError(f"bad header Bot {TOKEN}")
    except RuntimeError:
        record = logging.LogRecord("discord.client", logging.ERROR, __file__, 1, "failed", (),
                                   sys.exc_info())
    bot.RedactFilter(TOKEN).filter(record)
    formatted = logging.Formatter().format(record)
    assert "RuntimeError" in formatted and TOKEN not in formatted


def test_database_url_and_shards_are_read_and_checked() -> None:
    base = {"DISCORD_TOKEN": "t"}
    config = bot.Config.from_env(base, None)
    assert config.database == bot.DEFAULT_DATABASE_PATH and not config.shared_database
    assert (config.shard_count, config.shard_ids) == (None, None)
    url = "postgresql://warhost:secret@db:5432/warhost"
    config = bot.Config.from_env({**base, "DATABASE_URL": url}, None)
    assert config.database == url and config.shared_database
    assert "secret" not in repr(config)
    config = bot.Config.from_env({**base, "SHARD_COUNT": "4", "SHARD_IDS": "0, 2-3"}, None)
    assert (config.shard_count, config.shard_ids) == (4, (0, 2, 3))
    assert config.shared_database
    config = bot.Config.from_env({**base, "SHARD_COUNT": "2"}, None)
    assert config.shard_ids == (0, 1)
    for bad, said in [({"DATABASE_URL": "mysql://x"}, "PostgreSQL URL"),
                      ({"SHARD_COUNT": "zero"}, "SHARD_COUNT must be"),
                      ({"SHARD_COUNT": "2", "SHARD_IDS": "2"}, "below SHARD_COUNT"),
                      ({"SHARD_COUNT": "2", "SHARD_IDS": "0,0"}, "each shard once"),
                      ({"SHARD_COUNT": "2", "SHARD_IDS": "a"}, "like 0,1"),
                      # huge numbers: refused before a range or int() is built from them
                      ({"SHARD_COUNT": "9" * 5000}, "SHARD_COUNT must be"),
                      ({"SHARD_COUNT": "2", "SHARD_IDS": "0-99999999999"}, "below SHARD_COUNT"),
                      ({"SHARD_COUNT": "2", "SHARD_IDS": "1" * 5000}, "SHARD_IDS must"),
                      ({"SHARD_COUNT": "2", "SHARD_IDS": "²"}, "like 0,1"),
                      ({"RENDER_WORKERS": "9" * 5000}, "RENDER_WORKERS"),
                      ({"COMPUTER_WORKERS": "9" * 5000}, "COMPUTER_WORKERS"),
                      ({"MAX_OPEN_GAMES": "9" * 5000}, "MAX_OPEN_GAMES"),
                      ({"REMINDER_LIMIT": "9" * 5000}, "REMINDER_LIMIT"),
                      ({"SHARD_IDS": "1"}, "needs SHARD_COUNT")]:
        with pytest.raises(bot.ConfigError, match=said):
            bot.Config.from_env({**base, **bad}, None)


def test_sharded_config_makes_an_auto_sharded_bot() -> None:
    config = bot.Config.from_env({"DISCORD_TOKEN": "t", "SHARD_COUNT": "2",
                                  "SHARD_IDS": "1"}, None)
    sharded = bot.create_bot(config)
    assert isinstance(sharded, bot.ShardedWarhostBot)
    assert (sharded.shard_count, sharded.shard_ids) == (2, [1])
    plain = bot.create_bot(bot.Config.from_env({"DISCORD_TOKEN": "t"}, None))
    assert type(plain) is bot.WarhostBot


def test_the_lease_is_read_from_dotenv_too(tmp_path: Path) -> None:
    # it used to be read from the environment at import, before .env was loaded
    dotenv = tmp_path / ".env"
    dotenv.write_text(f"DISCORD_TOKEN={TOKEN}\nWARHOST_LEASE_SECONDS=7.5\n")
    assert Config.from_env({}, dotenv).lease_seconds == 7.5
    assert Config.from_env({"WARHOST_LEASE_SECONDS": "12"}, dotenv).lease_seconds == 12
    assert Config.from_env({"DISCORD_TOKEN": TOKEN}, tmp_path / "none").lease_seconds == 30


@pytest.mark.parametrize("bad", ["0", "-3", "nan", "inf", "1e9", "soon", "３"])
def test_a_bad_lease_is_refused_in_words(tmp_path: Path, bad: str) -> None:
    with pytest.raises(ConfigError, match="WARHOST_LEASE_SECONDS must be a number of "
                                          "seconds from 1 to 3600"):
        Config.from_env({"DISCORD_TOKEN": TOKEN, "WARHOST_LEASE_SECONDS": bad},
                        tmp_path / ".env")
