"""What is Battlecards' own in Discord: its hand, card labels, prompts and private news.

Its actions (``/battlecards draw|deploy|fire|…``) are declared in
``engine/battlecards/notation.py`` and built by :mod:`cogs.verbs`, like every game's.

Secrets (docs/games/battlecards-interface.md): the reserve hand, the deployed stacks and
the kept cards are private to their owner. Here that means:

- ``/hand`` answers ephemerally from ``GAME.view(state, caller)``; anyone without a seat
  gets "you have no hand in this game".
- Hand and kept slots are labelled with their cards only in the caller's own
  autocomplete, computed from the caller's own view and offered only when the caller may
  act; the notation itself (``deploy 2``, ``play 1 g1``) names no card.
- Private events (cards drawn, deployed, kept; a scouted stack) are told only to their
  player, through the outbox (ephemeral to the actor, else a DM),
  with the words registered here (the engine narrates public events only).
- Units fighting in a battle are public while it lasts, so their names label unit refs.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import discord
from discord import app_commands

from cogs import verbs
from cogs.choices import first_args, second_args
from cogs.wording import clip, register_decision, register_private_narration
from engine.battlecards.notation import VERBS
from engine.notation import is_number
from engine.verbs import verb_named

log = logging.getLogger("warhost.cogs.battlecards")

KIND = "battlecards"
FORCES = ("ground", "air", "sea")
FORCE_NAMES = {"ground": "Ground", "air": "Air", "sea": "Sea"}

NO_HAND = verbs.NO_HAND
NOT_HERE = verbs.NOT_HERE

DRAW, EMERGENCY, DONE, ATTACK, DECLINE, PASS, STAY = (
    "draw", "emergency", "done", "attack", "decline", "pass", "stay")


# -- choices from legal actions (pure) ----------------------------------------------------


def firsts(actions: Iterable[str], verb: str) -> list[str]:
    """The first argument of every legal ``verb`` action, in order of first appearance."""
    return first_args(actions, verb)


def seconds(actions: Iterable[str], verb: str, first: str | None) -> list[str]:
    """The second argument of legal ``verb`` actions whose first is ``first`` (any first
    when it is empty)."""
    return second_args(actions, verb, verb_named(VERBS, verb).args[0].word(first))


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


def _slot_labels(slots: Sequence[str], view: Mapping[str, Any], player: str, pile: str,
                 bare: str, label: Callable[[str, Mapping[str, Any]], str]
                 ) -> list[tuple[str, str]]:
    """``(label, slot)`` for numbered slots of one of the caller's own piles (``hand``,
    ``kept``), each labelled by ``label(slot, card)`` from the caller's own view, or
    ``bare`` (with the slot) where the view shows no such card."""
    entry = own_entry(view, player)
    cards = entry.get(pile) if entry else None
    found = []
    for slot in slots:
        text = f"{bare} {slot}"
        if isinstance(cards, list) and is_number(slot) and 0 < int(slot) <= len(cards):
            text = label(slot, cards[int(slot) - 1])
        found.append((text, slot))
    return found


def _hand_label(slot: str, card: Mapping[str, Any]) -> str:
    kind = str(card.get("type"))
    return (f"{slot} · {card.get('name')} ({FORCE_NAMES.get(kind, kind.title())}"
            f" → {FORCE_NAMES.get(str(card.get('stack')), '?')} stack)")


def hand_labels(slots: Sequence[str], view: Mapping[str, Any], player: str
                ) -> list[tuple[str, str]]:
    """``(label, slot)`` for ``/battlecards deploy``: the hand ``slots`` the caller may
    deploy now, labelled with their cards from the caller's own view (bare slots
    without it)."""
    return _slot_labels(slots, view, player, "hand", "slot", _hand_label)


def kept_labels(slots: Sequence[str], view: Mapping[str, Any], player: str
                ) -> list[tuple[str, str]]:
    """``(label, slot)`` for ``/battlecards play kept``: the caller's playable kept
    ``slots``, labelled from the caller's own view."""
    return _slot_labels(slots, view, player, "kept", "kept card",
                        lambda slot, card: f"{slot} · {card.get('name')}: "
                                           f"{card.get('text', '')}")


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
        line = clip(raw, room)
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


register_private_narration(KIND, private_narration)


# -- decisions outside one's turn ------------------------------------------------------------


def decision_prompt(view: Mapping[str, Any]) -> str:
    """The engine's public prompt and where to answer it (never a private card)."""
    prompt = str(view.get("prompt") or "you must act now").rstrip(".")
    prompt = prompt[:1].lower() + prompt[1:]
    if view.get("phase") == "setup":
        return f"{prompt}: see your cards with `/hand`, then `/battlecards deploy`"
    return f"{prompt}; use `/battlecards` or `/play`"


for _phase in ("setup", "resolve", "decide", "battle", "withdraw"):
    register_decision(KIND, _phase, decision_prompt)


# -- registrations -----------------------------------------------------------------------------


def _commands() -> list[app_commands.Command[Any, ..., Any]]:
    @app_commands.command(name="hand", description="Your hand, stacks and kept cards "
                                                   "(only you see them)")
    async def hand(interaction: discord.Interaction) -> None:
        await verbs.show_hand(interaction)

    return [hand]


def _opponent_units(values: list[str], view: Mapping[str, Any], me: str
                    ) -> list[tuple[str, str]]:
    return unit_labels(values, view, opponent_of(view, me))


verbs.register_hand(KIND, hand_embed)
verbs.register_commands(KIND, _commands)
verbs.register_labels(KIND, "hand", hand_labels)
verbs.register_labels(KIND, "kept", kept_labels)
verbs.register_labels(KIND, "unit", lambda values, view, me: unit_labels(values, view, me))
verbs.register_labels(KIND, "enemy", _opponent_units)
