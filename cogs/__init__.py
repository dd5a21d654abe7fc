"""discord.py cogs: thin adapters from slash commands and buttons to the Store and back.

``bot.py`` loads every module here that has a ``setup`` function, so a new game's
cog (``cogs/<kind>.py``) touches nothing else. ``cogs/common.py`` holds shared helpers.
"""
