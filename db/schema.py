"""The database schema, as versioned migrations.

:data:`MIGRATIONS` is append-only: migration ``i`` (0-based) takes a database from
``PRAGMA user_version = i`` to ``i + 1``. Never edit a migration that has shipped;
add a new one. Each runs in its own ``BEGIN IMMEDIATE`` transaction together with the
``user_version`` bump, so a crash leaves the database at one version or the next.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from db.backend import SQLITE_TABLES
from db.records import StoreError

if TYPE_CHECKING:
    from db.backend import Backend, Connection

MIGRATIONS: list[str] = [
    # 1: games and their append-only action log.
    """
    CREATE TABLE games (
        id               INTEGER PRIMARY KEY AUTOINCREMENT,
        kind             TEXT    NOT NULL,
        guild_id         TEXT,
        channel_id       TEXT    NOT NULL,
        host_id          TEXT    NOT NULL,
        status           TEXT    NOT NULL
                         CHECK (status IN ('lobby', 'active', 'finished', 'aborted')),
        seats            TEXT    NOT NULL,            -- JSON array of player ids
        seed             INTEGER NOT NULL DEFAULT 0,  -- chosen at start
        options          TEXT    NOT NULL,            -- JSON object (resolved options)
        state            TEXT,                        -- engine dump; NULL in the lobby
        version          INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0),
        lobby_message_id TEXT,
        created_at       REAL    NOT NULL,
        updated_at       REAL    NOT NULL
    );

    -- One open game per channel; two racing creates cannot both insert.
    CREATE UNIQUE INDEX games_open_per_channel
        ON games (channel_id) WHERE status IN ('lobby', 'active');
    CREATE INDEX games_by_channel ON games (channel_id, id);
    CREATE INDEX games_open_by_guild
        ON games (guild_id, id) WHERE status IN ('lobby', 'active');

    CREATE TABLE actions (
        game_id    INTEGER NOT NULL REFERENCES games (id),
        seq        INTEGER NOT NULL CHECK (seq >= 1),
        player     TEXT    NOT NULL,
        action     TEXT    NOT NULL,
        events     TEXT    NOT NULL,   -- JSON array, canonical
        request_id TEXT    UNIQUE,
        created_at REAL    NOT NULL,
        PRIMARY KEY (game_id, seq)
    ) WITHOUT ROWID;

    CREATE TRIGGER actions_append_only_update BEFORE UPDATE ON actions
    BEGIN
        SELECT RAISE(ABORT, 'the action log is append-only');
    END;
    CREATE TRIGGER actions_append_only_delete BEFORE DELETE ON actions
    BEGIN
        SELECT RAISE(ABORT, 'the action log is append-only');
    END;
    """,
    # 2: what the channel must be told, saved with the move that makes it due (the
    # outbox), and what binds a move to the decision it was chosen for.
    """
    ALTER TABLE games ADD COLUMN digest_seq INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE games ADD COLUMN decisions TEXT NOT NULL DEFAULT '{}';
    UPDATE games SET digest_seq = version;

    CREATE TABLE announcements (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id      INTEGER NOT NULL REFERENCES games (id),
        seq          INTEGER NOT NULL,        -- the game version it tells of
        kind         TEXT    NOT NULL CHECK (kind IN ('digest', 'reply', 'private')),
        recipient    TEXT,                    -- who a reply or private note is for
        payload      TEXT    NOT NULL,        -- JSON, canonical
        secret       TEXT,                    -- an interaction token; cleared once used
        created_at   REAL    NOT NULL,
        delivered_at REAL,
        message_id   TEXT
    );
    CREATE INDEX announcements_pending
        ON announcements (game_id, id) WHERE delivered_at IS NULL;
    """,
    # 3: games that last weeks: time controls, reminders, vacations, followers, undo.
    """
    ALTER TABLE games ADD COLUMN timing TEXT NOT NULL DEFAULT '{}';  -- control, banks, timeouts
    ALTER TABLE games ADD COLUMN nudges TEXT NOT NULL DEFAULT '{}';  -- reminders per player
    ALTER TABLE games ADD COLUMN wake_at REAL;       -- when the scheduler must look again
    CREATE INDEX games_to_wake ON games (wake_at) WHERE status = 'active';
    UPDATE games SET wake_at = updated_at WHERE status = 'active';

    -- Who (or what) made a logged action: the player, their clock running out, an undo.
    ALTER TABLE actions ADD COLUMN origin TEXT NOT NULL DEFAULT 'player';

    -- More kinds of announcement (a CHECK cannot be altered in place).
    CREATE TABLE announcements_v3 (
        id           INTEGER PRIMARY KEY AUTOINCREMENT,
        game_id      INTEGER NOT NULL REFERENCES games (id),
        seq          INTEGER NOT NULL,
        kind         TEXT    NOT NULL CHECK (kind IN ('digest', 'reply', 'private', 'notice',
                                                      'direct', 'follow', 'status', 'recap')),
        recipient    TEXT,
        payload      TEXT    NOT NULL,
        secret       TEXT,
        created_at   REAL    NOT NULL,
        delivered_at REAL,
        message_id   TEXT
    );
    INSERT INTO announcements_v3 SELECT id, game_id, seq, kind, recipient, payload, secret,
        created_at, delivered_at, message_id FROM announcements;
    DROP TABLE announcements;
    ALTER TABLE announcements_v3 RENAME TO announcements;
    CREATE INDEX announcements_pending
        ON announcements (game_id, id) WHERE delivered_at IS NULL;
    CREATE INDEX announcements_by_kind ON announcements (game_id, kind, id);

    -- A player's own settings (every server): time zone, quiet hours, reminders.
    CREATE TABLE players (
        user_id        TEXT PRIMARY KEY,
        timezone       TEXT,
        quiet_start    INTEGER,          -- minutes after local midnight
        quiet_end      INTEGER,
        dm_reminders   INTEGER NOT NULL DEFAULT 0,
        reminder_every REAL,             -- seconds; NULL: the channel's
        updated_at     REAL    NOT NULL
    ) WITHOUT ROWID;

    -- A channel's settings, set by the server's admins.
    CREATE TABLE channels (
        channel_id     TEXT PRIMARY KEY,
        guild_id       TEXT,
        reminder_every REAL,
        reminder_limit INTEGER,
        updated_at     REAL    NOT NULL
    ) WITHOUT ROWID;

    -- Vacations pause a player's clocks and reminders in every game of one server.
    CREATE TABLE vacations (
        id        INTEGER PRIMARY KEY AUTOINCREMENT,
        guild_id  TEXT    NOT NULL,
        user_id   TEXT    NOT NULL,
        starts_at REAL    NOT NULL,
        ends_at   REAL    NOT NULL CHECK (ends_at >= starts_at)
    );
    CREATE INDEX vacations_by_user ON vacations (guild_id, user_id, ends_at);

    -- Spectators who get a game's turn digests by direct message.
    CREATE TABLE followers (
        game_id INTEGER NOT NULL REFERENCES games (id),
        user_id TEXT    NOT NULL,
        PRIMARY KEY (game_id, user_id)
    ) WITHOUT ROWID;
    """,
    # 4: several bot processes on one database: who runs a shared job (the scheduler, a
    # game's deliveries, backups) holds its lease until it expires.
    """
    CREATE TABLE leases (
        name       TEXT PRIMARY KEY,
        holder     TEXT NOT NULL,
        expires_at REAL NOT NULL
    ) WITHOUT ROWID;
    """,
    # 5: finished games archived (db/archive.py): each one's log compacted into one
    # replayable record.
    """
    CREATE TABLE archives (
        game_id     INTEGER PRIMARY KEY REFERENCES games (id),
        log         BLOB    NOT NULL,   -- zlib of canonical JSON (db/archive.py)
        actions     INTEGER NOT NULL CHECK (actions >= 0),
        archived_at REAL    NOT NULL
    );

    -- The log stays append-only, except for the actions of a game whose archive holds them.
    DROP TRIGGER actions_append_only_delete;
    CREATE TRIGGER actions_append_only_delete BEFORE DELETE ON actions
    WHEN NOT EXISTS (SELECT 1 FROM archives
                     WHERE archives.game_id = OLD.game_id AND archives.actions >= OLD.seq)
    BEGIN
        SELECT RAISE(ABORT, 'the action log is append-only');
    END;
