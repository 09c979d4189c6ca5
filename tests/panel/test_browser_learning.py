"""A setting left empty to be learned says what it stands for: ``noise_floor.level``'s box was
empty while the floor was being learned and after. Real pieces in subprocesses, headless
Chromium at a phone's and a desktop's width (skipped without it; see tests/panel/test_browser.py)."""
from __future__ import annotations

import pytest

from tests.panel.test_browser import FRAME_TIMEOUT_MS

pytestmark = pytest.mark.browser

BOX = "[data-key='noise_floor.level'] input[type=number]"


@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_the_level_box_says_learning_while_the_floor_is_learned(process_piece, viewport_page, viewport):
    piece = process_piece("events", "demo", "--clap", "--noise-floor-ms", "600000")
    viewport_page.goto(piece.url)
    box = viewport_page.locator(BOX)
    box.wait_for(timeout=FRAME_TIMEOUT_MS)
    viewport_page.wait_for_function(f"() => document.querySelector(\"{BOX}\").placeholder !== ''",
                                    timeout=FRAME_TIMEOUT_MS)
    assert box.input_value() == "" and box.get_attribute("placeholder") == "learning…"
    shown = box.bounding_box()
    width = viewport_page.evaluate("() => document.documentElement.clientWidth")
    assert shown is not None and shown["x"] >= 0 and shown["x"] + shown["width"] <= width, (shown, width)


def test_the_level_box_shows_the_learned_floor(process_piece, page):
    piece = process_piece("events", "demo", "--clap", "--noise-floor-ms", "200")
    page.goto(piece.url)
    page.wait_for_function(f"() => / \\(learned\\)$/.test(document.querySelector(\"{BOX}\")?.placeholder || '')",
                           timeout=FRAME_TIMEOUT_MS)
    box = page.locator(BOX)
    text = box.get_attribute("placeholder")
    assert box.input_value() == "" and 0 <= float(text.split()[0]) <= 100, text


FITS = """(sel) => {
  const box = document.querySelector(sel), cs = getComputedStyle(box);
  const ctx = document.createElement("canvas").getContext("2d");
  ctx.font = cs.font;
  const inner = box.clientWidth - parseFloat(cs.paddingLeft) - parseFloat(cs.paddingRight);
  return [ctx.measureText(box.placeholder).width, inner];
}"""


@pytest.mark.parametrize("viewport", ["phone", "desktop"])
def test_the_learned_floor_fits_its_box(process_piece, viewport_page, viewport):
    """ "0 (learned)" was cut to "0 (learne" in the 6.5rem number box (the sound_flier panel)."""
    piece = process_piece("events", "demo", "--clap", "--noise-floor-ms", "200")
    viewport_page.goto(piece.url)
    learned = f"() => / \\(learned\\)$/.test(document.querySelector(\"{BOX}\")?.placeholder || '')"
    viewport_page.wait_for_function(learned, timeout=FRAME_TIMEOUT_MS)
    text_px, inner_px = viewport_page.evaluate(FITS, BOX)
    assert text_px + 16 <= inner_px, (text_px, inner_px)           # 16 px: the arrows of a number box
