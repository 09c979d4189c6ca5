"""``sensekit snapshot``: mirrored like the apps (one rule for what a person looks at), and no
"blur 1" panels that are the input again (1 means off)."""
from __future__ import annotations

import numpy as np

from sensekit.capture.base import VideoFrame
from sensekit.capture.replay import ReplaySource
from sensekit.cli.snapshot import BOOK_BLUR_PX, LABEL_H, make_montage
from sensekit.vision import stages

FRAME = 12


def _frames(recordings_dir) -> list[np.ndarray]:
    with ReplaySource(recordings_dir / "demo.skrec") as source:
        out = []
        for item in source:
            if isinstance(item, VideoFrame):
                out.append(item.image)
                if len(out) > FRAME:
                    return out
    raise AssertionError("the demo is shorter than expected")


def _panel(montage: np.ndarray, shape: tuple[int, ...], row: int, col: int) -> np.ndarray:
    h, w = shape[:2]
    y = row * (h + LABEL_H) + LABEL_H
    return montage[y:y + h, col * w:(col + 1) * w]


def test_the_montage_is_mirrored_like_the_apps_unless_told(recordings_dir):
    frames = _frames(recordings_dir)
    raw = frames[FRAME]
    assert not np.array_equal(raw, stages.mirror(raw))
    mirrored = make_montage(frames, frame_index=FRAME)
    as_recorded = make_montage(frames, frame_index=FRAME, settings={"vision.mirror": False})
    # the "palette off" panel is the picture every stage saw
    assert np.array_equal(_panel(mirrored, raw.shape, 1, 0), stages.mirror(raw))
    assert np.array_equal(_panel(as_recorded, raw.shape, 1, 0), raw)


def test_with_blur_off_the_blur_panels_show_a_blur_not_the_input(recordings_dir):
    frames = _frames(recordings_dir)
    m = stages.mirror(frames[FRAME])
    montage = make_montage(frames, frame_index=FRAME)                 # the table's blur: 1, off
    box = _panel(montage, m.shape, 0, 1)
    assert not np.array_equal(box, m)
    assert np.array_equal(box, stages.blur(m, size_px=BOOK_BLUR_PX))
    blurred = make_montage(frames, frame_index=FRAME, settings={"vision.blur_px": 5})
    assert np.array_equal(_panel(blurred, m.shape, 0, 1), stages.blur(m, size_px=5))


def test_the_palette_panel_is_the_stages_palette_with_its_spread(recordings_dir):
    import cv2

    frames = _frames(recordings_dir)
    m = stages.mirror(frames[FRAME])
    for spread in (False, True):
        chosen = {"vision.levels": 4, "vision.palette_spread": spread}
        montage = make_montage(frames, frame_index=FRAME, settings=chosen)
        want = cv2.LUT(stages.blur(m, size_px=1), stages.palette_lut(4, spread=spread))
        assert np.array_equal(_panel(montage, m.shape, 1, 0), want)


def test_the_colour_panel_is_what_the_stage_tracks_on_its_palette_picture():
    """hsv/exact read the picture blurred and through the palette, as ``VisionStage`` hands it to
    them: with the book's 4 levels, grey 70 and grey 100 are both 64, so an exact #464646 covers
    the whole frame (on the raw frame it was the square alone)."""
    from sensekit.cli.snapshot import _bgr, _draw_box
    from sensekit.vision.color_tracker import ColorTracker
    from sensekit.vision.pipeline import VisionStage

    frames = []
    for i in range(6):
        f = np.full((60, 80, 3), 100, np.uint8)
        f[20:36, 10 + 4 * i:26 + 4 * i] = 70
        frames.append(f)
    chosen = {"vision.levels": 4, "vision.mirror": False, "tracker.method": "exact"}
    montage = make_montage(frames, frame_index=5, settings=chosen, track="#464646")
    stage = VisionStage(tracker=ColorTracker("#464646", method="exact"), levels=4)
    for i, f in enumerate(frames):
        stage.process(VideoFrame(i, i / 30.0, f))
    assert stage.track_result is not None and stage.track_result.box == (0, 0, 80, 60)
    want = _bgr(np.where(stage.tracker.region_mask((60, 80)) > 0, 255, 0).astype(np.uint8))
    _draw_box(want, stage.track_result.box, (0, 255, 0))
    assert np.array_equal(_panel(montage, (60, 80), 1, 2), want)


def _input_caption(monkeypatch, frames, **kwargs) -> str:
    """The label ``make_montage`` gives the input panel."""
    import sensekit.cli.snapshot as snapshot

    labels: list[str] = []
    real = snapshot._label
    monkeypatch.setattr(snapshot, "_label", lambda p, t: labels.append(t) or real(p, t))
    make_montage(frames, frame_index=FRAME, **kwargs)
    return labels[0]


def test_the_input_caption_says_what_is_tracked(recordings_dir, monkeypatch):
    frames = _frames(recordings_dir)
    untracked = _input_caption(monkeypatch, frames)
    assert "nothing tracked" in untracked and "track green" not in untracked
    # the demo's ball at frame 0 (demo.truth.json: cx 160, cy 99; the montage is mirrored)
    assert "(track green, " in _input_caption(monkeypatch, frames, track="159,99")
    assert "colour not found" in _input_caption(monkeypatch, frames, track="#00ff00")
    still = [frames[0]] * (FRAME + 1)                      # one frame over and over: nothing moves
    assert _input_caption(monkeypatch, still).endswith("(nothing tracked, no motion)")


def test_the_help_gives_the_montage_s_mirror_default(capsys):
    """`snapshot --help` said "--mirror, --no-mirror ... `vision.mirror`, default false" (the
    table's) while the montage mirrors unless --no-mirror."""
    from sensekit.cli import main

    assert main(["snapshot", "--help"]) == 0
    mirror_help = " ".join(capsys.readouterr().out.split("--mirror, --no-mirror", 1)[1].split("  --blur")[0].split())
    assert "default here: true" in mirror_help and "default false" not in mirror_help, mirror_help
