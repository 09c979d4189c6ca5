"""The teach card in a real browser: `sensekit events replay:CLIP --hands --loop --panel` on a real
hand clip (v02, recorded once into a looping replay in the test's temporary folder: a video file
does not loop); two names recorded from the live view, learned and saved to the venue profile, at
a phone's width and a desktop's (needs the hands extra, the shared clips, chromium and playwright)."""
from __future__ import annotations

from sensekit.installed import install_hint
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.panel.conftest import VIEWPORTS
from tests.panel.test_browser import FRAME_TIMEOUT_MS

pytestmark = [pytest.mark.browser, pytest.mark.hands]
pytest.importorskip("mediapipe", reason=f"needs the hands extra: {install_hint('hands')}")
pytest.importorskip("sklearn", reason=f"needs the hands extra: {install_hint('hands')}")


def _record(page: Any, name: str, seconds: str) -> None:
    page.fill("#teach-name", name)
    page.fill("#teach-seconds", seconds)
    page.click("#teach-record")
    page.wait_for_function(f"""() => {{
        const li = document.querySelector('#teach-classes li[data-name="{name}"]');
        return li && !document.getElementById('teach-record').disabled && !/ 0 hand/.test(li.textContent); }}""",
                           timeout=3 * FRAME_TIMEOUT_MS)


@pytest.fixture(scope="module")
def v02_replay(shared_data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = shared_data / "video" / "hands" / "videos"
    if not folder.is_dir():
        pytest.skip(f"hand footage not found at {folder}")
    out = tmp_path_factory.mktemp("replay") / "v02.skrec"
    subprocess.run([sys.executable, "-m", "sensekit", "record", "--source", f"file:{next(folder.glob('v02_*.mp4'))}",
                    "--no-progress", str(out)], check=True, capture_output=True, timeout=300)
    return out


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_two_names_recorded_from_the_live_view_are_learned_into_the_venue_profile(
        process_piece, viewport_page, v02_replay, tmp_path, viewport):
    from sensekit.profile import load_profile

    piece = process_piece("events", f"replay:{v02_replay}", "--hands", "--loop", "--realtime")
    page: Any = viewport_page
    page.goto(piece.url)
    page.wait_for_selector("#teach-card:not([hidden])", timeout=FRAME_TIMEOUT_MS)
    assert page.locator("#teach-learn").is_disabled()           # nothing to learn yet
    _record(page, "palm", "1")
    _record(page, "flip", "1")
    page.click("#teach-learn")
    page.wait_for_function("""() => { const e = document.getElementById('teach-result');
        return /saved to/.test(e.textContent) || e.classList.contains('error'); }""", timeout=FRAME_TIMEOUT_MS)
    said = page.inner_text("#teach-result")
    assert "taught 2 gestures" in said and "saved to venue.toml" in said, said
    card, learn = page.locator("#teach-card").bounding_box(), page.locator("#teach-learn").bounding_box()
    assert learn["x"] + learn["width"] <= card["x"] + card["width"] + 0.5    # nothing runs out of the card
    page.screenshot(path=str(tmp_path / f"teach-panel-{viewport}.png"), full_page=True)
    assert page.errors == []
    venue = Path(tmp_path) / "venue.toml"                           # the events command's default profile
    assert load_profile(venue).taught_gestures["classes"] == ["flip", "palm"]
