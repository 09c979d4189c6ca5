"""The panel shows what the running piece uses, in controls that suit each range, and nothing
runs out of its card at a phone's width (390 px) or a desktop's (1280 px). Real pieces in
subprocesses, headless Chromium (see tests/panel/test_browser.py; skipped without it)."""
from __future__ import annotations

from typing import Any

import pytest

from tests.panel.conftest import VIEWPORTS
from tests.panel.test_browser import _api_settings, _wait_frames, _wait_value

pytestmark = pytest.mark.browser



def _visible(page: Any, selector: str) -> bool:
    return page.evaluate("(s) => { const e = document.querySelector(s); return !!e && e.offsetParent !== null; }",
                         selector)


def test_a_wide_range_from_above_zero_gets_a_log_slider(process_piece, page):
    piece = process_piece("run", "color_ball", "--headless", "--loop")
    page.goto(piece.url)
    row = page.locator('.setting[data-key="tracker.min_area_px"]')
    row.wait_for(timeout=10_000)
    slider = row.locator("input[type=range]")
    assert slider.get_attribute("data-scale") == "log"
    # the default, 20 px, sits about 14 % along (log 20 / log 2^30), not at the far left
    assert 100 <= int(slider.input_value()) <= 200
    slider.fill("500")                                       # the middle of 1..2^30 in ratios: 2^15
    slider.dispatch_event("change")
    _wait_value(piece.url, "tracker.min_area_px", 32768)
    assert row.locator("input[type=number]").input_value() == "32768"


def test_a_wide_range_from_zero_is_a_number_box_only(process_piece, page):
    piece = process_piece("run", "clapper", "--headless", "--loop")
    page.goto(piece.url)
    row = page.locator('.setting[data-key="activity.timeout_ms"]')
    row.wait_for(timeout=10_000)
    assert row.locator("input[type=range]").count() == 0
    number = row.locator("input[type=number]")
    number.fill("350")
    number.press("Enter")
    _wait_value(piece.url, "activity.timeout_ms", 350)
    # a narrow range keeps its slider
    assert page.locator('.setting[data-key="activity.silence_level"] input[type=range]').count() == 1


@pytest.mark.parametrize("app, cards, overlays, hidden", [
    ("color_ball", {"view-card"}, {"mask", "edges", "palette", "region", "box"}, {"zones"}),
    ("motion_paddle", {"view-card"}, {"mask", "edges", "palette", "zones"}, {"region", "box"}),
    ("clapper", {"audio-card"}, set(), set()),
])
def test_only_the_cards_and_overlays_the_piece_uses(process_piece, page, app, cards, overlays, hidden):
    piece = process_piece("run", app, "--headless", "--loop")
    page.goto(piece.url)
    page.wait_for_selector(".setting", timeout=10_000)
    shown = {c for c in ("view-card", "audio-card") if _visible(page, f"#{c}")}
    assert shown == cards
    if "view-card" in cards:
        _wait_frames(page, 2)
        toggles = page.evaluate("""() => [...document.querySelectorAll('#overlay-toggles input')]
            .filter((i) => i.offsetParent !== null).map((i) => i.value)""")
        assert set(toggles) == overlays
        assert not hidden & set(page.evaluate("() => [...sensekitPanel.shown]"))
        modes = page.evaluate("() => [...document.querySelectorAll('#drag-mode option')]"
                              ".filter((o) => !o.disabled).map((o) => o.value)")
        assert set(modes) == ({"zone"} if "zones" in overlays else set()) | ({"track"} if "box" in overlays else set())


