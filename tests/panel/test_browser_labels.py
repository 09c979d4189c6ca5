"""What the panel's numbers say to a person: the level graph's time axis and the camera card's
frame rate. Real pieces in subprocesses, headless Chromium (skipped without it; see
tests/panel/test_browser.py)."""
from __future__ import annotations

import re
from itertools import pairwise

import pytest

from tests.panel.test_browser import FRAME_TIMEOUT_MS, _wait_frames

pytestmark = pytest.mark.browser

#: every text drawn on the level graph's canvas, in order: [text, left, right] in canvas pixels
_RECORD_LEVEL_TEXTS = """
  window.levelTexts = [];
  const fillText = CanvasRenderingContext2D.prototype.fillText;
  CanvasRenderingContext2D.prototype.fillText = function (text, x, ...rest) {
    if (this.canvas.id === 'levels') {
      const w = this.measureText(String(text)).width;
      const left = this.textAlign === 'right' || this.textAlign === 'end' ? x - w : x;
      window.levelTexts.push([String(text), left, left + w]);
    }
    return fillText.call(this, text, x, ...rest);
  };
"""


@pytest.mark.parametrize("width", [320, 1280])
def test_the_level_graph_counts_seconds_back_from_now(process_piece, browser, width):
    """The axis said the source's own seconds: '-5s -3s -1s 1s 3s' four seconds into the demo,
    anything after a loop; a 10 s graph reads '8 s ago' ... 'now', as the apps' graphs do, and
    no two labels overlap (at 320 px '2 s ago' ran into 'now')."""
    context = browser.new_context(viewport={"width": width, "height": 800})
    try:
        page = context.new_page()
        page.add_init_script(_RECORD_LEVEL_TEXTS)
        piece = process_piece("run", "clapper", "--headless", "--loop")
        page.goto(piece.url)
        page.wait_for_function("() => sensekitPanel.levels.length > 60", timeout=FRAME_TIMEOUT_MS)
        page.evaluate("() => { window.levelTexts = []; }")
        page.wait_for_function("() => window.levelTexts.some((t) => t[0] === 'now')", timeout=FRAME_TIMEOUT_MS)
        drawn = page.evaluate("() => window.levelTexts")
    finally:
        context.close()
    one = drawn[:next(i for i, t in enumerate(drawn) if t[0] == "now") + 1]      # one drawing of the axis
    texts = [t for t, _, _ in one]
    ticks = texts[:-1]
    assert texts[-1] == "now" and ticks, texts
    assert all(re.fullmatch(r"(2|4|6|8) s ago", t) for t in ticks), ticks
    spans = sorted((left, right) for _, left, right in one)
    assert all(a[1] <= b[0] for a, b in pairwise(spans)), one


def test_the_frame_rate_is_a_number_or_says_it_is_measuring(process_piece, page):
    """Frames handled within one millisecond (a browser catching up, here a frozen clock) read
    'Infinity fps'; a rate is shown only over half a second of frames."""
    page.add_init_script("performance.now = () => 1000;")
    piece = process_piece("run", "color_ball", "--headless", "--loop")
    page.goto(piece.url)
    _wait_frames(page, 5)
    text = page.locator("#video-stats").inner_text()
    assert "Infinity" not in text and "NaN" not in text, text
    assert text.startswith("measuring fps · "), text


def test_a_live_frame_rate_and_delay_read_as_numbers(process_piece, page):
    piece = process_piece("run", "color_ball", "--headless", "--loop")
    page.goto(piece.url)
    _wait_frames(page, 30)
    text = page.locator("#video-stats").inner_text()
    assert re.match(r"\d+ fps · \d+ ms behind · 320\u00d7240", text), text
    assert 5 <= float(text.split()[0]) <= 60


_ZONE_LABEL_SHADE = """() => {
    const c = document.getElementById('video'), g = c.getContext('2d');
    const zones = sensekitPanel.frame.meta.zones, px = Math.max(1, c.width / 320), out = {};
    g.font = `${11 * px}px sans-serif`;
    for (const [name, b] of Object.entries(zones)) {
      const w = Math.ceil(g.measureText(name).width), x = Math.round(b[0] + 3 * px), y = Math.round(b[1] + 3 * px);
      const d = g.getImageData(x, y, w, Math.round(9 * px)).data;
      let dark = 0, n = 0;
      for (let i = 0; i < d.length; i += 4, n++) if (0.3 * d[i] + 0.59 * d[i + 1] + 0.11 * d[i + 2] < 70) dark++;
      out[name] = dark / n;
    }
    return out; }"""


def test_zone_names_stand_on_a_dark_backing(process_piece, page):
    """The paddle's zone names were cyan straight on the picture: 'left' and 'right' on the
    light wall, 'wave_left' on the white shelf edge could not be read. Behind each name now
    at least a third of the pixels are dark, whatever the picture."""
    piece = process_piece("run", "motion_paddle", "--headless", "--loop")
    page.goto(piece.url)
    _wait_frames(page, 3)
    shade = page.evaluate(_ZONE_LABEL_SHADE)
    assert set(shade) == {"left", "right", "wave_left", "wave_right"}
    assert all(v >= 0.33 for v in shade.values()), shade


@pytest.mark.parametrize("app, key, text", [
    ("color_ball", "tracker.min_area_px", "1..1,073,741,824 px"),
    ("clapper", "activity.timeout_ms", "0..600,000 ms"),
    ("clapper", "clap.min_gap_ms", "0..1000 ms"),
])
def test_a_range_reads_with_thousands_grouped(process_piece, page, app, key, text):
    """A range printed as '1..1073741824 px' had to be counted digit by digit."""
    piece = process_piece("run", app, "--headless", "--loop")
    page.goto(piece.url)
    unit = page.locator(f'.setting[data-key="{key}"] .unit')
    unit.wait_for(timeout=10_000)
    assert unit.inner_text() == text
