"""The limits Discord enforces on what a bot sends, answered with Discord's error shapes.

Each ``check_*`` function returns ``None`` when the payload is acceptable, else the JSON body
Discord would answer with (``{"message", "code", "errors"}``; HTTP 400 unless stated).
"""

from __future__ import annotations

import re
from typing import Any

from .models import BUTTON, SELECT_TYPES, TEXT_INPUT, walk_components

COMMAND_NAME_RE = re.compile(r"^[-_'\w]{1,32}$")


class Problems:
    """Collects field errors in Discord's nested ``errors`` format."""

    def __init__(self) -> None:
        self.errors: dict[str, Any] = {}

    def add(self, path: tuple[str | int, ...], code: str, message: str) -> None:
        node = self.errors
        for part in path:
            node = node.setdefault(str(part), {})
        node.setdefault("_errors", []).append({"code": code, "message": message})

    def body(self) -> dict[str, Any] | None:
        if not self.errors:
            return None
        return {"message": "Invalid Form Body", "code": 50035, "errors": self.errors}


def error_body(code: int, message: str) -> dict[str, Any]:
    return {"message": message, "code": code}


def form_error(field: str, code: str, message: str) -> dict[str, Any]:
    """A 50035 Invalid Form Body about one field ("" for the body itself)."""
    errors: dict[str, Any] = {"_errors": [{"code": code, "message": message}]}
    return {
        "message": "Invalid Form Body",
        "code": 50035,
        "errors": {field: errors} if field else errors,
    }


def _max_len(p: Problems, path: tuple[str | int, ...], value: Any, limit: int) -> None:
    if isinstance(value, str) and len(value) > limit:
        p.add(path, "BASE_TYPE_MAX_LENGTH", f"Must be {limit} or fewer in length.")


