"""The panel in a real browser: headless Chromium (Debian's package) driven by Playwright.

Each test starts a real ``sensekit run APP --headless --loop --panel 127.0.0.1:PORT`` process
on the bundled demo recording and uses the page as a person would: watch, click, drag, type,
save. Skipped, naming what to install, without chromium or playwright (``.ci/run`` installs
both).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.browser

FRAME_TIMEOUT_MS = 20_000


def _stats(page: Any) -> dict[str, Any]:
    return page.evaluate("({...sensekitPanel.stats, levels: sensekitPanel.levels.length})")


def _wait_frames(page: Any, n: int) -> None:
    page.wait_for_function(f"() => sensekitPanel.stats.frames >= {n}", timeout=FRAME_TIMEOUT_MS)


def _canvas_signature(page: Any, canvas: str) -> list[float]:
    """Mean brightness of a 4x4 grid of cells of a canvas (changes when the picture moves)."""
    return page.evaluate("""(id) => {
        const c = document.getElementById(id), g = c.getContext('2d');
        const d = g.getImageData(0, 0, c.width, c.height).data, out = [];
        for (let gy = 0; gy < 4; gy++) for (let gx = 0; gx < 4; gx++) {
          let s = 0, n = 0;
          for (let y = Math.floor(gy * c.height / 4); y < (gy + 1) * c.height / 4; y += 2)
            for (let x = Math.floor(gx * c.width / 4); x < (gx + 1) * c.width / 4; x += 2) {
              const i = (y * c.width + x) * 4; s += d[i] + d[i + 1] + d[i + 2]; n++; }
          out.push(s / n);
        }
        return out; }""", canvas)


def _lit_pixels(page: Any, canvas: str) -> int:
    return page.evaluate("""(id) => {
        const c = document.getElementById(id), d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
        let n = 0; for (let i = 0; i < d.length; i += 4) if (d[i + 3] > 0) n++; return n; }""", canvas)


def test_a_piece_serves_a_page_with_moving_video_and_clapper_the_level_graph(process_piece, page, tmp_path):
    # the clapper listens only: the page shows no camera card for it (test_browser_layout.py),
    # so the moving picture is the paddle's (the same demo recording)
    paddle = process_piece("run", "motion_paddle", "--headless", "--loop")
    page.goto(paddle.url)
    _wait_frames(page, 5)
    first, sig1 = _stats(page)["index"], _canvas_signature(page, "video")
    _wait_frames(page, 30)
    second, sig2 = _stats(page)["index"], _canvas_signature(page, "video")
    assert second > first and sig1 != sig2                     # the picture moves
    piece = process_piece("run", "clapper", "--headless", "--loop")
    page.goto(piece.url)
    page.wait_for_function("() => sensekitPanel.levels.length > 60", timeout=FRAME_TIMEOUT_MS)
    assert _lit_pixels(page, "levels") > 500                     # the graph is drawn
    assert "clap min level" in page.inner_text("#legend")        # with the clap threshold line
    assert page.inner_text("#title") == "Clapper"
    assert page.errors == []
    page.screenshot(path=str(tmp_path / "clapper-panel.png"))


def test_clicking_the_video_picks_a_colour(process_piece, page):
    piece = process_piece("run", "color_ball", "--headless", "--loop")
    page.goto(piece.url)
    _wait_frames(page, 3)
    box = page.locator("#video").bounding_box()
    # the books on the left shelf (camera pixels ~60,70 of 320x240, mirrored picture)
    page.mouse.click(box["x"] + box["width"] * 250 / 320, box["y"] + box["height"] * 70 / 240)
    page.wait_for_function("() => document.getElementById('pick-result').textContent.includes('#')",
                           timeout=10_000)
    text = page.inner_text("#pick-result")
    assert "tracking the object" in text, text


def test_the_picture_s_hint_offers_a_colour_pick_only_where_something_tracks(process_piece, page):
    """motion_paddle tracks no colour: its page said "Click the picture to pick a colour", and a
    click answered "motion_paddle does not track a colour"."""
    hint = "() => document.getElementById('pick-result').textContent"
    piece = process_piece("run", "motion_paddle", "--headless", "--loop")
    page.goto(piece.url)
    _wait_frames(page, 3)
    assert page.evaluate(hint) == "Drag on the picture to set a zone."
    assert page.get_attribute("#video", "aria-label") == "live camera view: drag on the picture to set a zone"


def test_dragging_sets_what_to_track(process_piece, page):
    piece = process_piece("run", "color_ball", "--headless", "--loop")
    page.goto(piece.url)
    _wait_frames(page, 3)
    page.select_option("#drag-mode", "track")
    box = page.locator("#video").bounding_box()
    sx, sy = box["width"] / 320, box["height"] / 240
    page.mouse.move(box["x"] + 200 * sx, box["y"] + 55 * sy)
    page.mouse.down()
    page.mouse.move(box["x"] + 260 * sx, box["y"] + 85 * sy, steps=5)
    page.mouse.up()
    page.wait_for_function("() => document.getElementById('pick-result').textContent.includes('tracking')",
                           timeout=10_000)


def test_save_writes_the_venue_profile_keeping_comments(process_piece, page, tmp_path: Path):
    profile = tmp_path / "venue.toml"
    profile.write_text("# the gallery, north wall\n[audio]\ngain = 1.0  # measured on site\n")
    piece = process_piece("run", "clapper", "--headless", "--loop", "--profile", str(profile))
    page.goto(piece.url)
    level = page.locator('.setting[data-key="activity.silence_level"] input[type=number]')
    level.wait_for(timeout=10_000)
    level.fill("33")
    level.press("Enter")
    page.wait_for_selector('.setting[data-key="activity.silence_level"].applied', timeout=10_000)
    page.click("#save")
    page.wait_for_function("() => document.getElementById('save-result').textContent.startsWith('saved')",
                           timeout=10_000)
    assert str(profile) in page.inner_text("#save-result")
    text = profile.read_text()
    assert "# the gallery, north wall" in text and "# measured on site" in text
    from sensekit.profile import load_profile

    saved = load_profile(profile)                       # the table's own format, read back
    assert saved["activity.silence_level"] == 33 and saved["audio.gain"] == 1.0


def test_a_missing_or_wrong_token_is_refused_and_the_right_one_works(process_piece, page):
    token = "gallery-token-2026"
    piece = process_piece("run", "motion_paddle", "--headless", "--loop", env={"SENSEKIT_PANEL_TOKEN": token})
    page.goto(piece.url)
    page.wait_for_selector("#tokenbar:not([hidden])", timeout=10_000)
    assert "needs its token" in page.inner_text("#token-error")
    page.fill("#token", "not-the-token")
    page.click("#tokenbar button")
    page.wait_for_function("() => document.getElementById('token-error').textContent.includes('wrong')",
                           timeout=10_000)
    assert _stats(page)["frames"] == 0
    page.goto(piece.url + "#token=" + token)
    _wait_frames(page, 3)
    assert page.locator("#tokenbar").is_hidden()
    assert token not in page.url                                  # taken out of the address bar


def test_a_browser_that_leaves_mid_stream_does_not_disturb_the_piece(process_piece, browser):
    piece = process_piece("run", "motion_paddle", "--headless", "--loop")
    for _ in range(3):
        context = browser.new_context()
        pg = context.new_page()
        pg.goto(piece.url)
        pg.check("#overlay-toggles input[value=edges]")
        _wait_frames(pg, 5)
        context.close()                                           # gone mid-stream
    context = browser.new_context()
    pg = context.new_page()
    pg.goto(piece.url)
    _wait_frames(pg, 10)
    assert piece.alive()
    context.close()
    assert piece.stop() == 0
    out = "".join(piece.output)
    assert "Traceback" not in out and "stopped by Ctrl-C" in out


def test_the_page_fits_a_phone(process_piece, browser, tmp_path):
    piece = process_piece("run", "motion_paddle", "--headless", "--loop")
    context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                  is_mobile=True, has_touch=True)
    pg = context.new_page()
    pg.goto(piece.url)
    _wait_frames(pg, 3)
    width = pg.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert width[0] <= width[1], f"the page scrolls sideways on a phone: {width}"
    video = pg.locator("#video").bounding_box()
    assert 300 <= video["width"] <= 390                           # the picture uses the width
    pg.tap("#video")                                              # a tap is a click
    pg.wait_for_function("() => document.getElementById('pick-result').textContent.length > 0 && "
                         "!document.getElementById('pick-result').textContent.startsWith('Click')",
                         timeout=10_000)
    pg.screenshot(path=str(tmp_path / "phone.png"), full_page=True)
    context.close()


def test_the_readme_screenshot_script_runs(browser, tmp_path):
    """docs/panel_screenshot.py, which made docs/screenshots/panel.png, still works."""
    import subprocess
    import sys

    from tests.panel.conftest import REPO

    out, phone = tmp_path / "panel.png", tmp_path / "phone.png"
    proc = subprocess.run([sys.executable, str(REPO / "docs" / "panel_screenshot.py"), "--out", str(out),
                           "--phone", str(phone), "--at", "1.0"], capture_output=True, text=True, timeout=120,
                          check=False)
    assert proc.returncode == 0, proc.stderr
    for png in (out, phone):
        assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and png.stat().st_size > 20_000
    # the phone picture is the phone's first screen (390x844 at 2x), not an 18,878 px strip
    import struct

    assert struct.unpack(">II", phone.read_bytes()[16:24]) == (780, 1688)


def _api_settings(url: str) -> dict[str, Any]:
    import json
    import urllib.request

    with urllib.request.urlopen(url + "api/settings", timeout=10) as r:
        return json.loads(r.read())["values"]


def test_moving_a_control_changes_the_setting_and_a_bad_value_is_refused(process_piece, page):
    piece = process_piece("run", "clapper", "--headless", "--loop")
    page.goto(piece.url)
    gain = page.locator('.setting[data-key="audio.gain"]')
    gain.wait_for(timeout=10_000)
    assert "0..100" in gain.locator(".unit").first.inner_text()
    gain.locator("input[type=range]").focus()
    page.keyboard.press("End")                                    # slide it to the top
    page.wait_for_selector('.setting[data-key="audio.gain"].applied', timeout=10_000)
    assert _api_settings(piece.url)["audio.gain"] == 100

    level = page.locator('.setting[data-key="activity.silence_level"]')
    before = _api_settings(piece.url)["activity.silence_level"]
    level.locator("input[type=number]").fill("500")
    level.locator("input[type=number]").press("Enter")
    page.wait_for_selector('.setting[data-key="activity.silence_level"].rejected', timeout=10_000)
    assert "must be a number 0..100" in level.locator(".error").inner_text()
    assert _api_settings(piece.url)["activity.silence_level"] == before
    assert level.locator("input[type=number]").input_value() == str(before).removesuffix(".0")


def test_every_running_setting_is_a_control_with_its_unit_and_range(process_piece, page):
    piece = process_piece("run", "clapper", "--headless", "--loop")
    page.goto(piece.url)
    page.wait_for_selector('.setting[data-key="activity.silence_level"]', timeout=10_000)
    values = _api_settings(piece.url)
    shown = page.eval_on_selector_all(".setting", "els => els.map(e => e.dataset.key)")
    assert sorted(shown) == sorted(values) and len(shown) >= 10
    assert {"audio", "activity", "noise_floor", "clapper"} <= {k.split(".")[0] for k in shown}
    missing = page.evaluate("""() => {
        const bad = [];
        for (const g of sensekitPanel.table.groups) for (const s of g.settings) {
          const row = document.querySelector(`.setting[data-key="${s.key}"]`);
          const unit = row.querySelector(".unit").textContent;   // thousands grouped: 600,000
          if (s.lo !== null && s.hi !== null && !unit.replaceAll(",", "").includes(`${s.lo}..${s.hi}`)) bad.push(s.key);
          if (s.unit && !unit.includes(s.unit)) bad.push(s.key);
          if (!row.querySelector("input, select")) bad.push(s.key);
        }
        return bad; }""")
    assert missing == []


def test_a_change_made_elsewhere_shows_in_the_page(process_piece, page):
    import json
    import urllib.request

    piece = process_piece("run", "clapper", "--headless", "--loop")
    page.goto(piece.url)
    number = page.locator('.setting[data-key="activity.timeout_ms"] input[type=number]')
    number.wait_for(timeout=10_000)
    request = urllib.request.Request(piece.url + "api/set", method="POST",
                                     data=json.dumps({"values": {"activity.timeout_ms": 750}}).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as r:       # another client (OSC, a phone)
        assert r.status == 200
    page.wait_for_function("""() => document.querySelector(
        '.setting[data-key="activity.timeout_ms"] input[type=number]').value === "750" """, timeout=10_000)


def test_an_optional_setting_goes_to_none_and_back(process_piece, page):
    piece = process_piece("run", "clapper", "--headless", "--loop")
    page.goto(piece.url)
    row = page.locator('.setting[data-key="activity.off_level"]')
    none = row.locator("input[data-role=none]")
    none.wait_for(timeout=10_000)
    assert _api_settings(piece.url)["activity.off_level"] is None and none.is_checked()
    none.uncheck()                                   # an empty box: the lower bound is sent
    page.wait_for_selector('.setting[data-key="activity.off_level"].applied', timeout=10_000)
    assert _api_settings(piece.url)["activity.off_level"] == 0
    number = row.locator("input[type=number]")
    number.fill("6")
    number.press("Enter")
    _wait_value(piece.url, "activity.off_level", 6)
    assert not none.is_checked()
    none.check()
    _wait_value(piece.url, "activity.off_level", None)
    page.wait_for_function("() => !document.querySelector("
                           "'.setting[data-key=\"activity.off_level\"] input[type=number]').value",
                           timeout=10_000)


def _wait_value(url: str, key: str, value: Any) -> None:
    import time

    deadline = time.monotonic() + 10
    while _api_settings(url)[key] != value and time.monotonic() < deadline:
        time.sleep(0.05)
    assert _api_settings(url)[key] == value


def test_the_connection_badge_does_not_call_a_replay_live(process_piece, page):
    """The header's badge read 'live' beside 'replay:demo.skrec': it says the page is connected."""
    piece = process_piece("run", "clapper", "--headless", "--loop")
    page.goto(piece.url)
    page.wait_for_function("() => sensekitPanel.levels.length > 5", timeout=FRAME_TIMEOUT_MS)
    assert page.inner_text("#conn") == "connected"
    assert "replay:" in page.inner_text("header")
    assert page.errors == []


