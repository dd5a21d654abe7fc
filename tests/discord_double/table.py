"""Scripted players at one channel ("table") of the Discord double.

    table = dd.table()                       # the default guild's first text channel
    reply = await table.slash("alice", "game new", kind="conqueror")
    await table.click("bob", "Join")
    choices = await table.autocomplete("alice", "play", "action", typed="mo")
    print(table.transcript())

Everything a scripted player does is checked the way the Discord client checks it before
sending (the command must be synced and visible, options typed and in range, the button
visible to that user and enabled), then dispatched to the bot as a real INTERACTION_CREATE.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .models import (
    ADMINISTRATOR,
    APPLICATION_COMMAND,
    APPLICATION_COMMAND_AUTOCOMPLETE,
    BUTTON,
    MESSAGE_COMPONENT,
    MODAL_SUBMIT,
    ROLE_MENTION_RE,
    SELECT_TYPES,
    TEXT_INPUT,
    USER_MENTION_RE,
    Attachment,
    BotError,
    Choice,
    FakeChannel,
    FakeRole,
    FakeUser,
    Message,
    Reply,
    walk_components,
)

if TYPE_CHECKING:
    from .server import DiscordDouble

OPTION_TYPE_NAMES = {
    1: "subcommand",
    2: "group",
    3: "string",
    4: "integer",
    5: "boolean",
    6: "user",
    7: "channel",
    8: "role",
    9: "mentionable",
    10: "number",
    11: "attachment",
}
CHANNEL_MENTION_RE = re.compile(r"<#(\d{15,21})>")
MAX_SAFE_INT = 2**53


class ClientRefused(ValueError):
    """The Discord client would not let this user send this (unknown option, bad type, ...)."""


class Table:
    """A channel seen through scripted players. Create it with ``dd.table(...)``."""

    def __init__(self, dd: DiscordDouble, channel: FakeChannel) -> None:
        self.dd = dd
        self.channel = channel
        self.guild = channel.guild
        #: per-interaction wait limit (seconds); None means dd.default_timeout
        self.timeout: float | None = None

    def __repr__(self) -> str:
        return f"<Table #{self.channel.name}>"

    # ------------------------------------------------------------------ players
    def user(self, who: FakeUser | str) -> FakeUser:
        return self.dd.resolve_user(who)

    def thread(
        self, name: str, *, private: bool = False, owner: FakeUser | str | None = None
    ) -> Table:
        """A thread under this channel (created if needed) as its own table."""
        for t in self.dd.channels.values():
            if t.is_thread and t.parent_id == self.channel.id and t.name == name:
                return Table(self.dd, t)
        thread = self.dd.add_thread(
            self.channel, name, private=private, owner=self.user(owner) if owner else None
        )
        return Table(self.dd, thread)

    # ------------------------------------------------------------------ slash commands
    async def slash(self, user: FakeUser | str, command: str, /, **options: Any) -> Reply:
        """Run ``/command`` ("game new" for group + subcommand) with options as kwargs.

        Returns once the bot has finished handling it (see README: "When calls return").
        Raises :class:`BotError` if the bot does not answer, :class:`ClientRefused` if the
        Discord client would not have sent it.
        """
        return await self.invoke(user, command, options)

    async def invoke(
        self,
        user: FakeUser | str,
        command: str,
        options: dict[str, Any] | None = None,
        *,
        expect_response: bool = True,
        timeout: float | None = None,
    ) -> Reply:
        """:meth:`slash` with options as a dict, and control over waiting."""
        u = self.user(user)
        data = self._command_data(u, command, options or {}, focused=None)
        return await self._send(
            APPLICATION_COMMAND, u, self.channel, data, " ".join(command.split()),
            _options_text(options or {}), expect_response=expect_response, timeout=timeout,
        )

    async def autocomplete(
        self, user: FakeUser | str, command: str, option: str, /, typed: str = "", **options: Any
    ) -> list[Choice]:
        """What the Discord client would list while ``user`` types ``typed`` into ``option``."""
        reply = await self.autocomplete_reply(user, command, option, typed=typed, **options)
        assert reply.choices is not None
        return reply.choices

    async def autocomplete_reply(
        self, user: FakeUser | str, command: str, option: str, /, typed: str = "", **options: Any
    ) -> Reply:
        u = self.user(user)
        data = self._command_data(u, command, {**options, option: typed}, focused=option)
        reply = await self._send(
            APPLICATION_COMMAND_AUTOCOMPLETE, u, self.channel, data, " ".join(command.split()),
            f"{option}={typed!r}",
        )
        if reply.choices is None:
            raise BotError(
                f"autocomplete for /{reply.name} {option} got no choices: {reply.describe()}"
            )
        return reply

    def _timeout(self, timeout: float | None) -> float | None:
        return timeout if timeout is not None else self.timeout

    async def _send(
        self,
        kind: int,
        user: FakeUser,
        channel: FakeChannel,
        data: dict[str, Any],
        name: str,
        summary: str,
        *,
        message: Message | None = None,
        expect_response: bool = True,
        timeout: float | None = None,
    ) -> Reply:
        """Send one interaction of type ``kind`` as the Discord client would, and wait
        for the bot's answer (``summary`` is what transcripts show of it)."""
        reply = self.dd.new_interaction(
            type=kind, user=user, channel=channel, data=data, message=message, name=name
        )
        reply.summary = summary
        return await self.dd.send_interaction(
            reply, expect_response=expect_response, timeout=self._timeout(timeout)
        )

    def _enabled(
        self,
        user: FakeUser | str,
        target: str,
        message: Message | None,
        types: tuple[int, ...],
        what: str,
    ) -> tuple[FakeUser, Message, dict[str, Any]]:
        """The user, and the message and component of ``types`` that ``target`` names;
        the client refuses a disabled one."""
        u = self.user(user)
        msg, comp = self._find_component(u, target, message, types)
        if comp.get("disabled"):
            raise ClientRefused(f"{what} {target!r} is disabled")
        return u, msg, comp

    async def _send_component(
        self,
        user: FakeUser,
        msg: Message,
        comp: dict[str, Any],
        data: dict[str, Any],
        label: str | None,
        expect_response: bool,
        timeout: float | None,
    ) -> Reply:
        """A component interaction on ``msg`` (transcripts show ``label``, else its id)."""
        return await self._send(
            MESSAGE_COMPONENT, user, msg.channel, data, comp["custom_id"],
            label or comp["custom_id"], message=msg, expect_response=expect_response,
            timeout=timeout,
        )

    def _find_command(self, user: FakeUser, name: str) -> dict[str, Any]:
        candidates = (
            self.dd.commands(self.guild) if self.guild else list(self.dd.global_commands.values())
        )
        cmd = next((c for c in candidates if c["name"] == name and c.get("type", 1) == 1), None)
        if cmd is None:
            known = sorted({c["name"] for c in candidates if c.get("type", 1) == 1})
            raise ClientRefused(f"/{name} is not a synced command here (synced: {known})")
        context = 0 if self.guild else 1
        contexts = cmd.get("contexts")
        if contexts is not None and context not in contexts:
            raise ClientRefused(f"/{name} is not available in this kind of channel")
        if self.guild is None and cmd.get("dm_permission") is False:
            raise ClientRefused(f"/{name} is not available in DMs")
        required = cmd.get("default_member_permissions")
        if self.guild is not None and required is not None:
            perms = self.guild.permissions_in(user.id, self.channel)
            need = int(required)
            if not perms & ADMINISTRATOR and (need == 0 or perms & need != need):
                raise ClientRefused(f"{user.name} cannot see /{name} (needs permissions {need})")
        return cmd

    def _command_data(
        self, user: FakeUser, command: str, options: dict[str, Any], *, focused: str | None
    ) -> dict[str, Any]:
        parts = command.split()
        if not parts:
            raise ClientRefused("empty command")
        cmd = self._find_command(user, parts[0])
        chain: list[dict[str, Any]] = []
        container = cmd
        for part in parts[1:]:
            sub = next(
                (
                    o
                    for o in container.get("options") or []
                    if o["name"] == part and o["type"] in (1, 2)
                ),
                None,
            )
            if sub is None:
                subs = [o["name"] for o in container.get("options") or [] if o["type"] in (1, 2)]
                raise ClientRefused(f"/{' '.join(parts)}: no subcommand {part!r} (has {subs})")
            chain.append(sub)
            container = sub
        defs = container.get("options") or []
        if any(o["type"] in (1, 2) for o in defs):
            subs = [o["name"] for o in defs if o["type"] in (1, 2)]
            raise ClientRefused(f"/{' '.join(parts)} needs a subcommand: one of {subs}")
        resolved: dict[str, dict[str, Any]] = {}
        leaf = self._build_options(
            defs, options, resolved, focused=focused, path=command, actor=user
        )
        for sub in reversed(chain):
            leaf = [{"type": sub["type"], "name": sub["name"], "options": leaf}]
        data: dict[str, Any] = {"id": cmd["id"], "name": cmd["name"], "type": 1}
        if leaf:
            data["options"] = leaf
        if resolved:
            data["resolved"] = resolved
        if cmd.get("guild_id"):
            data["guild_id"] = cmd["guild_id"]
        return data

    def _build_options(
        self,
        defs: list[dict[str, Any]],
        given: dict[str, Any],
        resolved: dict[str, dict[str, Any]],
        *,
        focused: str | None,
        path: str,
        actor: FakeUser,
    ) -> list[dict[str, Any]]:
        by_name = {o["name"]: o for o in defs}
        unknown = [k for k in given if k not in by_name]
        if unknown:
            raise ClientRefused(f"/{path} has no option {unknown[0]!r} (options: {list(by_name)})")
        out: list[dict[str, Any]] = []
        for name, opt in by_name.items():
            if name not in given or given[name] is None:
                if opt.get("required") and focused is None:
                    raise ClientRefused(f"/{path}: option {name!r} is required")
                continue
            if name == focused:
                if not opt.get("autocomplete"):
                    raise ClientRefused(f"/{path}: option {name!r} has no autocomplete")
                out.append(
                    {"type": opt["type"], "name": name, "value": str(given[name]), "focused": True}
                )
                continue
            value = self._convert(opt, given[name], resolved, path, actor)
            out.append({"type": opt["type"], "name": name, "value": value})
        return out

    def _convert(
        self,
        opt: dict[str, Any],
        value: Any,
        resolved: dict[str, dict[str, Any]],
        path: str,
        actor: FakeUser,
    ) -> Any:
        otype = opt["type"]
        where = f"/{path} {opt['name']}"
        choices = opt.get("choices")
        if choices and otype in (3, 4, 10):
            values = [c["value"] for c in choices]
            if value not in values:
                named = next((c["value"] for c in choices if c["name"] == value), None)
                if named is None:
                    raise ClientRefused(f"{where}: {value!r} is not one of the choices {values}")
                value = named
            return value
        if otype == 3:
            if not isinstance(value, str):
                raise ClientRefused(f"{where}: expects a string, got {value!r}")
            lo, hi = opt.get("min_length", 0), min(opt.get("max_length", 6000), 6000)
            if not max(lo, 1) <= len(value) <= hi:
                raise ClientRefused(f"{where}: length {len(value)} outside {max(lo, 1)}..{hi}")
            return value
        if otype in (4, 10):
            if isinstance(value, bool) or not isinstance(value, int | float):
                raise ClientRefused(f"{where}: expects a number, got {value!r}")
            if otype == 4 and not isinstance(value, int):
                raise ClientRefused(f"{where}: expects an integer, got {value!r}")
            lo = opt.get("min_value", -MAX_SAFE_INT)
            hi = opt.get("max_value", MAX_SAFE_INT)
            if not lo <= value <= hi:
                raise ClientRefused(f"{where}: {value} outside {lo}..{hi}")
            return value
        if otype == 5:
            if not isinstance(value, bool):
                raise ClientRefused(f"{where}: expects True/False, got {value!r}")
            return value
        if otype == 6 or (otype == 9 and not isinstance(value, FakeRole)):
            user = self.user(value)
            resolved.setdefault("users", {})[user.id] = user.payload()
            if self.guild is not None and user.id in self.guild.members:
                member = self.guild.members[user.id].payload(with_user=False)
                member["permissions"] = str(self.guild.permissions_in(user.id, self.channel))
                resolved.setdefault("members", {})[user.id] = member
            return user.id
        if otype in (8, 9):
            role = self._role(value)
            resolved.setdefault("roles", {})[role.id] = role.payload()
            return role.id
        if otype == 7:
            channel = (
                value
                if isinstance(value, FakeChannel)
                else self.dd.resolve_channel(value, self.guild)
            )
            types = opt.get("channel_types")
            if types and channel.type not in types:
                raise ClientRefused(f"{where}: channel type {channel.type} not in {types}")
            data = {
                "id": channel.id,
                "name": channel.name,
                "type": channel.type,
                "permissions": str(self.guild.permissions_in(actor.id, channel))
                if self.guild
                else "0",
            }
            if channel.parent_id:
                data["parent_id"] = channel.parent_id
            if channel.is_thread:
                data["thread_metadata"] = channel.payload()["thread_metadata"]
            resolved.setdefault("channels", {})[channel.id] = data
            return channel.id
        if otype == 11:
            att = self._upload(value)
            resolved.setdefault("attachments", {})[att.id] = att.payload()
            return att.id
        raise ClientRefused(f"{where}: unsupported option type {otype}")

    def _role(self, value: Any) -> FakeRole:
        if isinstance(value, FakeRole):
            return value
        if self.guild is None:
            raise ClientRefused("roles only exist in guilds")
        for role in self.guild.roles.values():
            if value in (role.name, role.id):
                return role
        raise ClientRefused(f"no role {value!r}")

    def _upload(self, value: Any) -> Attachment:
        if isinstance(value, Attachment):
            return value
        if isinstance(value, Path):
            filename, data = value.name, value.read_bytes()
        elif isinstance(value, tuple):
            filename, data = value
        elif isinstance(value, bytes):
            filename, data = "upload.bin", value
        else:
            raise ClientRefused(
                f"attachment options take bytes, (filename, bytes) or a Path, not {value!r}"
            )
        att_id = self.dd.snowflakes.next()
        att = Attachment(
            id=att_id,
            filename=filename,
            data=data,
            url=f"{self.dd.url}/attachments/{self.channel.id}/{att_id}/{filename}",
            ephemeral=True,
        )
        self.dd._uploads[att_id] = att
        return att

    # ------------------------------------------------------------------ components
    def _find_component(
        self, user: FakeUser, target: str, message: Message | None, types: tuple[int, ...]
    ) -> tuple[Message, dict[str, Any]]:
        candidates = [message] if message is not None else list(reversed(self.visible_to(user)))
        for msg in candidates:
            if not msg.visible_for(user.id):
                continue
            for comp in walk_components(msg.components):
                if comp.get("type") not in types:
                    continue
                if target in (comp.get("label"), comp.get("custom_id"), comp.get("placeholder")):
                    return msg, comp
        seen = [
            c.get("label") or c.get("custom_id")
            for m in candidates
            for c in walk_components(m.components)
            if c.get("type") in types
        ]
        raise ClientRefused(
            f"{user.name} sees no component {target!r} in #{self.channel.name} (visible: {seen})"
        )

    async def click(
        self,
        user: FakeUser | str,
        target: str,
        /,
        *,
        message: Message | None = None,
        expect_response: bool = True,
        timeout: float | None = None,
    ) -> Reply:
        """Click the newest button labelled ``target`` (or with that custom_id) ``user`` can see."""
        u, msg, comp = self._enabled(user, target, message, (BUTTON,), "button")
        if comp.get("style") in (5, 6):
            raise ClientRefused(f"button {target!r} is a link/premium button: no interaction")
        data = {"custom_id": comp["custom_id"], "component_type": BUTTON}
        return await self._send_component(
            u, msg, comp, data, comp.get("label"), expect_response, timeout
        )

    async def select(
        self,
        user: FakeUser | str,
        target: str,
        values: Iterable[Any] | str,
        /,
        *,
        message: Message | None = None,
        expect_response: bool = True,
        timeout: float | None = None,
    ) -> Reply:
        """Pick ``values`` in the select menu whose custom_id or placeholder is ``target``."""
        u, msg, comp = self._enabled(user, target, message, SELECT_TYPES, "select")
        picked = (
            [values]
            if isinstance(values, str | FakeUser | FakeRole | FakeChannel)
            else list(values)
        )
        lo, hi = comp.get("min_values", 1), comp.get("max_values", 1)
        if not lo <= len(picked) <= hi:
            raise ClientRefused(f"select {target!r} takes {lo}..{hi} values, got {len(picked)}")
        data: dict[str, Any] = {"custom_id": comp["custom_id"], "component_type": comp["type"]}
        resolved: dict[str, dict[str, Any]] = {}
        if comp["type"] == 3:
            allowed = [o["value"] for o in comp.get("options") or []]
            for v in picked:
                if v not in allowed:
                    label = next(
                        (o["value"] for o in comp.get("options") or [] if o.get("label") == v), None
                    )
                    if label is None:
                        raise ClientRefused(
                            f"select {target!r} has no option {v!r} (options: {allowed})"
                        )
            data["values"] = [
                v
                if v in allowed
                else next(o["value"] for o in comp["options"] if o.get("label") == v)
                for v in picked
            ]
        else:
            kind = {5: 6, 6: 8, 7: 7, 8: 9}[comp["type"]]
            fake_opt = {"type": kind, "name": "values"}
            data["values"] = [self._convert(fake_opt, v, resolved, "select", u) for v in picked]
            data["resolved"] = resolved
        return await self._send_component(
            u, msg, comp, data, comp.get("placeholder"), expect_response, timeout
        )

    async def submit_modal(
        self,
        user: FakeUser | str,
        modal_from: Reply,
        /,
        *,
        expect_response: bool = True,
        timeout: float | None = None,
        **values: str,
    ) -> Reply:
        """Fill in the modal the bot opened in ``modal_from`` (values by custom_id or label)."""
        u = self.user(user)
        modal = modal_from.modal
        if modal is None:
            raise ClientRefused(f"the bot opened no modal in {modal_from.name!r}")
        if u is not modal_from.user:
            raise ClientRefused("only the user who triggered the modal can submit it")
        remaining = dict(values)

        def fill(comp: dict[str, Any], label: str | None) -> dict[str, Any]:
            out: dict[str, Any] = {"type": comp["type"]}
            if "id" in comp:
                out["id"] = comp["id"]
            if comp["type"] == TEXT_INPUT:
                cid = comp["custom_id"]
                key = next((k for k in (cid, comp.get("label"), label) if k in remaining), None)
                value = remaining.pop(key) if key is not None else comp.get("value", "")
                if comp.get("required", True) and not value:
                    raise ClientRefused(f"modal field {cid!r} is required")
                if len(value) > comp.get("max_length", 4000):
                    raise ClientRefused(f"modal field {cid!r} is too long")
                out.update(custom_id=cid, value=value)
            elif comp["type"] in SELECT_TYPES:
                cid = comp["custom_id"]
                key = next((k for k in (cid, label) if k in remaining), None)
                picked = remaining.pop(key) if key is not None else []
                out.update(
                    custom_id=cid, values=[picked] if isinstance(picked, str) else list(picked)
                )
            if comp.get("components"):
                out["components"] = [fill(c, label) for c in comp["components"]]
            if isinstance(comp.get("component"), dict):
                out["component"] = fill(comp["component"], comp.get("label"))
            return out

        components = [fill(c, None) for c in modal.get("components") or []]
        if remaining:
            raise ClientRefused(f"modal has no fields {sorted(remaining)}")
        data = {"custom_id": modal["custom_id"], "components": components}
        return await self._send(
            MODAL_SUBMIT, u, modal_from.channel, data, modal["custom_id"],
            modal.get("title") or modal["custom_id"], message=modal_from.source_message,
            expect_response=expect_response, timeout=timeout,
        )

    # ------------------------------------------------------------------ plain messages
    async def say(
        self, user: FakeUser | str, content: str, *, reply_to: Message | None = None
    ) -> Message:
        """``user`` types a message in the channel (the bot gets MESSAGE_CREATE)."""
        msg = self.dd.user_message(self.channel, self.user(user), content, reply_to=reply_to)
        for session in list(self.dd.sessions.values()):
            await session.flush()
        return msg

    # ------------------------------------------------------------------ reading the channel
    @property
    def messages(self) -> list[Message]:
        """What everyone sees in the channel, oldest first (no ephemeral, no deleted)."""
        return self.dd.channel_messages(self.channel)

    @property
    def all_messages(self) -> list[Message]:
        """Every message including ephemeral ones (each knows ``visible_to``)."""
        return self.dd.channel_messages(self.channel, include_ephemeral=True)

    def visible_to(self, user: FakeUser | str) -> list[Message]:
        u = self.user(user)
        return [m for m in self.all_messages if m.visible_for(u.id)]

    @property
    def replies(self) -> list[Reply]:
        """Interactions sent at this table, oldest first."""
        return sorted(
            (r for r in self.dd.interactions.values() if r.channel is self.channel),
            key=lambda r: r.seq,
        )

    def last_message(
        self, predicate: Callable[[Message], bool] | None = None, *, include_ephemeral: bool = False
    ) -> Message:
        msgs = self.all_messages if include_ephemeral else self.messages
        for m in reversed(msgs):
            if predicate is None or predicate(m):
                return m
        raise LookupError(f"no matching message in #{self.channel.name}")

    async def wait_for_message(
        self,
        predicate: Callable[[Message], bool] | None = None,
        *,
        after: Message | int | None = None,
        timeout: float | None = None,
        include_ephemeral: bool = False,
    ) -> Message:
        """Wait for a message in this channel newer than ``after`` (default: from now on)."""
        return await self.dd.wait_for_message(
            predicate,
            channel=self.channel,
            after=after,
            timeout=timeout,
            include_ephemeral=include_ephemeral,
        )

    def transcript(
        self,
        *,
        include_ephemeral: bool = True,
        include_autocomplete: bool = False,
        as_posted: bool = False,
    ) -> str:
        """The channel as readable text: who did what, what the bot answered, files named.

        By default each message as it is now (an edited one where it was first posted);
        ``as_posted``: each message as it was when posted, and each later edit as a line
        of its own where it happened (the story in order)."""
        return render_transcript(
            self.dd,
            self.channel,
            include_ephemeral=include_ephemeral,
            include_autocomplete=include_autocomplete,
            as_posted=as_posted,
        )


