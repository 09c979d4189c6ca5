"""The panel's teach card on real footage (needs the hands extra and the shared clips).

v02 (../shared/data/video/hands): a hand flipping and pinching twice (frames ~95-105 and
~140-150 at 25 fps). The requests the page sends are made here on the run's thread, in frame
order, as the card would while the clip plays: record "other" for 2 s from the first frame,
"pinch" for 0.4 s at frame 95, learn. The model goes to the venue profile (beside its settings,
the same table ``sensekit teach gesture --profile`` writes) and the running hand stage names the
second pinch "pinch" from then on.
"""
from __future__ import annotations

from sensekit.installed import install_hint
from pathlib import Path

import pytest

from sensekit.capture.base import VideoFrame
from sensekit.capture.media import read_video
from sensekit.errors import ConfigError
from sensekit.events import Dispatcher
from sensekit.panel.teach import TeachControl

pytestmark = pytest.mark.hands
pytest.importorskip("mediapipe", reason=f"needs the hands extra: {install_hint('hands')}")
pytest.importorskip("sklearn", reason=f"needs the hands extra: {install_hint('hands')}")

FPS = 25.0


def _frames(shared_data: Path) -> list[VideoFrame]:
    folder = shared_data / "video" / "hands" / "videos"
    if not folder.is_dir():
        pytest.skip(f"hand footage not found at {folder}")
    frames = read_video(next(folder.glob("v02_*.mp4")))
    assert frames[1].t == 1 / FPS                    # the clip's rate, which the frame numbers below assume
    return frames


def test_record_learn_save_and_the_running_stage_names_the_taught_gesture(shared_data, tmp_path):
    from sensekit.profile import load_profile
    from sensekit.vision.hands import HandStage

    frames = _frames(shared_data)
    venue = tmp_path / "venue.toml"
    venue.write_text("# the hall\n[motion]\nnoise_sigma = 1.1\n")
    stage, dispatcher = HandStage(), Dispatcher()
    teach = TeachControl(lambda: [stage], dispatcher, venue)
    gestures: list[tuple[int, str]] = []
    dispatcher.on("gesture", lambda e: gestures.append((round(e.t * FPS), e.gesture)))
    with pytest.raises(ConfigError, match="at least two gestures"):
        teach.act("learn")
    with pytest.raises(ConfigError, match="nothing learned yet"):
        teach.save()
    assert teach.act("record", "other", 2.0)["recording"] == "other"
    for f in frames:
        if f.index == 95:
            assert teach.act("status")["recording"] is None        # 2 s of "other" are over
            teach.act("record", "pinch", 0.4)
        if f.index == 110:
            done = teach.act("learn")
            assert done["examples"]["other"] >= 40 and done["examples"]["pinch"] >= 8, done
            assert "taught 2 gestures" in done["message"]
            assert teach.save() == venue
        for event in stage.process(f):
            dispatcher.dispatch(event)
    stage.close()
    profile = load_profile(venue)
    assert profile.taught_gestures["classes"] == ["other", "pinch"] and dict(profile) == {"motion.noise_sigma": 1.1}
    assert "# the hall" in venue.read_text()
    after = [name for k, name in gestures if k >= 110]
    assert set(after) <= {"other", "pinch", "none"}, after
    second = [k for k, name in gestures if name == "pinch" and 125 <= k <= 155]
    assert second, gestures
    assert any(name == "other" and k > second[0] for k, name in gestures), gestures


def test_a_run_without_hands_has_nothing_to_teach(tmp_path):
    teach = TeachControl(lambda: [], Dispatcher(), tmp_path / "venue.toml")
    with pytest.raises(ConfigError, match="no hand stage.*--hands"):
        teach.act("status")
