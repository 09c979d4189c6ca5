"""Drawing helpers shared by the apps: cached text, title bar, instruction line, banners.

Text rendering is the slow part of a pygame frame (~0.1 ms per string), so
``text()`` caches rendered strings by (string, size, colour); a HUD that shows
the same numbers frame after frame costs a blit. The cache is bounded (oldest
entries dropped past ``MAX_CACHED``). Fonts are pygame's built-in default font,
so pictures are identical on every machine with the same pygame; drawn 4x and
scaled down, so the letters keep the font's spacing at small sizes.

Layout used by every app (window pixels):

- a title bar ``TITLE_H`` high at the top: title left, score right;
- an instruction line ``FOOTER_H`` high at the bottom;
- the HUD (see ``hud.py``) in the title bar's second line.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Literal

import pygame

Color = tuple[int, int, int]

TITLE_H = 44
FOOTER_H = 24
MAX_CACHED = 512
#: text is rendered this many times larger, then scaled down (``render``)
SUPERSAMPLE = 4
LABEL_RADIUS_PX = 4

WHITE: Color = (245, 245, 245)
BLACK: Color = (0, 0, 0)
GREY: Color = (150, 150, 160)
DARK: Color = (22, 24, 32)
PANEL: Color = (12, 14, 20)
ACCENT: Color = (255, 196, 0)
RED: Color = (235, 64, 52)
GREEN: Color = (80, 220, 120)
CYAN: Color = (60, 200, 255)

Anchor = Literal["topleft", "topright", "midtop", "center", "midleft", "midright",
                 "bottomleft", "bottomright", "midbottom"]

_fonts: dict[int, pygame.font.Font] = {}
_cache: OrderedDict[tuple[str, int, Color, bool], pygame.Surface] = OrderedDict()


def font(size: int) -> pygame.font.Font:
    """pygame's default font at ``size`` pixels (initialises the font module once)."""
    f = _fonts.get(size)
    if f is None:
        if not pygame.font.get_init():
            pygame.font.init()
        f = _fonts[size] = pygame.font.Font(None, size)
    return f


def render(s: str, size: int = 20, color: Color = WHITE, *, bold: bool = False) -> pygame.Surface:
    """A rendered, cached text surface: drawn ``SUPERSAMPLE`` times larger and scaled down, so each
    letter sits where the font's outline puts it. At an app's sizes (17-28) the hinted font
    rounds every advance to a whole pixel and snaps stems: "track ing", "cllck", drifting
    by up to 7 px over a line."""
    key = (s, size, color, bold)
    surf = _cache.get(key)
    if surf is None:
        f = font(size * SUPERSAMPLE)
        f.set_bold(bold)
        big = f.render(s, True, color)
        f.set_bold(False)
        k = SUPERSAMPLE
        w, h = -(-big.get_width() // k), -(-big.get_height() // k)     # whole pixels: one scale
        padded = pygame.Surface((w * k, h * k), pygame.SRCALPHA)
        padded.fill((*color, 0))                       # transparent in the text's colour: no dark fringe
        padded.blit(big, (0, 0))
        surf = pygame.transform.smoothscale(padded, (w, h))
        _cache[key] = surf
        if len(_cache) > MAX_CACHED:
            _cache.popitem(last=False)
    else:
        _cache.move_to_end(key)
    return surf


def text(screen: pygame.Surface, s: str, pos: tuple[float, float], *, size: int = 20,
         color: Color = WHITE, anchor: Anchor = "topleft", bold: bool = False) -> pygame.Rect:
    """Draw ``s`` with its ``anchor`` point at ``pos``; returns the rectangle drawn."""
    surf = render(s, size, color, bold=bold)
    rect = surf.get_rect(**{anchor: (int(pos[0]), int(pos[1]))})
    screen.blit(surf, rect)
    return rect


def title_bar(screen: pygame.Surface, title: str, score: str = "") -> None:
    """The dark strip at the top with the game's title and, on the right, its score. A score too
    wide for the room the title leaves is drawn smaller (down to 16), then cut: it never covers
    the title (activity_graph's counts with a long timeout and 3-digit counts ran over it)."""
    w = screen.get_width()
    screen.fill(PANEL, (0, 0, w, TITLE_H))
    left = text(screen, title, (10, 4), size=28, color=ACCENT, bold=True)
    if score:
        room = pygame.Rect(left.right + 20, 0, max(0, w - 10 - left.right - 20), TITLE_H)
        size = 28
        while size > 16 and render(score, size, WHITE, bold=True).get_width() > room.w:
            size -= 2
        clip = screen.get_clip()
        screen.set_clip(room.clip(clip))
        text(screen, score, (w - 10, 4 + (28 - size) // 2), size=size, color=WHITE, anchor="topright", bold=True)
        screen.set_clip(clip)


def footer(screen: pygame.Surface, instructions: str) -> None:
    """The instruction line at the bottom."""
    w, h = screen.get_size()
    screen.fill(PANEL, (0, h - FOOTER_H, w, FOOTER_H))
    text(screen, instructions, (w // 2, h - FOOTER_H // 2), size=19, color=GREY, anchor="center")


def banner(screen: pygame.Surface, message: str, *, color: Color = RED, y: int | None = None,
           size: int = 30) -> None:
    """A centred message on a dark band (game over, source lost, paused...)."""
    w, h = screen.get_size()
    surf = render(message, size, WHITE, bold=True)
    cy = h // 2 if y is None else y
    band = pygame.Rect(0, 0, surf.get_width() + 40, surf.get_height() + 16)
    band.center = (w // 2, cy)
    pygame.draw.rect(screen, color, band, border_radius=8)
    screen.blit(surf, surf.get_rect(center=band.center))


def content_rect(screen: pygame.Surface) -> pygame.Rect:
    """The area between the title bar and the instruction line."""
    w, h = screen.get_size()
    return pygame.Rect(0, TITLE_H, w, h - TITLE_H - FOOTER_H)


def meter(screen: pygame.Surface, rect: pygame.Rect, value: float, *, maximum: float = 100.0,
          color: Color = GREEN, mark: float | None = None) -> None:
    """A vertical bar meter filled to ``value/maximum``, with an optional threshold mark."""
    pygame.draw.rect(screen, DARK, rect)
    frac = max(0.0, min(1.0, value / maximum))
    fill = pygame.Rect(rect.x, rect.bottom - int(rect.h * frac), rect.w, int(rect.h * frac))
    pygame.draw.rect(screen, color, fill)
    if mark is not None:
        y = rect.bottom - int(rect.h * max(0.0, min(1.0, mark / maximum)))
        pygame.draw.line(screen, ACCENT, (rect.x - 3, y), (rect.right + 2, y), 2)
    pygame.draw.rect(screen, GREY, rect, 1)


def label(screen: pygame.Surface, s: str, pos: tuple[float, float], *, size: int = 20,
          color: Color = WHITE, anchor: Anchor = "topleft", bold: bool = False,
          backing: Color = PANEL, pad_px: tuple[int, int] = (6, 3)) -> pygame.Rect:
    """``text()`` on an opaque rounded backing, for a label over a busy picture (balls, rocks,
    a camera view); ``anchor`` places the backing. Returns the backing's rectangle."""
    surf = render(s, size, color, bold=bold)
    box = pygame.Rect(0, 0, surf.get_width() + 2 * pad_px[0], surf.get_height() + 2 * pad_px[1])
    setattr(box, anchor, (int(pos[0]), int(pos[1])))
    pygame.draw.rect(screen, backing, box, border_radius=LABEL_RADIUS_PX)
    screen.blit(surf, surf.get_rect(center=box.center))
    return box