def _options_text(options: dict[str, Any]) -> str:
    parts = []
    for k, v in options.items():
        if isinstance(v, FakeUser):
            v = "@" + v.name
        elif isinstance(v, FakeChannel):
            v = "#" + v.name
        elif isinstance(v, FakeRole):
            v = "@" + v.name
        elif isinstance(v, bytes | tuple | Path):
            v = "<file>"
        parts.append(f"{k}:{v}")
    return " ".join(parts)


def _humanize(dd: DiscordDouble, text: str) -> str:
    def user(m: re.Match[str]) -> str:
        u = dd.users.get(m.group(1))
        return "@" + u.name if u else m.group(0)

    def role(m: re.Match[str]) -> str:
        for g in dd.guilds.values():
            if m.group(1) in g.roles:
                return "@" + g.roles[m.group(1)].name
        return m.group(0)

    def chan(m: re.Match[str]) -> str:
        c = dd.channels.get(m.group(1))
        return "#" + c.name if c else m.group(0)

    text = USER_MENTION_RE.sub(user, text)
    text = ROLE_MENTION_RE.sub(role, text)
    return CHANNEL_MENTION_RE.sub(chan, text)


def _describe_attachment(att: Attachment) -> str:
    kind = att.content_type or "file"
    dims = att.dimensions() if att.is_png or kind.startswith("image/") else None
    size = f"{dims[0]}x{dims[1]}, " if dims else ""
    return f"[file] {att.filename} ({kind}, {size}{att.size} bytes)"


