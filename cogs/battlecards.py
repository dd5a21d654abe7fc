"""Battlecards in Discord: ``/hand`` (your secrets, only to you) and ``/battlecards``
(friendly forms of every action).

Secrets (docs/games/battlecards-interface.md): the reserve hand, the deployed stacks and
the kept cards are private to their owner. Here that means:

- ``/hand`` answers ephemerally from ``GAME.view(state, caller)``; anyone without a seat
  gets "you have no hand in this game".
- Hand and kept slots are labelled with their cards only in the caller's own
  autocomplete, computed from the caller's own view and offered only when the caller may
  act; the notation itself (``deploy 2``, ``play 1 g1``) names no card.
- Private events (cards drawn, deployed, kept; a scouted stack) are told only to their
  player, through :func:`cogs.common.send_private` (ephemeral to the actor, else a DM),
  with the words registered here (the engine narrates public events only).
- Units fighting in a battle are public while it lasts, so their names label unit refs.
"""

from __future__ import annotations

import logging
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import discord
from discord import app_commands
from discord.ext import commands

import engine
from cogs import common
from cogs.common import reply_error, send_ephemeral, store_of
from cogs.game import legal_for

log = logging.getLogger("warhost.cogs.battlecards")

KIND = "battlecards"
FORCES = ("ground", "air", "sea")
FORCE_NAMES = {"ground": "Ground", "air": "Air", "sea": "Sea"}
Slot = app_commands.Range[str, 1, 100]
Ref = app_commands.Range[str, 1, 100]

NO_HAND = "You have no hand in this game: only its two players have cards."
NOT_HERE = "There is no Battlecards game under way in this channel."

DRAW, EMERGENCY, DONE, ATTACK, DECLINE, PASS, STAY = (
    "draw", "emergency", "done", "attack", "decline", "pass", "stay")


# -- notation (pure) --------------------------------------------------------------------


def slot_of(text: str) -> str:
    """A hand or kept slot: ``"2"``, or a choice's label typed out (``"2 · Spitfire …"``)."""
    word = common.normal_word(text)
    match = re.match(r"#?(\d{1,3})\b", word)
    return match[1] if match else word


def ref_of(text: str) -> str:
    """A unit ref: ``"g1"``, or a choice's label typed out (``"g1 · Panzer IV"``)."""
    word = common.normal_word(text)
    match = re.match(r"([gas]\d{1,2})\b", word)
    return match[1] if match else word


def deploy_notation(slot: str) -> str:
    return f"deploy {slot_of(slot)}"


def scout_notation(stack: str) -> str:
    return f"scout {common.normal_word(stack)}"


def fire_notation(unit: str, target: str) -> str:
    return f"fire {ref_of(unit)} {ref_of(target)}"


def support_notation(supporter: str, unit: str) -> str:
    return f"support {ref_of(supporter)} {ref_of(unit)}"


def play_notation(kept: str, unit: str) -> str:
    return f"play {slot_of(kept)} {ref_of(unit)}"


def withdraw_notation(unit: str) -> str:
    return f"withdraw {ref_of(unit)}"


def autofire_notation(setting: str) -> str:
    word = common.normal_word(setting)
    if word in ("true", "yes", "1"):
        word = "on"
    elif word in ("false", "no", "0"):
        word = "off"
    return f"autofire {word}"


# -- choices from legal actions (pure) ----------------------------------------------------


def firsts(actions: Iterable[str], verb: str) -> list[str]:
    """The first argument of every legal ``verb`` action, in order of first appearance."""
    return common.first_args(actions, verb)


def seconds(actions: Iterable[str], verb: str, first: str | None) -> list[str]:
    """The second argument of legal ``verb`` actions whose first is ``first`` (any first
    when it is empty)."""
    wanted = common.normal_word(first)
    if verb in ("fire", "support"):
        wanted = ref_of(wanted) if wanted else ""
    elif verb == "play":
        wanted = slot_of(wanted) if wanted else ""
    return common.second_args(actions, verb, wanted)


# -- what a view says (pure) --------------------------------------------------------------


def player_entry(view: Mapping[str, Any], player: str) -> dict[str, Any] | None:
    for entry in view.get("players") or ():
        if isinstance(entry, dict) and str(entry.get("id")) == player:
            return entry
    return None


def own_entry(view: Mapping[str, Any], player: str) -> dict[str, Any] | None:
    """The caller's entry of *their own* view, with its private parts; None otherwise
    (a view seen by someone else never labels anything)."""
    if str(view.get("viewer")) != player:
        return None
    entry = player_entry(view, player)
    return entry if entry is not None and "hand" in entry else None


