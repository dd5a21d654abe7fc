"""``python -m web``: the web pages in a process of their own, against the bot's database.

Reads the same settings as the bot (``DATABASE_PATH`` or ``DATABASE_URL``, from the
environment or ``.env``) and the web's own (``WEB_PORT``, default 8080 here,
``WEB_HOST``, ``WEB_URL``, ``WEB_TRUST_PROXY``). Opens the database read-only: it never
writes, and refuses a database the bot has not set up yet.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import logging
import signal
import sys

from db import Store
from db.records import StoreError
from db.settings import DEFAULT_DATABASE_PATH, read_settings
from web.app import WebApp, WebSettings

log = logging.getLogger("warhost.web")

DEFAULT_PORT = 8080


async def serve(target: str, settings: WebSettings) -> None:
    store = await Store.open(target, readonly=True)
    app = WebApp(store, settings)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        with contextlib.suppress(NotImplementedError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await app.start()
        print(f"Warhost's web pages are at http://{settings.host}:{app.port}/ "
              "(Ctrl+C stops them)", flush=True)
        await stop.wait()
    finally:
        await app.stop()
        await store.close()


def main() -> int:
    env = read_settings()
    logging.basicConfig(level=env.get("LOG_LEVEL", "INFO").upper()
                        if env.get("LOG_LEVEL", "INFO").upper() in logging.getLevelNamesMapping()
                        else "INFO", format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        settings = WebSettings.from_env(env)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if settings.port is None:
        settings = dataclasses.replace(settings, port=DEFAULT_PORT)
    target = (env.get("DATABASE_URL") or env.get("DATABASE_PATH") or DEFAULT_DATABASE_PATH).strip()
    try:
        asyncio.run(serve(target, settings))
    except StoreError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"error: cannot listen on {settings.host}:{settings.port} ({exc.strerror or exc}). "
              "Set WEB_PORT to a free port.", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
