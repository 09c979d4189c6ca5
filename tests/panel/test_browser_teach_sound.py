"""The sound card in a real browser: `sensekit events FILE --sounds --profile P --realtime --panel`
on theo's spoken "one" takes (../shared/data/words); a name recorded three times from the live
audio and saved to the venue profile, at a phone's width and a desktop's (needs the voice extra,
chromium and playwright; not the hands extra)."""
from __future__ import annotations

from sensekit.installed import install_hint
from typing import Any

import numpy as np
import pytest

from tests.panel.conftest import VIEWPORTS
from tests.panel.test_browser import FRAME_TIMEOUT_MS

pytestmark = [pytest.mark.browser]
pytest.importorskip("webrtcvad", reason=f"needs the voice extra: {install_hint('voice')}")


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_a_sound_made_three_times_is_saved_to_the_venue_profile(
        process_piece, viewport_page, shared_data, tmp_path, viewport):
    import soundfile as sf

    rate, gap = 8000, np.zeros(8000, np.float32)
    takes = [sf.read(str(shared_data / "words" / f"1_theo_{k}.wav"), dtype="float32")[0] for k in range(15)]
    stream = tmp_path / "ones.wav"
    sf.write(str(stream), np.concatenate([gap, *[np.concatenate([x, gap]) for x in takes]]), rate)
    venue = tmp_path / "venue.toml"
    venue.write_text("[audio]\ngain = 55.0\n")
    piece = process_piece("events", str(stream), "--sounds", "--profile", str(venue), "--realtime", "--jsonl")
    page: Any = viewport_page
    page.goto(piece.url)
    page.wait_for_selector("#sound-card:not([hidden])", timeout=FRAME_TIMEOUT_MS)
    assert page.locator("#sound-learn").is_disabled()           # nothing to save yet
    page.fill("#sound-name", "one")
    page.click("#sound-record")
    page.wait_for_function("""() => { const li = document.querySelector('#sound-names li[data-name="one"]');
        return li && / 3 caught/.test(li.textContent); }""", timeout=3 * FRAME_TIMEOUT_MS)
    page.click("#sound-learn")
    page.wait_for_function("""() => { const e = document.getElementById('sound-result');
        return /saved to/.test(e.textContent) || e.classList.contains('error'); }""", timeout=FRAME_TIMEOUT_MS)
    said = page.inner_text("#sound-result")
    assert said.startswith("taught one (") and f"saved to {venue}" in said, said
    card, learn = page.locator("#sound-card").bounding_box(), page.locator("#sound-learn").bounding_box()
    assert learn["x"] + learn["width"] <= card["x"] + card["width"] + 0.5    # nothing runs out of the card
    assert page.evaluate("""() => { const e = document.getElementById('sound-result');
        return e.scrollWidth <= e.clientWidth + 1; }"""), "the profile's path runs out of the card"
    page.locator("#sound-card").screenshot(path=str(tmp_path / f"sound-card-{viewport}.png"))
    assert page.errors == []
    assert "[sounds.one]" in venue.read_text()