_OVERFLOWS = """() => {
    const out = [];
    for (const card of document.querySelectorAll('.card')) {
      if (card.offsetParent === null) continue;
      const c = card.getBoundingClientRect();
      for (const el of card.querySelectorAll('*')) {
        if (el.offsetParent === null || el.closest('#log')) continue;
        const r = el.getBoundingClientRect();
        if (r.width === 0) continue;
        if (r.right > c.right + 0.5 || r.left < c.left - 0.5 || el.scrollWidth > el.clientWidth + 1 &&
            getComputedStyle(el).overflowX === 'visible' && el.tagName !== 'CANVAS')
          out.push(`${card.id} ${el.tagName.toLowerCase()}${el.className ? '.' + el.className : ''}` +
                   `${el.closest('.setting') ? ' [' + el.closest('.setting').dataset.key + ']' : ''}: ` +
                   `${Math.round(r.left)}..${Math.round(r.right)} in ${Math.round(c.left)}..${Math.round(c.right)}`);
      }
    }
    return out; }"""


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
@pytest.mark.parametrize("app", ["color_ball", "clapper", "motion_paddle"])
def test_labels_and_controls_fit_their_cards(process_piece, viewport_page, tmp_path, app, viewport):
    piece = process_piece("run", app, "--headless", "--loop")
    page = viewport_page
    page.goto(piece.url)
    page.wait_for_selector(".setting", timeout=10_000)
    if app != "clapper":
        _wait_frames(page, 2)
    overflowing = page.evaluate(_OVERFLOWS)
    page.screenshot(path=str(tmp_path / f"{app}-{viewport}.png"), full_page=True)
    assert overflowing == [], "\n".join(overflowing)
    assert _api_settings(piece.url)


#: for every setting row with a slider: where its range label sits (top, left) relative to the
#: slider (bottom, left), and the label's font size in px
_RANGE_LABELS = """() => [...document.querySelectorAll('.setting')].flatMap((row) => {
    const slider = row.querySelector('input[type=range]'), unit = row.querySelector('.unit');
    if (!slider || !unit || !unit.textContent) return [];
    const s = slider.getBoundingClientRect(), u = unit.getBoundingClientRect();
    return [{key: row.dataset.key, text: unit.textContent, below: u.top - s.bottom,
             dx: u.left - s.left, right: u.right, clipped: unit.scrollWidth > unit.clientWidth + 1,
             font: parseFloat(getComputedStyle(unit).fontSize)}]; })"""


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_every_range_label_sits_under_its_slider(process_piece, viewport_page, viewport):
    """At 1280 px the range label of a short range ('0..100') sat beside its slider and a long
    one ('4..10,000,000 frames') under it. Now it is under the slider, at the slider's left, on
    every row and at both widths, whole and at a readable size."""
    piece = process_piece("run", "color_ball", "--headless", "--loop")   # tracker, motion, background
    page = viewport_page
    page.goto(piece.url)
    page.wait_for_selector('.setting input[type=range]', timeout=10_000)
    labels = page.evaluate(_RANGE_LABELS)
    assert len(labels) >= 10, labels
    width = VIEWPORTS[viewport]["width"]
    for lab in labels:
        assert -1 <= lab["below"] <= 12 and abs(lab["dx"]) <= 2, lab     # under it, from its left
        assert lab["right"] <= width and not lab["clipped"] and lab["font"] >= 12, lab


_CUT_OPTIONS = """() => {
    const g = document.createElement('canvas').getContext('2d'), out = [];
    for (const sel of document.querySelectorAll('.setting select')) {
      const st = getComputedStyle(sel);
      g.font = `${st.fontWeight} ${st.fontSize} ${st.fontFamily}`;
      const room = sel.clientWidth - parseFloat(st.paddingLeft) - parseFloat(st.paddingRight) - 20;  // the arrow
      for (const o of sel.options) {
        const w = g.measureText(o.textContent).width;
        if (w > room) out.push([sel.closest('.setting').dataset.key, o.textContent, Math.round(w), Math.round(room)]);
      }
    }
    return out;
}"""


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_every_choice_reads_whole_in_its_dropdown(process_piece, viewport_page, viewport):
    """tracker.method's 'none' option read '(model for a click or box, hsv for ...' cut off at 390 and
    1280 px: each option's text fits its select, and what 'none' means is said under it."""
    piece = process_piece("run", "color_ball", "--headless", "--loop")
    viewport_page.goto(piece.url)
    row = viewport_page.locator('.setting[data-key="tracker.method"]')
    row.wait_for(timeout=10_000)
    assert viewport_page.locator(".setting select").count() >= 1
    assert viewport_page.evaluate(_CUT_OPTIONS) == []
    assert "model for a click or box, hsv for a colour" in row.inner_text()