def render_message(dd: DiscordDouble, m: Message, indent: str = "") -> list[str]:
    who = m.author.name
    tags = []
    if m.ephemeral:
        viewer = dd.users.get(m.visible_to or "")
        tags.append(f"only {viewer.name if viewer else '?'} sees this")
    if m.edited:
        tags.append("edited")
    if m.deleted:
        tags.append("deleted")
    head = f"{indent}{who}" + (f" ({', '.join(tags)})" if tags else "")
    if m.loading:
        return [f"{head}: is thinking..."]
    lines: list[str] = []
    body = _humanize(dd, m.content).splitlines() or [""]
    lines.append(f"{head}: {body[0]}".rstrip())
    lines.extend(f"{indent}    {line}" for line in body[1:])
    for e in m.embeds:
        title = " - ".join(str(x) for x in (e.get("title"), e.get("description")) if x)
        lines.append(f"{indent}    [embed] {_humanize(dd, title)}")
        for f in e.get("fields") or []:
            lines.append(f"{indent}      * {f.get('name')}: {_humanize(dd, str(f.get('value')))}")
        if (e.get("image") or {}).get("url"):
            lines.append(f"{indent}      image: {e['image']['url'].rsplit('/', 1)[-1]}")
    for comp in walk_components(m.components):
        if comp.get("type") == 10 and comp.get("content"):
            lines.append(f"{indent}    {_humanize(dd, comp['content'])}")
    widgets = []
    for comp in walk_components(m.components):
        if comp.get("type") == BUTTON:
            label = comp.get("label") or (comp.get("emoji") or {}).get("name") or "?"
            widgets.append(f"[{label}]" + (" (disabled)" if comp.get("disabled") else ""))
        elif comp.get("type") in SELECT_TYPES:
            widgets.append(f"[select: {comp.get('placeholder') or comp.get('custom_id')}]")
    if widgets:
        lines.append(f"{indent}    " + " ".join(widgets))
    lines.extend(f"{indent}    {_describe_attachment(a)}" for a in m.attachments)
    return lines