def check_embeds(p: Problems, embeds: list[dict[str, Any]], prefix: tuple[str | int, ...]) -> None:
    if len(embeds) > 10:
        p.add(prefix, "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    total = 0
    for i, e in enumerate(embeds):
        path = (*prefix, i)
        _max_len(p, (*path, "title"), e.get("title"), 256)
        _max_len(p, (*path, "description"), e.get("description"), 4096)
        fields = e.get("fields") or []
        if len(fields) > 25:
            p.add((*path, "fields"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        for j, f in enumerate(fields):
            if not f.get("name"):
                p.add((*path, "fields", j, "name"), "BASE_TYPE_REQUIRED", "This field is required")
            if not f.get("value"):
                p.add((*path, "fields", j, "value"), "BASE_TYPE_REQUIRED", "This field is required")
            _max_len(p, (*path, "fields", j, "name"), f.get("name"), 256)
            _max_len(p, (*path, "fields", j, "value"), f.get("value"), 1024)
            total += len(str(f.get("name") or "")) + len(str(f.get("value") or ""))
        footer = e.get("footer") or {}
        author = e.get("author") or {}
        _max_len(p, (*path, "footer", "text"), footer.get("text"), 2048)
        _max_len(p, (*path, "author", "name"), author.get("name"), 256)
        total += sum(
            len(str(x or ""))
            for x in (e.get("title"), e.get("description"), footer.get("text"), author.get("name"))
        )
        for key in ("image", "thumbnail"):
            url = (e.get(key) or {}).get("url")
            if url is not None and not re.match(r"^(https?|attachment)://", str(url)):
                p.add((*path, key, "url"), "URL_TYPE_INVALID_URL", "Not a well formed URL.")
    if total > 6000:
        p.add(prefix, "MESSAGE_EMBEDS_TOO_LONG", "Embed size exceeds maximum size of 6000")


def check_components(
    p: Problems, components: list[dict[str, Any]], *, v2: bool, modal: bool = False
) -> None:
    if not v2 and len(components) > 5:
        p.add(("components",), "BASE_TYPE_MAX_LENGTH", "Must be 5 or fewer in length.")
    seen: set[str] = set()
    for i, row in enumerate(components):
        if not v2 and row.get("type") != 1:
            p.add(("components", i, "type"), "UNION_TYPE_CHOICES", "Top-level must be action rows.")
            continue
        children = row.get("components") or []
        if row.get("type") == 1 and not 1 <= len(children) <= 5:
            p.add(("components", i, "components"), "BASE_TYPE_BAD_LENGTH", "Must be 1 to 5 items.")
    for comp in walk_components(components):
        ctype = comp.get("type")
        cid = comp.get("custom_id")
        if cid is not None:
            if not 1 <= len(cid) <= 100:
                p.add(("components", "custom_id"), "BASE_TYPE_BAD_LENGTH", "Must be 1-100 long.")
            if cid in seen:
                p.add(
                    ("components", "custom_id"),
                    "COMPONENT_CUSTOM_ID_DUPLICATED",
                    f"Component custom id cannot be duplicated: {cid}",
                )
            seen.add(cid)
        if ctype == BUTTON:
            style = comp.get("style")
            if style == 5:
                if not comp.get("url"):
                    p.add(("components", "url"), "BASE_TYPE_REQUIRED", "Link buttons need a url.")
            elif style == 6:
                if not comp.get("sku_id"):
                    p.add(("components", "sku_id"), "BASE_TYPE_REQUIRED", "Premium needs sku_id.")
            elif not cid:
                p.add(
                    ("components", "custom_id"), "BASE_TYPE_REQUIRED", "Buttons need a custom_id."
                )
            _max_len(p, ("components", "label"), comp.get("label"), 80)
            if not comp.get("label") and not comp.get("emoji") and style != 6:
                p.add(
                    ("components", "label"), "BASE_TYPE_REQUIRED", "A button needs label or emoji."
                )
        elif ctype in SELECT_TYPES:
            if not cid:
                p.add(
                    ("components", "custom_id"), "BASE_TYPE_REQUIRED", "Selects need a custom_id."
                )
            options = comp.get("options") or []
            if ctype == 3 and not 1 <= len(options) <= 25:
                p.add(("components", "options"), "BASE_TYPE_BAD_LENGTH", "Must be 1 to 25 options.")
            for opt in options:
                _max_len(p, ("components", "options", "label"), opt.get("label"), 100)
                _max_len(p, ("components", "options", "value"), opt.get("value"), 100)
        elif ctype == TEXT_INPUT and not modal:
            p.add(("components", "type"), "COMPONENT_INVALID", "Text inputs only go in modals.")


def check_message(
    data: dict[str, Any], *, n_files: int, editing: bool = False, existing_attachments: int = 0
) -> dict[str, Any] | None:
    """Validate a create/edit message body (channel message, interaction response, webhook)."""
    p = Problems()
    content = data.get("content")
    if content is not None and not isinstance(content, str):
        p.add(("content",), "BASE_TYPE_STRING", "Must be a string.")
    _max_len(p, ("content",), content, 2000)
    flags = int(data.get("flags") or 0)
    v2 = bool(flags & (1 << 15))
    embeds = data.get("embeds") or []
    components = data.get("components") or []
    check_embeds(p, embeds, ("embeds",))
    check_components(p, components, v2=v2)
    if v2 and (content or embeds):
        p.add(
            ("content",),
            "MESSAGE_CANNOT_USE_LEGACY_FIELDS_WITH_COMPONENTS_V2",
            "content and embeds cannot be used with the IS_COMPONENTS_V2 flag.",
        )
    if n_files + len(data.get("attachments") or []) > 10 + existing_attachments:
        p.add(("attachments",), "BASE_TYPE_MAX_LENGTH", "Must be 10 or fewer in length.")
    body = p.body()
    if body is not None:
        return body
    if not editing and not (
        content or embeds or components or n_files or data.get("sticker_ids") or data.get("poll")
    ):
        return error_body(50006, "Cannot send an empty message")
    return None


def check_choices(choices: Any) -> dict[str, Any] | None:
    p = Problems()
    if not isinstance(choices, list):
        p.add(("data", "choices"), "BASE_TYPE_REQUIRED", "This field is required")
        return p.body()
    if len(choices) > 25:
        p.add(("data", "choices"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    for i, c in enumerate(choices):
        name = c.get("name")
        if not isinstance(name, str) or not 1 <= len(name) <= 100:
            p.add(
                ("data", "choices", i, "name"),
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        value = c.get("value")
        if isinstance(value, str) and len(value) > 100:
            p.add(
                ("data", "choices", i, "value"),
                "BASE_TYPE_MAX_LENGTH",
                "Must be 100 or fewer in length.",
            )
    return p.body()


def check_modal(data: dict[str, Any]) -> dict[str, Any] | None:
    p = Problems()
    if not data.get("custom_id"):
        p.add(("data", "custom_id"), "BASE_TYPE_REQUIRED", "This field is required")
    title = data.get("title")
    if not title:
        p.add(("data", "title"), "BASE_TYPE_REQUIRED", "This field is required")
    _max_len(p, ("data", "title"), title, 45)
    comps = data.get("components") or []
    if not 1 <= len(comps) <= 5:
        p.add(("data", "components"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 5 in length.")
    return p.body()


def check_command(cmd: dict[str, Any], path: tuple[str | int, ...]) -> Problems:
    p = Problems()
    _check_command_into(p, cmd, path)
    return p


def _check_command_into(p: Problems, cmd: dict[str, Any], path: tuple[str | int, ...]) -> None:
    ctype = cmd.get("type", 1)
    name = cmd.get("name", "")
    if ctype == 1:
        if not isinstance(name, str) or not COMMAND_NAME_RE.match(name) or name != name.lower():
            p.add(
                (*path, "name"),
                "APPLICATION_COMMAND_INVALID_NAME",
                f"Command name is invalid: {name!r}",
            )
        desc = cmd.get("description", "")
        if not isinstance(desc, str) or not 1 <= len(desc) <= 100:
            p.add(
                (*path, "description"),
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
    elif not isinstance(name, str) or not 1 <= len(name) <= 32:
        p.add((*path, "name"), "BASE_TYPE_BAD_LENGTH", "Must be between 1 and 32 in length.")
    _check_options(p, cmd.get("options") or [], (*path, "options"), depth=0)


def _check_options(
    p: Problems, options: list[dict[str, Any]], path: tuple[str | int, ...], depth: int
) -> None:
    if len(options) > 25:
        p.add(path, "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
    names: set[str] = set()
    seen_optional = False
    for i, opt in enumerate(options):
        opath = (*path, i)
        otype = opt.get("type")
        name = opt.get("name", "")
        if not isinstance(name, str) or not COMMAND_NAME_RE.match(name) or name != name.lower():
            p.add(
                (*opath, "name"),
                "APPLICATION_COMMAND_INVALID_NAME",
                f"Option name is invalid: {name!r}",
            )
        if name in names:
            p.add(
                (*opath, "name"),
                "APPLICATION_COMMAND_OPTIONS_NAME_ALREADY_EXISTS",
                "Duplicate name.",
            )
        names.add(name)
        desc = opt.get("description", "")
        if not isinstance(desc, str) or not 1 <= len(desc) <= 100:
            p.add(
                (*opath, "description"),
                "BASE_TYPE_BAD_LENGTH",
                "Must be between 1 and 100 in length.",
            )
        if otype in (1, 2):
            if (otype == 2 and depth > 0) or (otype == 1 and depth > 1):
                p.add(
                    (*opath, "type"), "APPLICATION_COMMAND_OPTION_TYPE_INVALID", "Nested too deep."
                )
            _check_options(p, opt.get("options") or [], (*opath, "options"), depth + 1)
            continue
        if opt.get("required"):
            if seen_optional:
                p.add(
                    (*opath, "required"),
                    "APPLICATION_COMMAND_OPTIONS_REQUIRED_INVALID",
                    "Required options must be placed before non-required options",
                )
        else:
            seen_optional = True
        choices = opt.get("choices") or []
        if len(choices) > 25:
            p.add((*opath, "choices"), "BASE_TYPE_MAX_LENGTH", "Must be 25 or fewer in length.")
        if choices and opt.get("autocomplete"):
            p.add(
                (*opath, "autocomplete"),
                "APPLICATION_COMMAND_OPTION_AUTOCOMPLETE_CHOICES",
                "Autocomplete cannot be set with choices.",
            )
