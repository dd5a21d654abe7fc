"""Warhost's web companion: read-only, live pages of games for a browser or a phone.

:class:`web.app.WebApp` serves them (aiohttp, which discord.py already brings), inside the
bot when ``WEB_PORT`` is set, or alone with ``python -m web`` against the bot's database
(several of them against PostgreSQL). What a page shows is made in :mod:`web.model` and
written as HTML in :mod:`web.pages`; replay frames are drawn once each by
:mod:`web.frames`; :mod:`web.live` tells open pages of new moves. See ``docs/web.md``.
"""
