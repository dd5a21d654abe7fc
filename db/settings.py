"""Reading Warhost's settings: the environment over a ``.env`` file.

One reader for the bot (``bot.Config``), its housekeeping cog and ``python -m db``, so
they all see the same values.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

from dotenv import dotenv_values

#: Where the games are when neither DATABASE_PATH nor DATABASE_URL is set.
DEFAULT_DATABASE_PATH = "./warhost.db"


def read_settings(environ: Mapping[str, str] | None = None,
                  dotenv_path: str | os.PathLike[str] | None = ".env") -> dict[str, str]:
    """``environ`` (default ``os.environ``) over the ``.env`` file, values stripped;
    empty values count as unset."""
    values: dict[str, str] = {}
    if dotenv_path is not None and Path(dotenv_path).is_file():
        for key, value in dotenv_values(dotenv_path).items():
            if value is not None and value.strip():
                values[key] = value.strip()
    for key, value in (os.environ if environ is None else environ).items():
        if value.strip():
            values[key] = value.strip()
    return values