def _gists(dd: DiscordDouble, m: Message) -> list[str]:
    """A message's parts, one short line each: content, embeds' heads and fields, buttons."""
    def first(text: str) -> str:
        return _humanize(dd, text).strip().split("\n", 1)[0]

    parts = [first(m.content)] if m.content else []
    for e in m.embeds:
        title = " - ".join(str(x) for x in (e.get("title"), e.get("description")) if x)
        parts.append(f"[embed] {first(title)}")
        parts.extend(f"* {f.get('name')}: " + " ".join(_humanize(dd, str(f.get('value')))
                                                         .split())
                     for f in e.get("fields") or [])
    labels = [str(c.get("label") or "?") for c in walk_components(m.components)
              if c.get("type") == BUTTON]
    parts.append(" ".join(f"[{label}]" for label in labels) if labels else "(no buttons)")
    return parts


def render_edit(dd: DiscordDouble, m: Message, before: Message) -> list[str]:
    """One line for an edit: who edited, the first part that changed, new files named."""
    old_parts = _gists(dd, before)
    changed = [p for p in _gists(dd, m) if p not in old_parts] or ["(no visible change)"]
    gist = changed[0] if len(changed[0]) <= 160 else changed[0][:159] + "…"
    old = {a.id for a in before.attachments}
    files = "".join(f" (image: {a.filename})" for a in m.attachments if a.id not in old)
    tags = ", only " + (dd.users[m.visible_to].name if m.visible_to in dd.users else "?") \
        + " sees this" if m.ephemeral else ""
    return [f"{m.author.name} (edits its message{tags}): {gist}{files}".rstrip()]