def _legend(page: Any) -> list[str]:
    return page.evaluate("[...document.querySelectorAll('#legend span')].map((s) => s.textContent)")


def test_the_level_graph_legend_lists_only_the_marks_the_run_can_make(process_piece, page):
    """sound_flier emits no clap, clap pattern or activity: its legend listed all three (every
    app's did). The clapper's lists its clap mark, and only what its stages emit."""
    flier = process_piece("run", "sound_flier", "--headless", "--loop")
    page.goto(flier.url)
    page.wait_for_function("() => sensekitPanel.levels.length > 60", timeout=FRAME_TIMEOUT_MS)
    legend = _legend(page)
    assert legend and not {"clap", "clap_pattern", "activity"} & set(legend), legend
    emits = page.evaluate("sensekitPanel.info.emits")
    assert "level" in emits and not {"clap", "clap_pattern", "activity"} & set(emits), emits
    clapper = process_piece("run", "clapper", "--headless", "--loop")
    page.goto(clapper.url)
    page.wait_for_function("() => sensekitPanel.levels.length > 60", timeout=FRAME_TIMEOUT_MS)
    emits = page.evaluate("sensekitPanel.info.emits")
    marks = {n for n in ("clap", "clap_pattern", "activity") if n in emits}
    assert "clap" in marks, emits
    assert {n for n in _legend(page) if n in ("clap", "clap_pattern", "activity")} == marks
    assert page.errors == []


def test_the_events_card_says_why_it_is_empty(process_piece, page):
    """sound_flier emits only levels (the graph draws them): its Events card was an empty box
    for ever. It says so; a run whose events arrive lists them and the line goes."""
    flier = process_piece("run", "sound_flier", "--headless", "--loop")
    page.goto(flier.url)
    page.wait_for_function("() => sensekitPanel.levels.length > 30", timeout=FRAME_TIMEOUT_MS)
    assert page.locator("#log li").count() == 0
    assert page.inner_text("#log-empty") == "this run emits no events to list: its sound level is the graph above"
    paddle = process_piece("run", "motion_paddle", "--headless", "--loop")
    page.goto(paddle.url)
    page.wait_for_function("() => document.querySelectorAll('#log li').length > 0", timeout=FRAME_TIMEOUT_MS)
    assert not page.locator("#log-empty").is_visible()
    assert page.errors == []
