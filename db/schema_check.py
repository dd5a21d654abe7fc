"""Is the database's schema the one Warhost's migrations built?

A column renamed by hand, a dropped table or a trigger changed by another program
passes the schema *version* check, and then fails every query that touches it. So at
start (and in ``python -m db check``) the schema is compared, structure by structure,
with the one the migrations build on an empty database of the same kind: a SQLite
database in memory, or, on PostgreSQL, a scratch schema inside a transaction that is
rolled back (nothing is ever left behind).

What is compared: every table's columns (name, type, nullability, default, primary
key, in order), its indexes and its triggers (their definitions). Tables Warhost does
not know are reported but allowed (an admin's own notes table harms nothing); anything
missing, changed or added to Warhost's own tables is a difference, except an index that
is not unique (it only speeds reads up).
"""

from __future__ import annotations

import logging
import re
import uuid
from dataclasses import dataclass, field

from db.backend import Connection, DatabaseError, SQLiteBackend
from db.schema import SCHEMA_VERSION, migrate, migrations_for, statements_of

log = logging.getLogger("warhost.db")

#: Table names SQLite or PostgreSQL keep for themselves.
_INTERNAL = re.compile(r"^(sqlite_|pg_)")


@dataclass(frozen=True)
class Shape:
    """A database's schema, as comparable text: table -> its parts."""

    columns: dict[str, tuple[str, ...]] = field(default_factory=dict)
    indexes: dict[str, dict[str, str]] = field(default_factory=dict)
    triggers: dict[str, dict[str, str]] = field(default_factory=dict)


def _squash(sql: str | None) -> str:
    """SQL text with its spacing normalised (the migrations' indentation is not schema)."""
    text = re.sub(r"\s+", " ", sql or "").strip()
    return re.sub(r"\s*([(),])\s*", r"\1", text).rstrip(";").lower()


async def shape_of(conn: Connection) -> Shape:
    """The schema of the database behind ``conn``."""
    if conn.dialect == "sqlite":
        return await _sqlite_shape(conn)
    return await _postgres_shape(conn)


async def _sqlite_shape(conn: Connection) -> Shape:
    shape = Shape()
    rows = await conn.execute_fetchall(
        "SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY name")
    for kind, name, table, sql in rows:
        name, table = str(name), str(table)
        if _INTERNAL.match(table):
            continue
        if kind == "table":
            columns = await conn.execute_fetchall(f'PRAGMA table_info("{name}")')
            shape.columns[name] = tuple(
                f"{c[1]} {str(c[2]).upper()} notnull={c[3]} default={c[4]} pk={c[5]}"
                for c in columns)
        elif kind == "index":
            # An automatic index (a UNIQUE or PRIMARY KEY constraint's) has no SQL: its
            # columns say what it is.
            text = _squash(sql) if sql else "auto(" + ",".join(
                str(c[2]) for c in await conn.execute_fetchall(
                    f'PRAGMA index_info("{name}")')) + ")"
            shape.indexes.setdefault(table, {})[name] = text
        elif kind == "trigger":
            shape.triggers.setdefault(table, {})[name] = _squash(sql)
    return shape


async def _postgres_shape(conn: Connection) -> Shape:
    shape = Shape()
    schema = str((await conn.execute_fetchall("SELECT current_schema()"))[0][0])

    def local(text: object) -> str:
        # The schema's own name appears in definitions; the scratch one differs.
        return str(text).replace(f'"{schema}".', "").replace(f"{schema}.", "")

    for table, column, kind, nullable, default in await conn.execute_fetchall(
            "SELECT table_name, column_name, data_type, is_nullable, column_default "
            "FROM information_schema.columns WHERE table_schema = current_schema() "
            "ORDER BY table_name, ordinal_position"):
        entry = f"{column} {str(kind).upper()} nullable={nullable} default={local(default)}"
        shape.columns[str(table)] = (*shape.columns.get(str(table), ()), entry)
    for table, name, definition in await conn.execute_fetchall(
            "SELECT tablename, indexname, indexdef FROM pg_indexes "
            "WHERE schemaname = current_schema()"):
        shape.indexes.setdefault(str(table), {})[str(name)] = _squash(local(definition))
    for table, name, event, timing, action in await conn.execute_fetchall(
            "SELECT event_object_table, trigger_name, event_manipulation, action_timing, "
            "action_statement FROM information_schema.triggers "
            "WHERE trigger_schema = current_schema()"):
        triggers = shape.triggers.setdefault(str(table), {})
        # One row per event: a trigger on UPDATE OR DELETE is two rows.
        seen = triggers.get(str(name), "")
        part = _squash(f"{timing} {event} {local(action)}")
        triggers[str(name)] = " | ".join(sorted(filter(None, [*seen.split(" | "), part])))
    return shape


