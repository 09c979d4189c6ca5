"""The pose in the panel's live view: `sensekit events CLIP --pose --panel` on a real clip of two
people, in headless Chromium at a phone's width and a desktop's (needs the hands extra, the
shared clips, chromium and playwright; skipped, saying which, without any of them)."""
from __future__ import annotations

from sensekit.installed import install_hint
from pathlib import Path
from typing import Any

import pytest

from tests.panel.conftest import VIEWPORTS
from tests.panel.test_browser import FRAME_TIMEOUT_MS

pytestmark = [pytest.mark.browser, pytest.mark.hands]
pytest.importorskip("mediapipe", reason=f"needs the hands extra: {install_hint('hands')}")

#: pixels the skeletons change on the same frame, and how many of them lie near the people
#: (their landmarks' box, with room for the label above the head)
_SKELETON_PIXELS = """() => {
  const cb = document.querySelector('#overlay-toggles input[value=pose]');
  const c = document.getElementById('video'), g = c.getContext('2d');
  const m = sensekitPanel.frame.meta;
  cb.click();                                      // off: drawVideo() redraws the same frame
  const off = g.getImageData(0, 0, c.width, c.height).data;
  cb.click();                                      // on again
  const on = g.getImageData(0, 0, c.width, c.height).data;
  const boxes = m.poses.map(({points}) => {
    const seen = points.filter((p) => p[2] >= 0.5), xs = seen.map((p) => p[0]), ys = seen.map((p) => p[1]);
    const pad = 0.1 * c.width;
    return [Math.min(...xs) - pad, Math.min(...ys) - pad, Math.max(...xs) + pad, Math.max(...ys) + pad];
  });
  let changed = 0, near = 0;
  for (let i = 0; i < on.length; i += 4) {
    if (Math.abs(on[i] - off[i]) + Math.abs(on[i + 1] - off[i + 1]) + Math.abs(on[i + 2] - off[i + 2]) < 30) continue;
    changed++;
    const x = (i / 4) % c.width, y = Math.floor(i / 4 / c.width);
    if (boxes.some((b) => x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3])) near++;
  }
  return {changed, near, ids: m.poses.map((p) => p.id), checked: cb.checked};
}"""


def _clip(shared_data: Path) -> Path:
    clip = shared_data / "video" / "pose" / "ntu_two_person_hug.mp4"
    if not clip.is_file():
        pytest.skip(f"pose clip not found at {clip}")
    return clip


@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))
def test_the_live_view_draws_each_persons_skeleton_and_id(process_piece, viewport_page, shared_data, tmp_path,
                                                          viewport):
    piece = process_piece("events", f"file:{_clip(shared_data)}", "--pose", "--loop", "--realtime")
    page: Any = viewport_page
    page.goto(piece.url)
    page.wait_for_function("() => sensekitPanel.frame && (sensekitPanel.frame.meta.poses || []).length >= 2",
                           timeout=4 * FRAME_TIMEOUT_MS)
    toggle = page.locator("#overlay-toggles input[value=pose]")
    assert toggle.is_visible() and toggle.is_checked()
    assert not page.locator("#overlay-toggles input[value=blobs]").is_visible()
    drawn = page.evaluate(_SKELETON_PIXELS)
    assert drawn["checked"] and len(set(drawn["ids"])) == len(drawn["ids"]) >= 2, drawn
    assert drawn["changed"] > 500, drawn                     # lines, joints and labels are drawn
    assert drawn["near"] >= 0.95 * drawn["changed"], drawn   # on the people, not elsewhere
    card = page.locator("#view-card").bounding_box()
    canvas = page.locator("#video").bounding_box()
    assert canvas["x"] >= card["x"] and canvas["x"] + canvas["width"] <= card["x"] + card["width"] + 0.5
    page.screenshot(path=str(tmp_path / f"pose-panel-{viewport}.png"))
    assert page.errors == []