def render_transcript(
    dd: DiscordDouble,
    channel: FakeChannel,
    *,
    include_ephemeral: bool = True,
    include_autocomplete: bool = False,
    as_posted: bool = False,
) -> str:
    lines = [f"--- #{channel.name} ---"]
    items: list[tuple[int, Message | Reply | tuple[Message, Message]]] = []
    for m in dd.messages.values():
        if m.channel is channel and (include_ephemeral or not m.ephemeral):
            if not as_posted:
                items.append((m.seq, m))
                continue
            versions = m.versions()
            items.append(versions[0])
            items.extend((seq, (shown, versions[i][1]))
                         for i, (seq, shown) in enumerate(versions[1:]))
    for r in dd.interactions.values():
        if r.channel is channel and (
            include_autocomplete or r.type != APPLICATION_COMMAND_AUTOCOMPLETE
        ):
            items.append((r.seq, r))
    for _, item in sorted(items, key=lambda x: x[0]):
        if isinstance(item, Message):
            lines.extend(render_message(dd, item))
            continue
        if isinstance(item, tuple):
            lines.extend(render_edit(dd, *item))
            continue
        r = item
        if r.type == APPLICATION_COMMAND:
            opts = r.summary
            lines.append(f"> {r.user.name} uses /{r.name}" + (f" {opts}" if opts else ""))
        elif r.type == APPLICATION_COMMAND_AUTOCOMPLETE:
            shown = ", ".join(c.name for c in r.choices or [])
            lines.append(f"> {r.user.name} types {r.summary} in /{r.name} -> [{shown}]")
        elif r.type == MESSAGE_COMPONENT:
            lines.append(f"> {r.user.name} clicks [{r.summary}]")
        elif r.type == MODAL_SUBMIT:
            lines.append(f"> {r.user.name} submits the form {r.summary!r}")
        if r.modal is not None:
            lines.append(f"  (a form {r.modal.get('title')!r} opens for {r.user.name})")
        if not r.responded and r.type != APPLICATION_COMMAND_AUTOCOMPLETE:
            lines.append("  (no response: 'This interaction failed')")
        for err in r.errors:
            lines.append(
                f"  (Discord rejected the bot's answer: {err.get('code')} {err.get('message')})"
            )
    return "\n".join(lines)