_expected: dict[str, Shape] = {}


class _RollBack(Exception):
    """Raised to roll the scratch schema back."""


async def expected_shape(conn: Connection) -> Shape | None:
    """The schema the migrations build on an empty database of ``conn``'s kind (worked
    out once per process); None when PostgreSQL will not let this role build it."""
    found = _expected.get(conn.dialect)
    if found is not None:
        return found
    if conn.dialect == "sqlite":
        backend = await SQLiteBackend.open(":memory:")
        try:
            await migrate(backend, "memory")
            async with backend.reading() as scratch:
                found = await shape_of(scratch)
        finally:
            await backend.close()
    else:
        try:
            found = await _postgres_scratch_shape(conn)
        except DatabaseError as exc:
            # A role allowed its own schema but not CREATE on the database: no scratch.
            log.warning("Could not compare the database's schema with the migrations' (%s: "
                        "Warhost's role may not create a scratch schema); not checked", exc)
            return None
    _expected[conn.dialect] = found
    return found


async def _postgres_scratch_shape(conn: Connection) -> Shape:
    """On PostgreSQL: every migration run in a scratch schema, read back, rolled back."""
    scratch = f"warhost_expected_{uuid.uuid4().hex[:12]}"
    await conn.execute("BEGIN")
    try:
        await conn.execute(f"CREATE SCHEMA {scratch}")
        await conn.execute(f"SET LOCAL search_path TO {scratch}")
        for script in migrations_for(conn.dialect):
            for statement in statements_of(conn.dialect, script):
                await conn.execute(statement)
        await conn.execute("CREATE TABLE warhost_schema (version INTEGER NOT NULL)")
        shape = await shape_of(conn)
    finally:
        await conn.execute("ROLLBACK")
    return shape


def differences(expected: Shape, found: Shape) -> tuple[list[str], list[str]]:
    """(what differs from the migrations' schema, what was added that harms nothing:
    tables Warhost does not know, indexes that are not unique)."""
    problems: list[str] = []
    allowed: list[str] = []
    for table, columns in sorted(expected.columns.items()):
        have = found.columns.get(table)
        if have is None:
            problems.append(f"table {table} is missing")
            continue
        if have != columns:
            names = [c.split(" ", 1)[0] for c in columns]
            got = [c.split(" ", 1)[0] for c in have]
            missing = [n for n in names if n not in got]
            extra = [n for n in got if n not in names]
            if missing or extra:
                parts = ([f"no column {', '.join(missing)}"] if missing else []) + (
                    [f"an unknown column {', '.join(extra)}"] if extra else [])
                problems.append(f"table {table} has {' and '.join(parts)}")
            else:
                changed = [n for n, a, b in zip(names, columns, have, strict=True) if a != b]
                what = ", ".join(changed) or "in another order"
                problems.append(f"table {table}: columns changed ({what})")
        for label, wanted, held in (
                ("index", expected.indexes.get(table, {}), found.indexes.get(table, {})),
                ("trigger", expected.triggers.get(table, {}), found.triggers.get(table, {}))):
            for name in sorted(wanted.keys() - held.keys()):
                problems.append(f"{label} {name} on {table} is missing")
            for name in sorted(held.keys() - wanted.keys()):
                if label == "index" and "unique" not in held[name]:
                    allowed.append(f"index {name} on {table}")    # only speeds reads up
                else:
                    problems.append(f"table {table} has an unknown {label} {name}")
            for name in sorted(wanted.keys() & held.keys()):
                if wanted[name] != held[name]:
                    problems.append(f"{label} {name} on {table} was changed")
    allowed += [f"table {t}" for t in sorted(found.columns.keys() - expected.columns.keys())]
    return problems, allowed


async def schema_problems(conn: Connection) -> tuple[list[str], list[str]]:
    """(differences from the migrations' schema, harmless additions) for the database behind
    ``conn``, which must be at :data:`db.schema.SCHEMA_VERSION`."""
    expected = await expected_shape(conn)
    if expected is None:
        return [], []
    return differences(expected, await shape_of(conn))


def drift_message(where: str, problems: list[str]) -> str:
    shown = "; ".join(problems[:6]) + (f"; and {len(problems) - 6} more"
                                       if len(problems) > 6 else "")
    return (f"The database {where} is at schema version {SCHEMA_VERSION}, but its tables "
            f"are not the ones Warhost's migrations built: {shown}. It was changed by hand "
            "or by another program, and Warhost would fail on it. Undo that change, or "
            "restore the newest backup (`python -m db restore BACKUP_FILE`, docs/backups.md).")