def _value(v: Any) -> str:
    return "–" if v is None else str(v)


def unit_stats(card: Mapping[str, Any]) -> str:
    """``"Ground · phases 1,3 · atk 7/–/– · def 4/3/2 · support +2 Ground"``."""
    kind = str(card.get("type", "?"))
    stack = str(card.get("stack", kind))
    what = FORCE_NAMES.get(kind, kind.title())
    if kind not in FORCE_NAMES:
        what += f", {FORCE_NAMES.get(stack, stack)} stack"
    phases = ",".join(str(p) for p in card.get("phases") or ()) or "–"
    attack = card.get("attack") or {}
    defense = card.get("defense") or {}
    text = (f"{what} · phases {phases} · atk {'/'.join(_value(attack.get(f)) for f in FORCES)}"
            f" · def {'/'.join(_value(defense.get(f)) for f in FORCES)}")
    support = card.get("support")
    if isinstance(support, dict):
        to = "/".join(FORCE_NAMES.get(t, str(t)) for t in support.get("to") or ())
        text += f" · support +{support.get('bonus')} {to}"
    return text


def hand_labels(legal: Sequence[str], view: Mapping[str, Any], player: str
                ) -> list[tuple[str, str]]:
    """``(label, slot)`` for ``/battlecards deploy``: the slots the caller may deploy now,
    labelled with their cards from the caller's own view (bare slots without it)."""
    entry = own_entry(view, player)
    hand = entry.get("hand") if entry else None
    found = []
    for slot in firsts(legal, "deploy"):
        label = f"slot {slot}"
        if isinstance(hand, list) and slot.isdigit() and 0 < int(slot) <= len(hand):
            card = hand[int(slot) - 1]
            kind = str(card.get("type"))
            label = (f"{slot} · {card.get('name')} ({FORCE_NAMES.get(kind, kind.title())}"
                     f" → {FORCE_NAMES.get(str(card.get('stack')), '?')} stack)")
        found.append((label, slot))
    return found


def kept_labels(legal: Sequence[str], view: Mapping[str, Any], player: str
                ) -> list[tuple[str, str]]:
    """``(label, slot)`` for ``/battlecards play kept``: the caller's playable kept cards,
    labelled from the caller's own view."""
    entry = own_entry(view, player)
    kept = entry.get("kept") if entry else None
    found = []
    for slot in firsts(legal, "play"):
        label = f"kept card {slot}"
        if isinstance(kept, list) and slot.isdigit() and 0 < int(slot) <= len(kept):
            card = kept[int(slot) - 1]
            label = f"{slot} · {card.get('name')}: {card.get('text', '')}"
        found.append((label, slot))
    return found


def battle_names(view: Mapping[str, Any]) -> dict[tuple[str, str], str]:
    """``(owner, ref) -> unit name`` of the battle being fought (public while it lasts)."""
    battle = view.get("battle")
    names: dict[tuple[str, str], str] = {}
    if isinstance(battle, dict):
        for unit in battle.get("units") or ():
            if isinstance(unit, dict) and isinstance(unit.get("card"), dict):
                names[(str(unit.get("owner")), str(unit.get("ref")))] = str(
                    unit["card"].get("name"))
    return names


def unit_labels(refs: Sequence[str], view: Mapping[str, Any] | None, owner: str | None
                ) -> list[tuple[str, str]]:
    """``(label, ref)`` for refs of ``owner``'s units in the battle, with their names."""
    names = battle_names(view) if view else {}
    return [(f"{ref} · {names[(str(owner), ref)]}" if (str(owner), ref) in names else ref,
             ref) for ref in refs]


def opponent_of(view: Mapping[str, Any], player: str) -> str | None:
    for entry in view.get("players") or ():
        if isinstance(entry, dict) and str(entry.get("id")) != player:
            return str(entry.get("id"))
    return None


# -- /hand (pure) ---------------------------------------------------------------------------

EMBED_DESCRIPTION = 4000
EMBED_FIELD = 1000
EMBED_TOTAL = 5800


def _clip_lines(lines: Sequence[str], limit: int) -> str:
    """Lines joined within ``limit`` characters; what does not fit is counted."""
    room = max(10, limit - 30)  # kept for "… and N more"
    text = ""
    for i, raw in enumerate(lines):
        line = common.clip(raw, room)
        candidate = f"{text}\n{line}" if text else line
        if len(candidate) > room:
            return f"{text}\n… and {len(lines) - i} more".strip()
        text = candidate
    return text