""",
    # 6: the web companion (web/): each game's unguessable public id, players' display
    # names (pages name players; Discord's own caches are not there), personal links
    # (a user's links to one game are revoked by moving its generation on), the key that
    # signs those links, and which servers list their games on a page.
    """
    ALTER TABLE games ADD COLUMN public_id TEXT;
    UPDATE games SET public_id = lower(hex(randomblob(12)));
    CREATE UNIQUE INDEX games_by_public_id ON games (public_id);

    CREATE TABLE player_names (
        guild_id   TEXT NOT NULL,          -- '' for direct messages
        user_id    TEXT NOT NULL,
        name       TEXT NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, user_id)
    ) WITHOUT ROWID;

    CREATE TABLE web_links (
        game_id    INTEGER NOT NULL REFERENCES games (id),
        user_id    TEXT    NOT NULL,
        generation INTEGER NOT NULL DEFAULT 0,
        updated_at REAL    NOT NULL,
        PRIMARY KEY (game_id, user_id)
    ) WITHOUT ROWID;

    CREATE TABLE web_keys (
        id     INTEGER PRIMARY KEY CHECK (id = 1),
        secret TEXT NOT NULL
    );
    INSERT INTO web_keys (id, secret) VALUES (1, lower(hex(randomblob(32))));

    CREATE TABLE web_guilds (
        guild_id   TEXT PRIMARY KEY,
        listed     INTEGER NOT NULL DEFAULT 0,
        name       TEXT    NOT NULL DEFAULT '',   -- the name its page shows
        updated_at REAL    NOT NULL
    ) WITHOUT ROWID;
    """,
    # 7: ratings and statistics. Both tables are derived from the finished games (their
    # final positions, seats and timing) and can be made again exactly by
    # python -m db ratings --rebuild: game_results holds one row per seat of each finished
    # game, ratings each player s current rating per server and game kind. ratings_meta
    # says whether the derived tables were ever built (a database that had finished games
    # before this migration builds them once, at the bot s start).
    """
    CREATE TABLE game_results (
        game_id     INTEGER NOT NULL REFERENCES games (id),
        seat        INTEGER NOT NULL,          -- 0-based, in seat order
        guild_id    TEXT    NOT NULL,          -- '' for direct messages
        kind        TEXT    NOT NULL,
        player      TEXT    NOT NULL,          -- a user id, or computer:<level>
        side        TEXT    NOT NULL DEFAULT '',
        place       INTEGER,                   -- 1 = won; NULL: the game had no result
        won         INTEGER NOT NULL,
        players     INTEGER NOT NULL,
        rated       INTEGER NOT NULL,
        finished_at REAL    NOT NULL,
        started_at  REAL    NOT NULL,
        rounds      INTEGER,
        timeouts    INTEGER NOT NULL DEFAULT 0,
        decisions   INTEGER NOT NULL DEFAULT 0,
        thinking    REAL    NOT NULL DEFAULT 0,
        mu          REAL,                      -- the rating after this game, if rated
        sigma       REAL,
        PRIMARY KEY (game_id, seat)
    );
    CREATE INDEX game_results_by_player
        ON game_results (guild_id, player, kind, finished_at, game_id, seat);
    CREATE INDEX game_results_by_kind ON game_results (kind, guild_id, finished_at, game_id);

    CREATE TABLE ratings (
        guild_id TEXT NOT NULL,
        kind     TEXT NOT NULL,
        player   TEXT NOT NULL,
        mu       REAL NOT NULL,
        sigma    REAL NOT NULL,
        score    REAL NOT NULL,               -- mu - 3 sigma, what leaderboards sort by
        games    INTEGER NOT NULL,
        wins     INTEGER NOT NULL,
        last_at  REAL NOT NULL,
        PRIMARY KEY (guild_id, kind, player)
    ) WITHOUT ROWID;
    CREATE INDEX ratings_by_score ON ratings (guild_id, kind, score);

    CREATE TABLE ratings_meta (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        built INTEGER NOT NULL
    );
    INSERT INTO ratings_meta (id, built) SELECT 1, CASE WHEN EXISTS
        (SELECT 1 FROM games WHERE status = 'finished') THEN 0 ELSE 1 END;
    """,
    # 8: committed dice and games started from a position. dice holds the commitment
    # posted in the lobby, the secret seed and salt behind it (revealed when the game
    # ends), and each seat contribution mixed in at the start; origin holds the position
    # a game started from (empty for a game dealt afresh).
    """
    ALTER TABLE games ADD COLUMN dice TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE games ADD COLUMN origin TEXT NOT NULL DEFAULT '{}';
    """,
    # 9: each server's own settings (/settings; db/server_settings.py), one row per
    # setting a server changed (a setting with no row is the environment's default), and
    # a few values the bot processes share (the hash of the commands last synced).
    """
    CREATE TABLE server_settings (
        guild_id   TEXT NOT NULL,
        name       TEXT NOT NULL,
        value      TEXT NOT NULL,
        updated_at REAL NOT NULL,
        PRIMARY KEY (guild_id, name)
    ) WITHOUT ROWID;

    CREATE TABLE bot_state (
        name       TEXT PRIMARY KEY,
        value      TEXT NOT NULL,
        updated_at REAL NOT NULL
    ) WITHOUT ROWID;
    """,
    # 10: interactions deferred and not yet answered (db/pending.py). A row is made when
    # a command defers (the player sees "thinking") and deleted once it is answered: a
    # move by the trigger below, in the transaction that saves the answer to it; any
    # other command after its reply. At start the bot answers what a crash left. secret
    # is the interaction token (never logged), good until expires_at (15 minutes);
    # shards names the process that took it (its SHARD_IDS, empty for all shards).
    """
    CREATE TABLE pending_interactions (
        interaction_id TEXT PRIMARY KEY,
        application_id TEXT NOT NULL,
        secret         TEXT NOT NULL,
        kind           TEXT NOT NULL,          -- move or command
        shards         TEXT NOT NULL,
        created_at     REAL NOT NULL,
        expires_at     REAL NOT NULL
    ) WITHOUT ROWID;

    CREATE TRIGGER announcements_conclude_pending AFTER INSERT ON announcements
    WHEN NEW.kind = 'reply'
    BEGIN
        DELETE FROM pending_interactions
         WHERE interaction_id = json_extract(NEW.payload, '$.interaction_id');
    END;
    """,
    # 11: how many changing transactions the database holds, counted in each of them,
    # and the identity of this database (db/witness.py compares the count with the one
    # noted beside the file, outside the write-ahead log, to find lost commits).
    """
    CREATE TABLE warhost_commits (
        id       INTEGER PRIMARY KEY CHECK (id = 1),
        identity TEXT NOT NULL,
        count    INTEGER NOT NULL CHECK (count >= 0)
    );
    INSERT INTO warhost_commits (id, identity, count) VALUES (1, lower(hex(randomblob(16))), 0);
    """,
    # 12: the undelivered announcements of every game, oldest first (the delivery sweep
    # at start and every 20 s): with only the per-game index, SQLite scanned the whole
    # table for it (seconds at 100,000 games).
    """
    CREATE INDEX announcements_undelivered ON announcements (id) WHERE delivered_at IS NULL;
    """,
]

SCHEMA_VERSION = len(MIGRATIONS)


def split_statements(script: str) -> list[str]:
    """Split a script into complete statements (trigger bodies stay whole).

    ``executescript`` would commit any open transaction first, so migrations run
    statement by statement inside their own transaction instead.
    """
    statements: list[str] = []
    pending = ""
    pieces = script.split(";")
    for piece in pieces[:-1]:
        pending += piece + ";"
        if sqlite3.complete_statement(pending):
            statement = pending.strip()
            if statement.strip(";").strip():
                statements.append(statement)
            pending = ""
    pending += pieces[-1]
    if pending.strip():
        raise ValueError(f"incomplete SQL statement in migration: {pending.strip()[:80]}")
    return statements


async def user_version(conn: Connection) -> int:
    """The schema version the database is at (0: no Warhost schema yet)."""
    if conn.dialect == "sqlite":
        rows = await conn.execute_fetchall("PRAGMA user_version")
        return int(rows[0][0])
    # A query of the catalog, not to_regclass(): that answers from this connection's
    # cache, which may not have seen another process's migration commit yet.
    rows = await conn.execute_fetchall(
        "SELECT count(*) FROM pg_catalog.pg_tables WHERE schemaname = current_schema() "
        "AND tablename = 'warhost_schema'")
    if not rows[0][0]:
        return 0
    rows = await conn.execute_fetchall("SELECT max(version) FROM warhost_schema")
    return int(rows[0][0] or 0)


async def _set_version(conn: Connection, version: int) -> None:
    if conn.dialect == "sqlite":
        await conn.execute(f"PRAGMA user_version = {version:d}")
        return
    await conn.execute("CREATE TABLE IF NOT EXISTS warhost_schema (version INTEGER NOT NULL)")
    await conn.execute("DELETE FROM warhost_schema")
    await conn.execute("INSERT INTO warhost_schema (version) VALUES (?)", (version,))


def migrations_for(dialect: str) -> list[str]:
    if dialect == "sqlite":
        return MIGRATIONS
    from db import schema_pg

    return schema_pg.MIGRATIONS


def statements_of(dialect: str, script: str) -> list[str]:
    if dialect == "sqlite":
        return split_statements(script)
    from db import schema_pg

    return schema_pg.split_statements(script)


#: Any number, the same in every Warhost: the advisory lock migrating processes share.
_MIGRATION_LOCK = 0x57A7_4057


async def migrate(backend: Backend, where: str, migrations: list[str] | None = None) -> int:
    """Bring the database up to date; returns the schema version it ends at.

    Each step runs in its own write transaction with its version bump (PostgreSQL:
    behind an advisory lock, so processes starting together migrate once). Raises
    :class:`StoreError` if the database is newer than this code knows.
    """
    steps = migrations_for(backend.dialect) if migrations is None else migrations
    while True:
        async with backend.transaction() as conn:
            if conn.dialect == "postgresql":
                await conn.execute("SELECT pg_advisory_xact_lock(?)", (_MIGRATION_LOCK,))
            # Another process may have migrated while we waited for the lock.
            current = await user_version(conn)
            if current > len(steps):
                raise StoreError(
                    f"The database {where} has schema version {current}, but this Warhost "
                    f"only knows versions up to {len(steps)}: it was written by a newer "
                    "Warhost. Upgrade Warhost, or point DATABASE_PATH (or DATABASE_URL) at "
                    "another database.")
            if current == len(steps):
                return current
            if current == 0 and migrations is None:
                # Checked here, under the lock: a process migrating a moment ago must
                # not make its fresh tables look like another application's.
                tables = await foreign_tables(conn)
                if tables:
                    shown = ", ".join(tables[:5]) + (" ..." if len(tables) > 5 else "")
                    raise StoreError(
                        f"The database {where} belongs to another application (it has "
                        f"tables {shown} but no Warhost schema); Warhost will not add its "
                        "tables to it. Point DATABASE_PATH (or DATABASE_URL) at a new file "
                        "or database.")
            for statement in statements_of(conn.dialect, steps[current]):
                await conn.execute(statement)
            await _set_version(conn, current + 1)


async def foreign_tables(conn: Connection) -> list[str]:
    """Tables in a database with no Warhost schema version (another application's)."""
    if conn.dialect == "sqlite":
        rows = await conn.execute_fetchall(SQLITE_TABLES)
    else:
        rows = await conn.execute_fetchall(
            "SELECT table_name FROM information_schema.tables "
            "WHERE table_schema = current_schema() AND table_name <> 'warhost_schema' "
            "ORDER BY table_name")
    return [str(r[0]) for r in rows]
