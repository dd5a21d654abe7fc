"""Moving a server's games from one database to another (SQLite to PostgreSQL, say).

:func:`copy_database` copies every row of every Warhost table, in the order the foreign
keys need, keeping ids, into a database that has no games yet; then it checks the copy
(row counts per table, and every game replayed from its seed and log by
``store.history.problems``). The source is only read. Run it with the bot stopped (or on
a backup taken with ``python -m db backup``) so nothing changes under it:

    python -m db copy ./warhost.db postgresql://warhost:...@host/warhost
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from db.backend import Connection
from db.records import StoreError
from db.store import Store

#: Warhost's tables, parents before children. Leases and ``bot_state`` are not copied:
#: they belong to the processes running on the old database (the new one syncs the
#: commands once).
TABLES = ("games", "actions", "announcements", "players", "channels", "vacations",
          "followers", "archives", "player_names", "web_links", "web_guilds", "web_keys",
          "game_results", "ratings", "ratings_meta", "server_settings")
#: Tables a new database fills itself, replaced by the copy (the key that signs personal
#: web links: copied, the links already given out stay good; whether ratings were built).
REPLACED = ("web_keys", "ratings_meta")
#: Tables whose ``id`` comes from a sequence in PostgreSQL (moved past the copied ids).
ID_TABLES = ("games", "announcements", "vacations")
BATCH = 500


@dataclass(frozen=True)
class Copied:
    """What was copied: rows per table, and the games checked by replaying them."""

    rows: dict[str, int]
    games_checked: int


async def _columns(conn: Connection, table: str) -> list[str]:
    if conn.dialect == "sqlite":
        rows = await conn.execute_fetchall(f"SELECT name FROM pragma_table_info('{table}')")
    else:
        rows = await conn.execute_fetchall(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = "
            "current_schema() AND table_name = ? ORDER BY ordinal_position", (table,))
    return [str(r[0]) for r in rows]


async def copy_database(source: str, target: str,
                        progress: Callable[[str], None] | None = None) -> Copied:
    """Copy every game from ``source`` into ``target`` (both a path or a URL); see the
    module's docstring. Raises :class:`StoreError` saying what is wrong."""
    say = progress or (lambda _: None)
    src = await Store.open(source)
    try:
        dst = await Store.open(target)
        try:
            return await _copy(src, dst, say)
        finally:
            await dst.close()
    finally:
        await src.close()


async def _copy(src: Store, dst: Store, say: Callable[[str], None]) -> Copied:
    async with dst.reading() as conn:
        rows = await conn.execute_fetchall("SELECT count(*) FROM games")
    if int(rows[0][0]):
        raise StoreError(f"The database {dst.path} already has {int(rows[0][0])} games; "
                         "copy into a new, empty database.")
    copied: dict[str, int] = {}
    async with src.reading(snapshot=True) as reader, dst.transaction() as writer:
        for table in TABLES:
            columns = await _columns(reader, table)
            if not columns:
                continue                    # a table this Warhost's schema does not have
            wanted = await _columns(writer, table)
            if sorted(wanted) != sorted(columns):
                raise StoreError(f"The table {table} differs between the databases "
                                 f"({columns} against {wanted}); run the same Warhost "
                                 "version on both.")
            if table in REPLACED:
                await writer.execute(f"DELETE FROM {table}")
            names = ", ".join(columns)
            marks = ", ".join("?" for _ in columns)
            count = 0
            offset = 0
            while True:
                batch = await reader.execute_fetchall(
                    f"SELECT {names} FROM {table} ORDER BY 1, 2 LIMIT ? OFFSET ?",
                    (BATCH, offset))
                if not batch:
                    break
                for row in batch:
                    await writer.execute(f"INSERT INTO {table} ({names}) VALUES ({marks})",
                                         tuple(row))
                count += len(batch)
                offset += BATCH
            copied[table] = count
            say(f"{table}: {count} rows")
        if writer.dialect == "postgresql":
            for table in ID_TABLES:
                await writer.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table}', 'id'), "
                    f"(SELECT COALESCE(max(id), 0) + 1 FROM {table}), false)")
    for table, count in copied.items():
        async with dst.reading() as conn:
            found = int((await conn.execute_fetchall(f"SELECT count(*) FROM {table}"))[0][0])
        if found != count:
            raise StoreError(f"The copy of {table} has {found} rows, not {count}.")
    async with dst.reading() as conn:
        ids = [int(r[0]) for r in await conn.execute_fetchall(
            "SELECT id FROM games ORDER BY id")]
    bad: list[str] = []
    for game_id in ids:
        for problem in await dst.history.problems(game_id):
            bad.append(f"game #{game_id}: {problem}")
    if bad:
        raise StoreError("The copy does not replay cleanly: " + "; ".join(bad[:5]))
    say(f"checked {len(ids)} games by replaying them")
    return Copied(copied, len(ids))
