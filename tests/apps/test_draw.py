"""sensekit.app.draw: a label stays readable whatever is under it."""
from __future__ import annotations

import numpy as np
import pygame

from sensekit.app import draw as D
from sensekit.app.convert import surface_to_array


def _busy(seed: int) -> pygame.Surface:
    rng = np.random.default_rng(seed)
    return pygame.surfarray.make_surface(rng.integers(0, 256, (200, 80, 3), dtype=np.uint8))


def test_a_label_hides_the_picture_under_it():
    """collide's "c: balls" over 400 balls and sound_flier's "voice" over a rock were plain text:
    a label's backing is opaque, so two different pictures under it give the same pixels."""
    shots, boxes = [], []
    for seed in (1, 2):
        screen = _busy(seed)
        boxes.append(D.label(screen, "c: balls", (6, 6), size=22, color=D.ACCENT, bold=True))
        shots.append(surface_to_array(screen))
    box = boxes[0]
    assert box == boxes[1] and box.topleft == (6, 6)
    inside = np.zeros(shots[0].shape[:2], bool)
    inside[box.top:box.bottom, box.left:box.right] = True
    r = D.LABEL_RADIUS_PX
    for x in (box.left, box.right - r):                  # the rounded corners show what is under them
        for y in (box.top, box.bottom - r):
            inside[y:y + r, x:x + r] = False
    assert np.array_equal(shots[0][inside], shots[1][inside])
    assert not np.array_equal(shots[0][~inside], shots[1][~inside])       # outside, the picture
    text = (np.abs(shots[0][inside].astype(int) - D.ACCENT[::-1]).max(axis=1) < 40).sum()   # BGR
    assert text > 40                                                       # the text is drawn


def test_a_label_is_placed_by_its_anchor():
    screen = pygame.Surface((200, 80))
    box = D.label(screen, "voice", (190, 70), size=16, anchor="bottomright")
    assert box.bottomright == (190, 70)


def _ink_positions(surf: pygame.Surface) -> np.ndarray:
    """x (px) where 5 %, 10 % ... 95 % of the text's ink lies to the left: where its letters sit."""
    ink = pygame.surfarray.array_alpha(surf).astype(float).sum(axis=1) + 1e-6   # per column
    cum = np.concatenate([[0.0], np.cumsum(ink)]) / ink.sum()
    return np.interp(np.linspace(0.05, 0.95, 19), cum, np.arange(len(cum), dtype=float))


def _outline(word: str, size: int, bold: bool, k: int = 16) -> pygame.Surface:
    """The word as the font's outlines place it: drawn 16x and scaled down (no hinting left)."""
    f = pygame.font.Font(None, size * k)
    f.set_bold(bold)
    big = f.render(word, True, D.BLACK)
    return pygame.transform.smoothscale(big, (round(big.get_width() / k), round(big.get_height() / k)))


def test_letters_keep_the_fonts_spacing_at_the_apps_sizes():
    """color_ball's label read "track ing", its footer "cllck/drag: plck": pygame's hinted font
    rounds each letter's advance to whole pixels at 16-28 px, and letters drifted up to 3.5 px (1.8 on
    average) from where the font puts them. Drawn 4x and scaled down they stay within 1.5 px (0.55)."""
    pygame.font.init()
    errors = []
    for word in ("tracking", "click/drag:", "tolerance/size", "sensitivity"):
        for size in (16, 17, 18, 19, 20, 28):
            for bold in (False, True):
                off = _ink_positions(D.render(word, size, D.BLACK, bold=bold)) - _ink_positions(
                    _outline(word, size, bold))
                errors.append(float(np.abs(off - np.median(off)).max()))    # the word may sit 1 px over
    assert np.mean(errors) < 0.8 and max(errors) < 1.6, (np.mean(errors), max(errors))