def hand_sections(entry: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """``(heading, lines)``: the reserve hand by slot, each stack, the kept cards."""
    hand = entry.get("hand") or []
    sections = [(f"Reserve hand ({len(hand)}) — `/battlecards deploy slot`",
                 [f"`{i}` **{c.get('name')}** — {unit_stats(c)}" for i, c in enumerate(hand, 1)]
                 or ["empty"])]
    stacks = entry.get("stack_cards") or {}
    for force in FORCES:
        cards = stacks.get(force) or []
        sections.append((f"{FORCE_NAMES[force]} stack ({len(cards)}, bottom first)",
                         [f"**{c.get('name')}** — {unit_stats(c)}" for c in cards] or ["empty"]))
    kept = entry.get("kept") or []
    sections.append((f"Kept cards ({len(kept)}) — `/battlecards play kept unit`",
                     [f"`{i}` **{c.get('name')}** — {c.get('text', '')}"
                      for i, c in enumerate(kept, 1)] or ["none"]))
    return sections


def hand_embed(view: Mapping[str, Any], player: str) -> discord.Embed | None:
    """The caller's hand, stacks and kept cards from their own view; None without one."""
    entry = own_entry(view, player)
    if entry is None:
        return None
    side = str(entry.get("side", "")).title()
    sections = hand_sections(entry)
    (heading, lines), rest = sections[0], sections[1:]
    embed = discord.Embed(title=f"Your cards ({side}) — only you can see this",
                          description=f"**{heading}**\n"
                                      + _clip_lines(lines, EMBED_DESCRIPTION - len(heading) - 10),
                          colour=discord.Colour.dark_green())
    budget = EMBED_TOTAL - len(embed.title or "") - len(embed.description or "")
    share = max(100, min(EMBED_FIELD, budget // max(1, len(rest)) - 80))
    for heading, lines in rest:
        embed.add_field(name=heading, value=_clip_lines(lines, share) or "—", inline=False)
    embed.set_footer(text=f"{entry.get('vp', 0)} VP · arsenal {entry.get('arsenal_count', '?')}"
                          " cards · stats: attack/defense vs Ground/Air/Sea")
    return embed


# -- private narration (pure) -----------------------------------------------------------------


def _names(cards: Any) -> str:
    names = [f"**{c}**" for c in cards or ()]
    return ", ".join(names) if names else "nothing"


def private_narration(events: list[dict[str, Any]], names: dict[str, str]) -> list[str]:
    """What the owner of private events is told (only they ever see it)."""
    lines = []
    for e in events:
        kind = e.get("type")
        stack = FORCE_NAMES.get(str(e.get("stack")), str(e.get("stack")))
        if kind == "deployed_card":
            lines.append(f"You deploy {_names([e.get('card')])} onto your {stack} stack.")
        elif kind == "emergency_cards":
            lines.append(f"Your emergency deployment: {_names(e.get('cards'))}.")
        elif kind == "arsenal_cards":
            cards = e.get("cards") or []
            lines.append(f"You draw {_names(cards)} into your reserve hand."
                         if cards else "Your arsenal gives you no card.")
        elif kind == "kept_card":
            lines.append(f"You keep {_names([e.get('card')])}: {e.get('text', '')} "
                         "(play it in a battle with `/battlecards play`).")
        elif kind == "scout_report":
            cards = e.get("cards") or []
            lines.append(f"The enemy {stack} stack holds {_names(cards)}."
                         if cards else f"The enemy {stack} stack is empty.")
    if lines:
        lines.append("`/hand` shows all your cards.")
    return lines


common.register_private_narration(KIND, private_narration)


# -- decisions outside one's turn ------------------------------------------------------------


def decision_prompt(view: Mapping[str, Any]) -> str:
    """The engine's public prompt and where to answer it (never a private card)."""
    prompt = str(view.get("prompt") or "you must act now").rstrip(".")
    prompt = prompt[:1].lower() + prompt[1:]
    if view.get("phase") == "setup":
        return f"{prompt}: see your cards with `/hand`, then `/battlecards deploy`"
    return f"{prompt}; use `/battlecards` or `/play`"


for _phase in ("setup", "resolve", "decide", "battle", "withdraw"):
    common.register_decision(KIND, _phase, decision_prompt)


# -- the cogs ---------------------------------------------------------------------------------


async def _view(interaction: discord.Interaction, *, own: bool) -> dict[str, Any] | None:
    """The caller's own view (``own``) or the public view; None without a game."""
    found = await common.running_game(interaction, KIND)
    if found is None:
        return None
    game, state, _ = found
    me = str(interaction.user.id)
    try:
        return game.view(state, me if own and me in game.players(state) else None)
    except Exception:
        log.exception("The Battlecards view failed")
        return None


async def show_hand(interaction: discord.Interaction) -> None:
    """``/hand``: the caller's cards, ephemerally; nothing for anyone without a seat."""
    record = await common.require_game(interaction)
    if record is None:
        return
    if record.kind != KIND or record.state is None:
        await reply_error(interaction, NOT_HERE)
        return
    game = engine.get_game(KIND)
    state = store_of(interaction.client).load_state(record)
    me = str(interaction.user.id)
    if me not in game.players(state):
        await reply_error(interaction, NO_HAND)
        return
    embed = hand_embed(game.view(state, me), me)
    if embed is None:
        await reply_error(interaction, NO_HAND)
        return
    await send_ephemeral(interaction, "", embed=embed)


class HandCog(commands.Cog):
    """``/hand``: your reserve hand, stacks and kept cards (only you see them)."""

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot

    @app_commands.command(name="hand", description="Battlecards: your hand, stacks and kept "
                                                   "cards (only you see them)")
    @app_commands.guild_only()
    async def hand(self, interaction: discord.Interaction) -> None:
        await show_hand(interaction)


@app_commands.guild_only()
class BattlecardsCog(commands.GroupCog, group_name="battlecards",
                     group_description="Battlecards actions and your hand (or use /play)"):
    """``/battlecards draw|emergency|deploy|done|scout|attack|decline|fire|support|play|
    pass|withdraw|stay|autofire|hand``."""

    game_help = ("`/battlecards draw|deploy|attack|fire|withdraw|…` for Battlecards; `/hand` "
                 "shows you your own cards (only you see them).")

    def __init__(self, bot: commands.Bot) -> None:
        self.bot = bot
        super().__init__()

    async def _submit(self, interaction: discord.Interaction, action: str) -> None:
        record = await common.require_game(interaction)
        if record is None:
            return
        if record.kind != KIND:
            await reply_error(interaction, "The game in this channel is not Battlecards; use "
                                           "`/play` for its actions.")
            return
        await common.submit(interaction, store_of(interaction.client), record, action)

    async def _units(self, interaction: discord.Interaction, verb: str, current: str, *,
                     second: str | None = None, enemy: bool = False
                     ) -> list[app_commands.Choice[str]]:
        """Refs from the caller's legal ``verb`` actions (the first argument, or the second
        given the option ``second``), labelled with the battle's (public) unit names."""
        try:
            legal = await legal_for(interaction, KIND)
            refs = (firsts(legal, verb) if second is None
                    else seconds(legal, verb, common.namespace_text(interaction, second)))
            if not refs:
                return []
            view = await _view(interaction, own=False)
            me = str(interaction.user.id)
            owner = opponent_of(view, me) if enemy and view else me
            return common.labelled_choices(unit_labels(refs, view, owner), current)
        except Exception:
            log.exception("Battlecards autocomplete failed")
            return []

    async def _own_slots(self, interaction: discord.Interaction, current: str,
                         label: Any) -> list[app_commands.Choice[str]]:
        """Hand or kept slots from the caller's legal actions, labelled from the caller's
        own view only (empty for anyone who may not act)."""
        try:
            legal = await legal_for(interaction, KIND)
            if not legal:
                return []
            view = await _view(interaction, own=True)
            me = str(interaction.user.id)
            return common.labelled_choices(label(legal, view or {}, me), current)
        except Exception:
            log.exception("Battlecards autocomplete failed")
            return []

    # your turn ------------------------------------------------------------------------------

    @app_commands.command(name="draw", description="Draw the top conflict card and resolve it")
    async def draw(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, DRAW)

    @app_commands.command(name="emergency", description="Emergency deployment: your whole "
                                                        "reserve hand onto your stacks")
    async def emergency(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, EMERGENCY)

    @app_commands.command(name="deploy", description="Deploy a card from your reserve hand "
                                                     "onto its stack")
    @app_commands.describe(slot="Your hand slot (autocomplete shows your cards, only to you)")
    async def deploy(self, interaction: discord.Interaction, slot: Slot) -> None:
        await self._submit(interaction, deploy_notation(slot))

    @deploy.autocomplete("slot")
    async def deploy_autocomplete(self, interaction: discord.Interaction,
                                  current: str) -> list[app_commands.Choice[str]]:
        return await self._own_slots(interaction, current, hand_labels)

    @app_commands.command(name="done", description="Stop deploying")
    async def done(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, DONE)

    @app_commands.command(name="scout", description="Look at one of the enemy's stacks "
                                                    "(only you see it)")
    @app_commands.describe(stack="Which enemy stack")
    @app_commands.choices(stack=[app_commands.Choice(name=n, value=f)
                                 for f, n in FORCE_NAMES.items()])
    async def scout(self, interaction: discord.Interaction, stack: str) -> None:
        await self._submit(interaction, scout_notation(stack))

    # battles --------------------------------------------------------------------------------

    @app_commands.command(name="attack", description="Fight the battle you are aggressor in")
    async def attack(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, ATTACK)

    @app_commands.command(name="decline", description="Do not fight it: the card is discarded")
    async def decline(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, DECLINE)

    @app_commands.command(name="fire", description="Fire one of your units at an enemy unit "
                                                   "(auto-fire off)")
    @app_commands.describe(unit="Your unit, e.g. g1", target="The enemy unit, e.g. a2")
    async def fire(self, interaction: discord.Interaction, unit: Ref, target: Ref) -> None:
        await self._submit(interaction, fire_notation(unit, target))

    @fire.autocomplete("unit")
    async def fire_unit_autocomplete(self, interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
        return await self._units(interaction, "fire", current)

    @fire.autocomplete("target")
    async def fire_target_autocomplete(self, interaction: discord.Interaction,
                                       current: str) -> list[app_commands.Choice[str]]:
        return await self._units(interaction, "fire", current, second="unit", enemy=True)

    @app_commands.command(name="support", description="Add a support unit's bonus to "
                                                      "another of your units this round")
    @app_commands.describe(supporter="Your supporting unit", unit="The unit it supports")
    async def support(self, interaction: discord.Interaction, supporter: Ref,
                      unit: Ref) -> None:
        await self._submit(interaction, support_notation(supporter, unit))

    @support.autocomplete("supporter")
    async def support_supporter_autocomplete(self, interaction: discord.Interaction,
                                             current: str) -> list[app_commands.Choice[str]]:
        return await self._units(interaction, "support", current)

    @support.autocomplete("unit")
    async def support_unit_autocomplete(self, interaction: discord.Interaction,
                                        current: str) -> list[app_commands.Choice[str]]:
        return await self._units(interaction, "support", current, second="supporter")

    @app_commands.command(name="play", description="Play a kept card on one of your units "
                                                   "for the rest of the battle")
    @app_commands.describe(kept="Your kept card (autocomplete shows them, only to you)",
                           unit="Your unit in the battle")
    async def play(self, interaction: discord.Interaction, kept: Slot, unit: Ref) -> None:
        await self._submit(interaction, play_notation(kept, unit))

    @play.autocomplete("kept")
    async def play_kept_autocomplete(self, interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
        return await self._own_slots(interaction, current, kept_labels)

    @play.autocomplete("unit")
    async def play_unit_autocomplete(self, interaction: discord.Interaction,
                                     current: str) -> list[app_commands.Choice[str]]:
        return await self._units(interaction, "play", current, second="kept")

    @app_commands.command(name="pass", description="Play no kept card or support now "
                                                   "(or: no emergency deployment)")
    async def pass_(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, PASS)

    @app_commands.command(name="withdraw", description="Pull one of your units out of the "
                                                       "battle")
    @app_commands.describe(unit="Your unit, e.g. g1")
    async def withdraw(self, interaction: discord.Interaction, unit: Ref) -> None:
        await self._submit(interaction, withdraw_notation(unit))

    @withdraw.autocomplete("unit")
    async def withdraw_autocomplete(self, interaction: discord.Interaction,
                                    current: str) -> list[app_commands.Choice[str]]:
        return await self._units(interaction, "withdraw", current)

    @app_commands.command(name="stay", description="End your withdrawals")
    async def stay(self, interaction: discord.Interaction) -> None:
        await self._submit(interaction, STAY)

    @app_commands.command(name="autofire", description="Let the engine fire your units "
                                                       "(on) or fire them yourself (off)")
    @app_commands.describe(setting="on or off")
    @app_commands.choices(setting=[app_commands.Choice(name="on", value="on"),
                                   app_commands.Choice(name="off", value="off")])
    async def autofire(self, interaction: discord.Interaction, setting: str) -> None:
        await self._submit(interaction, autofire_notation(setting))

    # looking --------------------------------------------------------------------------------

    @app_commands.command(name="hand", description="Your hand, stacks and kept cards "
                                                   "(only you see them)")
    async def hand(self, interaction: discord.Interaction) -> None:
        await show_hand(interaction)


async def setup(bot: commands.Bot) -> None:
    await bot.add_cog(BattlecardsCog(bot))
    await bot.add_cog(HandCog(bot))
