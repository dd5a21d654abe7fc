"""discord.py cogs: thin adapters from slash commands and buttons to the store and back.

``bot.py`` loads every module here that has a ``setup`` function (an extension); the
others are shared by them. Where to look:

- ``game.py`` — ``/game`` and ``/play``; ``lobby.py`` the lobby and its buttons;
  ``history.py`` ``/game log`` and the undo preview; ``help.py`` ``/help`` (written from
  the registered commands); ``hosting.py`` ``/vacation``, ``/reminders``, ``/mygames``;
  ``settings.py`` ``/settings`` (a server's own settings); ``privacy.py`` ``/privacy``.
- ``verbs.py`` (loaded by ``groups.py``) — every game's ``/<kind>`` group and ``/hand``,
  built from the verbs the game declares; an optional ``<kind>.py`` adds what is truly
  that game's own (labels, prompts, extra looks).
- ``moves.py`` — :func:`~cogs.moves.submit`, the one path from an interaction to a move.
- ``wording.py`` — every text players read (digest, reply, prompts, reminders, DMs).
- ``outbox.py`` — delivers the announcements each move saved, at least once.
- ``interactions.py``, ``names.py``, ``choices.py``, ``workers.py``, ``boards.py``,
  ``computers.py``, ``scheduler.py``, ``limits.py``, ``maintenance.py`` — replies and
  errors, display names, autocomplete helpers, background work, board drawing, computer
  players, clocks and reminders, rate limits, backups.
"""
