"""The two storage backends, for tests: where each test's database is, and raw access.

A test that takes the ``database`` fixture (tests/conftest.py) runs once on SQLite (a
fresh file) and once on PostgreSQL (a fresh schema in the server named by
``WARHOST_TEST_POSTGRES``, e.g. ``postgresql://postgres@127.0.0.1:5432/postgres``).
Without that variable, or with the server unreachable, the PostgreSQL half is skipped,
and the end of the run says so.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import os
import sqlite3
import uuid
from collections.abc import Coroutine
from typing import Any, TypeVar
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from db.backend import is_postgres, postgres_sql

T = TypeVar("T")


def _raw_errors() -> tuple[tuple[type[BaseException], ...], tuple[type[BaseException], ...]]:
    try:
        import asyncpg
    except ImportError:     # no postgres extra: only SQLite runs (postgres_problem says so)
        return (sqlite3.Error,), (sqlite3.IntegrityError,)
    return ((sqlite3.Error, asyncpg.PostgresError),
            (sqlite3.IntegrityError, asyncpg.IntegrityConstraintViolationError))


#: What :func:`raw` raises when the database refuses: any error, a constraint's.
RAW_ERRORS, RAW_INTEGRITY_ERRORS = _raw_errors()

POSTGRES_ENV = "WARHOST_TEST_POSTGRES"
_reachable: dict[str, str | None] = {}


def postgres_url() -> str | None:
    return os.environ.get(POSTGRES_ENV) or None


def postgres_problem() -> str | None:
    """Why the PostgreSQL half cannot run (None: it can)."""
    url = postgres_url()
    if url is None:
        return f"{POSTGRES_ENV} is not set"
    try:
        import asyncpg  # noqa: F401
    except ImportError:
        return ("asyncpg is not installed (the postgres extra: make sets it up when "
                f"{POSTGRES_ENV} is set; or make test EXTRAS=dev,postgres)")
    if url not in _reachable:
        async def probe() -> None:
            import asyncpg

            conn = await asyncpg.connect(url, timeout=5)
            await conn.close()

        try:
            _run(probe())
            _reachable[url] = None
        except Exception as exc:
            _reachable[url] = f"cannot reach {url}: {exc}"
    return _reachable[url]


def _run(coro: Coroutine[Any, Any, T]) -> T:
    """Run a coroutine to the end from sync code, even inside a running event loop."""
    with concurrent.futures.ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coro).result()


def with_schema(url: str, schema: str) -> str:
    """``url`` whose connections use ``schema`` (asyncpg passes unknown query
    parameters on as server settings)."""
    parts = urlsplit(url)
    query = dict(parse_qsl(parts.query))
    query["search_path"] = schema
    return urlunsplit(parts._replace(query=urlencode(query)))


def new_postgres_database() -> tuple[str, str]:
    """A fresh, empty schema: (its URL, its name)."""
    url = postgres_url()
    assert url is not None
    schema = f"t_{uuid.uuid4().hex[:16]}"
    _pg(url, f"CREATE SCHEMA {schema}")
    return with_schema(url, schema), schema


def drop_postgres_database(schema: str) -> None:
    url = postgres_url()
    assert url is not None
    _pg(url, f"DROP SCHEMA IF EXISTS {schema} CASCADE")


def _pg(url: str, sql: str, params: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    async def go() -> list[tuple[Any, ...]]:
        import asyncpg

        conn = await asyncpg.connect(url, timeout=10)
        try:
            text, returning = postgres_sql(sql)
            if text.lstrip().upper().startswith(("SELECT", "WITH")) or returning:
                return [tuple(r) for r in await conn.fetch(text, *params)]
            await conn.execute(text, *params)
            return []
        finally:
            await conn.close()

    return _run(go())


def raw(target: str, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
    """Run ``sql`` (``?`` placeholders) on its own connection, committed; the rows."""
    if is_postgres(target):
        return _pg(target, sql, params)
    con = sqlite3.connect(target, isolation_level=None)
    try:
        return con.execute(sql, params).fetchall()
    finally:
        con.close()


TABLES = ("games", "actions", "announcements", "players", "channels", "vacations",
          "followers", "leases", "server_settings", "bot_state")


def snapshot(target: str) -> list[str]:
    """Every row of Warhost's tables, as text, in a stable order."""
    rows: list[str] = []
    for table in TABLES:
        for row in sorted(repr(tuple(r)) for r in raw(target, f"SELECT * FROM {table}")):
            rows.append(f"{table}: {row}")
    return rows
