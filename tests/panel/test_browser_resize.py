"""The panel's "Larger box" / "Smaller box" buttons and the wheel over the picture change the box
a click took (``POST /api/resize``, ``click_pool``), in headless Chromium on a real
``sensekit run color_ball`` process (skipped as ``test_browser.py`` is)."""
from __future__ import annotations

from typing import Any

import pytest

pytestmark = pytest.mark.browser

FRAME_TIMEOUT_MS = 20_000
#: the tracked box (meta.box: x, y, w, h) as the page last drew it
BOX = "() => sensekitPanel.frame && sensekitPanel.frame.meta.box"
RESULT = "() => document.getElementById('pick-result').textContent"


def _box_changed(page: Any, before: list[float], *, larger: bool) -> list[float]:
    """Wait until the tracked box is another size than ``before`` (a side over 25 % off, the
    area larger or smaller as asked) and return it."""
    w0, h0 = before[2], before[3]
    cond = (f"""() => {{ const b = sensekitPanel.frame && sensekitPanel.frame.meta.box;
        if (!b) return false;
        const other = b[2] / {w0} > 1.25 || b[2] / {w0} < 0.8 || b[3] / {h0} > 1.25 || b[3] / {h0} < 0.8;
        return other && b[2] * b[3] {'>' if larger else '<'} {w0 * h0}; }}""")
    page.wait_for_function(cond, timeout=FRAME_TIMEOUT_MS)
    box: list[float] = page.evaluate(BOX)
    return box


def test_the_buttons_and_the_wheel_grow_and_shrink_the_clicked_box(process_piece, page):
    piece = process_piece("run", "color_ball", "--headless", "--loop")
    page.goto(piece.url)
    page.wait_for_function("() => sensekitPanel.stats.frames >= 3", timeout=FRAME_TIMEOUT_MS)
    assert page.is_visible("#resize-larger") and page.is_visible("#resize-smaller")
    page.click("#resize-larger")                   # no click yet: it says what to do
    page.wait_for_function(f"() => ({RESULT})().startsWith('click an object first')", timeout=10_000)

    video = page.locator("#video").bounding_box()
    # the sky of the painting (camera pixels 75,35 of 320x240, mirrored picture): a part of it
    page.mouse.click(video["x"] + video["width"] * 75 / 320, video["y"] + video["height"] * 35 / 240)
    page.wait_for_function(f"() => ({RESULT})().includes('tracking the object')", timeout=10_000)
    page.wait_for_function("""() => { const b = sensekitPanel.frame && sensekitPanel.frame.meta.box;
        return b && b[0] <= 75 && 75 <= b[0] + b[2] && b[1] <= 35 && 35 <= b[1] + b[3] && b[2] > 40; }""",
                           timeout=FRAME_TIMEOUT_MS)         # the click's box, not the ball's before it
    first = page.evaluate(BOX)

    page.click("#resize-larger")
    page.wait_for_function(f"() => ({RESULT})() === 'a larger box around the click'", timeout=10_000)
    grown = _box_changed(page, first, larger=True)

    page.click("#resize-smaller")
    page.wait_for_function(f"() => ({RESULT})() === 'a smaller box around the click'", timeout=10_000)
    _box_changed(page, grown, larger=False)

    page.evaluate("() => document.getElementById('pick-result').textContent = ''")
    page.mouse.move(video["x"] + video["width"] / 2, video["y"] + video["height"] / 2)
    page.mouse.wheel(0, -100)                      # the wheel up over the picture: larger
    page.wait_for_function(f"() => ({RESULT})() === 'a larger box around the click'", timeout=10_000)
