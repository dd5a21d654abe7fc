"""Card text drawn on the Battlecards table: wrapped at word boundaries and ellipsised
after the last whole word that fits (only a single word wider than a line is cut)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from render.battlecards.layout import ELLIPSIS
from render.common import Canvas, drawable_text


def clip_words(text: str, measure: Callable[[str], float], max_width: float,
               max_lines: int = 1) -> list[str]:
    """``text`` wrapped into at most ``max_lines`` lines no wider than ``max_width``.

    Lines break between words. When the text does not fit, the last line ends with an
    ellipsis after the last whole word that fits (trailing punctuation dropped); only a
    single word wider than a whole line is cut inside (and ellipsised). ``measure`` gives
    a string's width, so this is pure: ``clip_words(s, len, 20, 2)`` counts characters.
    """
    words = text.split()
    if not words or max_lines <= 0 or max_width <= 0:
        return []
    lines: list[str] = []
    i = 0
    cut = False
    while i < len(words) and len(lines) < max_lines:
        line = words[i]
        i += 1
        if measure(line) > max_width:  # one word wider than the line: cut inside it
            lines.append(_cut_chars(line, measure, max_width))
            cut = True
            break
        while i < len(words) and measure(f"{line} {words[i]}") <= max_width:
            line = f"{line} {words[i]}"
            i += 1
        lines.append(line)
    if cut:
        return lines
    if i < len(words):  # the text goes on: end the last line with an ellipsis
        kept = lines[-1].split(" ")
        while kept:
            candidate = " ".join(kept).rstrip(",;:.-–—") + ELLIPSIS
            if measure(candidate) <= max_width:
                lines[-1] = candidate
                break
            kept.pop()
        else:
            lines[-1] = ELLIPSIS if measure(ELLIPSIS) <= max_width else ""
    return [line for line in lines if line]


def _cut_chars(word: str, measure: Callable[[str], float], max_width: float) -> str:
    """The longest start of ``word`` that fits ``max_width`` with an ellipsis."""
    lo, hi = 0, len(word)
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if measure(word[:mid] + ELLIPSIS) <= max_width:
            lo = mid
        else:
            hi = mid - 1
    if lo == 0:
        return ELLIPSIS if measure(ELLIPSIS) <= max_width else ""
    return word[:lo] + ELLIPSIS


def _clip(c: Canvas, text: str, size: float, max_width: float, max_lines: int = 1,
          bold: bool = False) -> list[str]:
    return clip_words(text, lambda s: c.text_width(s, size, bold), max_width, max_lines)


def _long_text(value: Any, limit: int = 400) -> str:
    """Card text cleaned for drawing; a text past ``limit`` characters is cut at a word
    boundary and ellipsised (never inside a word)."""
    text = drawable_text(value, limit=limit + 1)
    if len(text) <= limit:
        return text
    head = text[:limit]
    if " " in head:
        head = head[: head.rindex(" ")]
    return head.rstrip(",;:.-–—") + ELLIPSIS

