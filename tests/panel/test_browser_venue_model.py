"""The panel shows ``clap.venue_model`` (50 learned numbers, ``calibrate --claps --venue-model``) as a
read-only line, not a text box a person could mangle: "learned (50 numbers)" or "none" (a read-only
input, so the row still holds its value in an input as every setting's row does). The API (what
OSC and ``--set`` reach) still takes it. Real ``sensekit run clapper`` processes, headless Chromium."""
from __future__ import annotations

import json
import urllib.request
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sensekit.audio.clap_features import FEATURES
from sensekit.audio.clap_venue import SIZE, fit
from sensekit.profile import save_profile
from tests.panel.conftest import VIEWPORTS

pytestmark = pytest.mark.browser

ROW = '.setting[data-key="clap.venue_model"]'


def model() -> tuple[float, ...]:
    rng = np.random.default_rng(7)
    x = rng.normal(0.0, 1.0, (42, len(FEATURES)))
    x[12:, :6] += 8.0
    return fit(x, np.r_[np.zeros(12, bool), np.ones(30, bool)]).numbers()


def _set(url: str, token: str | None, values: dict[str, Any]) -> int:
    req = urllib.request.Request(url + "api/set", data=json.dumps({"values": values}).encode(),
                                 headers={"Content-Type": "application/json",
                                          **({"X-Sensekit-Token": token} if token else {})})
    with urllib.request.urlopen(req, timeout=10) as r:
        status: int = r.status
        return status


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_a_learned_venue_model_is_a_read_only_line(process_piece, viewport_page, tmp_path: Path, viewport):
    page = viewport_page
    profile = tmp_path / "venue.toml"
    save_profile({"clap.venue_model": model()}, profile)
    piece = process_piece("run", "clapper", "--headless", "--loop", "--profile", str(profile))
    page.goto(piece.url)
    page.wait_for_selector(ROW, timeout=20_000)
    line = page.locator(f"{ROW} .control input.learned")
    assert line.input_value() == f"learned ({SIZE} numbers)"
    assert line.get_attribute("readonly") is not None
    assert page.locator(f"{ROW} input:not([readonly]), {ROW} select, {ROW} textarea").count() == 0
    line.click()
    page.keyboard.type("1,2,3")                                  # typed: nothing changes, nothing is sent
    page.keyboard.press("Enter")
    assert line.input_value() == f"learned ({SIZE} numbers)"
    width = page.evaluate(f"document.querySelector('{ROW}').getBoundingClientRect().right")
    assert width <= VIEWPORTS[viewport]["width"]
    token = page.evaluate("sensekitPanel.token")
    assert _set(piece.url, token, {"clap.venue_model": []}) == 200      # OSC / the API still reach it
    page.wait_for_function(f"() => document.querySelector('{ROW} .learned').value === 'none'",
                           timeout=10_000)
    assert not page.errors
