"""At a desktop's width the panel has two columns; the left one starts level with the
settings, whatever cards the piece leaves out. Real pieces in subprocesses, headless Chromium
(skipped without it; see tests/panel/test_browser.py)."""
from __future__ import annotations

from itertools import pairwise
from typing import Any

import pytest

from tests.panel.conftest import VIEWPORTS

pytestmark = pytest.mark.browser

_TOPS = """() => Object.fromEntries([...document.querySelectorAll('main > .card')]
    .filter((c) => c.offsetParent !== null)
    .map((c) => [c.id, Math.round(c.getBoundingClientRect().top)]))"""


@pytest.mark.parametrize("app, first", [("clapper", "audio-card"), ("color_ball", "view-card")])
def test_the_first_card_of_the_left_column_is_level_with_the_settings(process_piece, browser: Any,
                                                                      app, first):
    """The clapper has no camera and nothing to teach: their hidden cards' empty grid rows
    kept their gaps, and the sound level card sat 26 px below the settings."""
    context = browser.new_context(viewport=VIEWPORTS["desktop"])
    try:
        page = context.new_page()
        piece = process_piece("run", app, "--headless", "--loop")
        page.goto(piece.url)
        page.wait_for_selector(".setting", timeout=10_000)
        tops = page.evaluate(_TOPS)
        assert tops[first] == tops["settings-card"], tops
        left = sorted((top, card) for card, top in tops.items() if card != "settings-card")
        assert left[0][1] == first
        gaps = [b[0] - a[0] for a, b in pairwise(left)]
        assert all(g > 0 for g in gaps), tops                 # stacked, none on top of another
    finally:
        context.close()
