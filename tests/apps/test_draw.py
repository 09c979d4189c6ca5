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
