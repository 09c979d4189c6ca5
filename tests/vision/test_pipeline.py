"""VisionStage laziness and sharing, the CLI options, the snapshot montage, and the demo replay."""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import cv2
import numpy as np
import pytest

from sensekit.capture.base import Item, Source, VideoFrame
from sensekit.errors import ConfigError
from sensekit.events import Dispatcher
from sensekit.runner import Runner
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage
from sensekit.vision.stages import edges as edges_stage
from sensekit.vision.targets import Target
from tests.vision.synth import ball_frames

REPO = Path(__file__).resolve().parents[2]


class ListSource(Source):
    kind = "test"

    def __init__(self, frames: list[np.ndarray], fps: float = 30.0) -> None:
        self.items = [VideoFrame(i, i / fps, f) for i, f in enumerate(frames)]
        self.has_video = True
        self.frame_size = (frames[0].shape[1], frames[0].shape[0])
        self._i = 0

    def read(self, timeout: float | None = None) -> Item | None:
        if self._i >= len(self.items):
            raise EOFError
        self._i += 1
        return self.items[self._i - 1]


def _frames(n: int = 12) -> list[np.ndarray]:
    return [f for f, _ in ball_frames(n)]


def _full_stage(**kw) -> VisionStage:
    return VisionStage(mirror=True, blur_px=5, levels=4, tracker=ColorTracker("#DC1E1E"),
                       bounds_color="#DC1E1E", motion=MotionDetector(), edges=True, **kw)


def test_only_motion_subscribed_never_pays_for_edges_palette_or_tracking():
    d = Dispatcher()
    got = []
    d.on("motion", got.append)
    stage = _full_stage()
    Runner(ListSource(_frames()), [stage], d).run()
    assert stage.runs["motion"] == 12 and stage.runs["blur"] == 12 and stage.runs["mirror"] == 12
    for skipped in ("edges", "palette", "track", "bounds"):
        assert stage.runs[skipped] == 0, skipped
    assert stage.edge_map is None and got


def test_edges_only_skips_blur_and_motion():
    d = Dispatcher()
    d.on("edges", lambda e: None)
    stage = _full_stage()
    Runner(ListSource(_frames(4)), [stage], d).run()
    assert stage.runs["edges"] == 4 and stage.runs["blur"] == 0 and stage.runs["motion"] == 0
    assert np.array_equal(stage.edge_map, edges_stage(cv2.flip(_frames(4)[-1], 1)))


def test_nobody_listening_means_the_runner_skips_the_stage():
    d = Dispatcher()
    d.on("clap", lambda e: None)
    stage = _full_stage()
    Runner(ListSource(_frames(3)), [stage], d).run()
    assert sum(stage.runs.values()) == 0


def test_always_run_keeps_a_sub_stage_for_apps_reading_state():
    d = Dispatcher()
    stage = _full_stage(always_run={"edges"})
    Runner(ListSource(_frames(3)), [stage], d).run()
    assert stage.runs["edges"] == 3 and stage.runs["motion"] == 0
    with pytest.raises(ConfigError, match="unknown sub-stage"):
        _full_stage(always_run={"edgez"})


def test_everything_subscribed_shares_one_blur_and_palette_per_frame():
    d = Dispatcher()
    names: list[str] = []
    d.on("*", lambda e: names.append(e.name))
    stage = _full_stage()
    Runner(ListSource(_frames(10)), [stage], d).run()
    assert stage.runs["blur"] == 10 and stage.runs["palette"] == 10      # once each, shared
    assert {"color_tracked", "color_bounds", "motion", "edges"} <= set(names)
    # the tracker saw the mirrored frame: its centre is mirrored
    _, (cx, _) = list(ball_frames(10))[-1]
    assert abs(stage.track_result.raw_cx - (160 - 1 - cx)) < 3


def test_a_colour_tracker_reads_the_stages_one_blur_and_one_palette():
    """The hsv/exact tracker in use (not its method setting, none here) reads the stage's blurred
    picture (``vision.blur_px``, the one blur), palette-mapped by ``vision.levels`` (the one
    palette: the tracker has none of its own); an exact colour given as it is in the scene is
    looked for as it looks after that palette: the same boxes as a tracker alone on a frame
    blurred and mapped by hand."""
    from sensekit.vision.stages import blur, palette_lut, palette_map

    shared = VisionStage(blur_px=5, tracker=ColorTracker("#dc1e1e"))
    paletted = VisionStage(blur_px=5, levels=4, tracker=ColorTracker("#dc1e1e", method="exact"))
    assert shared.tracker is not None and shared.tracker.method is None
    assert shared._tracker_reads == "q" and paletted._tracker_reads == "q"
    boxes = []
    for stage in (shared, paletted):
        d = Dispatcher()
        found: list[tuple[int, int, int, int]] = []
        d.on("color_tracked", lambda e, found=found: found.append(e.box))
        Runner(ListSource(_frames(6)), [stage], d).run()
        boxes.append(found)
    alone = [(ColorTracker("#dc1e1e"), None), (ColorTracker("#dc1e1e", method="exact", palette=palette_lut(4)), 4)]
    for (tracker, levels), got in zip(alone, boxes):
        seen = [blur(f, size_px=5) for f in _frames(6)]
        seen = [palette_map(f, levels=levels) for f in seen] if levels else seen
        want = [tracker.update(f, i / 30).box for i, f in enumerate(seen)]
        assert len(got) == 6 and got == want


def test_pick_at_uses_the_first_frame():
    frames = _frames(24)
    _, (cx, cy) = next(iter(ball_frames(24)))
    d = Dispatcher()
    tracked = []
    d.on("color_tracked", tracked.append)
    stage = VisionStage(tracker=ColorTracker(), pick_at=(cx, cy))
    Runner(ListSource(frames), [stage], d).run()
    assert len(tracked) == 24 and stage.tracker.method_in_use == "model"
    last_cx, last_cy = list(ball_frames(24))[-1][1]
    x, y, w, h = tracked[-1].box
    assert abs(x + w / 2 - last_cx) < 2 and abs(y + h / 2 - last_cy) < 2
    # the smoothed centre follows a fast (~280 px/s, curving) move within one frame's step
    step = np.hypot(*np.subtract(list(ball_frames(24))[-2][1], (last_cx, last_cy)))
    assert np.hypot(tracked[-1].cx - last_cx, tracked[-1].cy - last_cy) < step


# --- CLI options -----------------------------------------------------------------------

def _parse(argv: list[str]) -> argparse.Namespace:
    from sensekit.cli import vision_options
    from sensekit.cli.tuning import add_tuning_arguments

    p = argparse.ArgumentParser()
    vision_options.add_arguments(p)
    add_tuning_arguments(p)
    return p.parse_args(argv)


def _build(argv: list[str], source) -> list:
    """The vision stages of ``sensekit events`` for ``argv``, the chosen settings applied."""
    from sensekit.cli import events, vision_options

    args = _parse(argv)
    stages, tuning = events.build(args, source, providers=[vision_options])
    for t in tuning.tunables():
        t.apply_pending()
    return stages


def test_build_stages_from_options():
    src = ListSource(_frames(2))
    assert _build([], src) == []
    (stage,) = _build(["--track-color", "#DC1E1E", "--motion", "--zones", "door=0,0,40,40", "--edges",
                       "--mirror", "--blur", "5", "--levels", "4", "--tolerance", "20"], src)
    assert isinstance(stage, VisionStage)
    assert stage.enabled == ("track", "motion", "edges") and stage.mirror and stage.blur_px == 5
    assert stage.levels == 4 and stage.tracker.tolerance == (20.0, 80.0, 80.0)
    assert stage.motion.user_zones == {"door": (0, 0, 40, 40)}
    (click,) = _build(["--track-color", "80,60"], src)
    assert click.pending_target == Target.click(80, 60) and click.tracker.method_in_use == "model"
    (book,) = _build(["--track-color", "80,60", "--preset", "book", "--motion"], src)   # the book's methods
    assert book.tracker.method == "exact" and (book.blur_px, book.levels) == (10, 4)
    assert (book.motion.threshold, book.motion.channel, book.blur_px) == (0x33, "red", 10)


@pytest.mark.parametrize("target", [["--track-color", "80,60"], ["--track-box", "60,40,40,40"],
                                    ["--track-color", "#DC1E1E"]])
def test_a_chosen_tracker_setting_reaches_the_tracker_the_target_starts(target):
    """``tracker.*`` values come to the tracker by one route (the command applies them to the
    built stage; the builder does not pass them again): they hold before the first frame and in
    the tracker the target starts on it."""
    src = ListSource(_frames(2))
    (stage,) = _build([*target, "--set", "tracker.refind_ratio=0.4", "--set", "tracker.lost_below=0.25",
                       "--tolerance", "20"], src)
    built = stage.tracker
    stage.process(src.read())
    assert stage.pending_target is None and stage.tracker is not built      # the target started a new one
    for tracker in (built, stage.tracker):
        assert (tracker.refind_ratio, tracker.lost_below, tracker.tolerance) == (0.4, 0.25, (20.0, 80.0, 80.0))


@pytest.mark.parametrize("argv, match", [
    (["--track-color", "#12"], r"--track-color must be X,Y or #RRGGBB, got '#12'"),
    (["--track-color", "1,2", "--track-box", "0,0,9,9"], "give --track-color or --track-box, not both"),
    (["--track-color", "200,10"], r"--track-color 200,10 is outside the 160x120 frame"),
    (["--motion", "--zones", "door=150,0,20,20"], r"zone 'door' \(150, 0, 20, 20\) is outside"),
    (["--zones", "a=0,0,1,1"], "--zones needs --motion"),
    (["--track-color", "80,60", "--edges", "--zones", "a=0,0,1,1"], "--zones needs --motion"),
    (["--track-color", "#ff0000", "--track-method", "model"], "--track-method model needs a click point"),
])
def test_bad_options_name_the_value(argv, match):
    with pytest.raises(ConfigError, match=match):
        _build(argv, ListSource(_frames(1)))


@pytest.mark.parametrize("argv, message", [
    (["--blur", "0"], "`vision.blur_px` must be a whole number 1..255 px, got 0"),
    (["--edges", "--levels", "1"], "`vision.levels` must be a whole number 2..256 (or none: no palette), got 1"),
    (["--set", "motion.treshold=3"], "unknown setting `motion.treshold`; did you mean motion.threshold"),
])
def test_bound_options_are_checked_while_parsing(argv, message, capsys):
    with pytest.raises(SystemExit):
        _parse(argv)
    assert message in capsys.readouterr().err


def test_blur_below_one_is_rejected():
    with pytest.raises(ConfigError, match=r"`vision.blur_px` must be a whole number 1..255 px, got 0"):
        VisionStage(blur_px=0, edges=True)


def test_bad_frame_is_named():
    stage = VisionStage(edges=True)
    with pytest.raises(ConfigError, match="HxWx3 uint8"):
        stage.process(VideoFrame(0, 0.0, np.zeros((4, 4), np.uint8)))


# --- snapshot montage on real footage ------------------------------------------------------

def test_snapshot_montage_of_pets(shared_data, tmp_path):
    """The README's montage command (docs/vision_montage.png is made by it, not by the tests)."""
    from sensekit.cli import main
    clip = shared_data / "video" / "people" / "pets2009_vtest_part1.mp4"
    out = tmp_path / "vision_montage.png"
    rc = main(["snapshot", str(clip), "--frame", "40", "--out", str(out),
               "--motion-method", "background", "--track-color", "166,165"])
    assert rc == 0
    img = cv2.imread(str(out))
    assert img is not None and img.shape == (3 * (360 + 18), 3 * 480, 3)
    # the panels are not blank: input, edges and the motion mask have content
    assert img[18:378, :480].std() > 20
    assert np.count_nonzero(img[2 * 378 + 18:, 480:960]) > 1000


def test_snapshot_past_the_end_is_one_line_error(tmp_path, capsys):
    from sensekit.cli import main
    clip = tmp_path / "short.avi"
    w = cv2.VideoWriter(str(clip), cv2.VideoWriter_fourcc(*"MJPG"), 10, (64, 48))
    for f in range(3):
        w.write(np.full((48, 64, 3), 40 * f, np.uint8))
    w.release()
    assert main(["snapshot", str(clip), "--frame", "10", "--out", str(tmp_path / "s.png")]) == 2
    assert "--frame 10 is past the end" in capsys.readouterr().err


# --- the bundled recording ------------------------------------------------------------------

def test_replay_of_demo_recording_ball_and_hand_zones(recordings_dir):
    rec = recordings_dir / "demo.skrec"
    truth_path = recordings_dir / "demo.truth.json"
    if not (rec / "meta.json").is_file() or not truth_path.is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated yet")
    from sensekit.capture.recording import ReplaySource
    truth = json.loads(truth_path.read_text())
    b, g, r = truth["ball"]["color_bgr"]
    zones = {k: tuple(v) for k, v in truth["zones"].items() if k in ("left", "right")}
    d = Dispatcher()
    tracked: dict[float, tuple[float, float]] = {}
    motion: list = []
    d.on("color_tracked", lambda e: tracked.__setitem__(round(e.t, 4), (e.cx, e.cy)))
    d.on("motion", motion.append)
    stage = VisionStage(tracker=ColorTracker(f"#{r:02X}{g:02X}{b:02X}"),
                        motion=MotionDetector(zones_px=zones))
    Runner(ReplaySource(rec), [stage], d).run()
    frames = truth["frames"]
    within = 0
    for fr in frames:
        c = tracked.get(round(fr["t"], 4))
        if c is not None and np.hypot(c[0] - fr["ball"]["cx"], c[1] - fr["ball"]["cy"]) <= 10:
            within += 1
    assert within / len(frames) >= 0.95, f"{within}/{len(frames)} frames within 10 px"

    def active(side: str) -> list[float]:
        return [e.t for e in motion if e.zones.get(side, 0) > 0.01]

    intervals = {iv["side"]: (iv["start"], iv["end"]) for iv in truth["hand"]["intervals"]}
    for side, _other in (("left", "right"), ("right", "left")):
        start, end = intervals[side]
        ts = active(side)
        assert ts, f"no motion in {side}"
        inside = [t for t in ts if start - 0.1 <= t <= end + 0.1]
        assert len(inside) / len(ts) >= 0.95, f"{side} active outside its interval"
        assert min(ts) - start < 0.3 and end - max(ts) < 0.3, f"{side}: {min(ts)}..{max(ts)}"
    assert max(active("left")) < min(active("right"))          # left, then right


def test_track_is_one_door_applied_at_the_next_frame_on_the_mirrored_picture():
    """``track(Target)`` only stores the request; the next processed frame applies it: a new
    tracker keeping the run's tracker settings picks on that frame as the stage sees it
    (mirrored), and the click's colour stays with the target. A colour target needs no pick."""
    frames = _frames(6)
    _, (cx, cy) = next(iter(ball_frames(6)))
    stage = VisionStage(mirror=True, tracker=ColorTracker(lost_after_frames=9))
    stage.track(Target.click(160 - 1 - cx, cy, (30, 30, 220)), method="model")
    assert stage.pending_target is not None and not stage.tracker.ready      # nothing applied yet
    d = Dispatcher()
    tracked = []
    d.on("color_tracked", tracked.append)
    Runner(ListSource(frames[:3]), [stage], d).run()
    tracker = stage.tracker
    assert stage.pending_target is None and tracker.method_in_use == "model" and tracker.lost_after_frames == 9
    assert stage.target is not None and stage.target.bgr == (30, 30, 220)
    x, y, w, h = tracker.picked.box
    assert x <= 160 - 1 - cx <= x + w and y <= cy <= y + h                        # the mirrored ball
    assert tracked and tracked[0].t == 0.0                                       # picked and tracked on frame 0
    n = len(tracked)
    stage.track(Target.colour("#DC1E1E"))
    Runner(ListSource(frames[3:]), [stage], d).run()
    assert stage.tracker is not tracker
    assert stage.tracker.method_in_use == "hsv" and stage.tracker.color_in_use == 0xDC1E1E
    assert stage.tracker.lost_after_frames == 9 and len(tracked) == n + 3             # the red ball, every frame
    with pytest.raises(ConfigError, match="tracks nothing"):
        VisionStage(motion=MotionDetector()).track(Target.click(1, 1))
    with pytest.raises(ConfigError, match="method must be"):
        stage.track(Target.click(1, 1), method="magic")


def test_a_click_looks_back_on_the_frames_before_it(monkeypatch):
    """While the tracker may be picked by a click (the model method), the stage keeps the last
    6 frames as it sees them (mirrored); a click hands them to the pick (for the motion cues of
    ``segment_click``); an hsv tracker keeps none."""
    frames = _frames(10)
    stage = VisionStage(mirror=True, tracker=ColorTracker())
    seen = []
    real_pick = ColorTracker.pick

    def pick(self, frame, x, y, *, history=()):
        seen.append([h.copy() for h in history])
        real_pick(self, frame, x, y, history=history)

    d = Dispatcher()
    d.on("color_tracked", lambda e: None)
    Runner(ListSource(frames[:8]), [stage], d).run()
    assert len(stage.history) == 6
    assert np.array_equal(stage.history[-1], cv2.flip(frames[7], 1))          # mirrored, newest last
    monkeypatch.setattr(ColorTracker, "pick", pick)
    _, (cx, cy) = next(iter(ball_frames(6)))
    stage.track(Target.click(160 - 1 - cx, cy))
    Runner(ListSource(frames[8:]), [stage], d).run()
    assert len(seen) == 1 and len(seen[0]) == 6
    assert np.array_equal(seen[0][-1], cv2.flip(frames[7], 1))               # the frame before the click
    hsv = VisionStage(tracker=ColorTracker("#DC1E1E"))
    Runner(ListSource(frames[:4]), [hsv], d).run()
    assert len(hsv.history) == 0


def test_targets_from_text_are_parsed_once():
    from sensekit.vision.targets import target_from_text

    assert target_from_text("10,20") == Target.click(10, 20)
    assert target_from_text("#ff0000") == Target.colour(0xFF0000)
    assert target_from_text(None, "1,2,30,40") == Target.region((1, 2, 30, 40))
    assert target_from_text() is None
    with pytest.raises(ConfigError, match="not both"):
        target_from_text("10,20", "1,2,30,40")
    with pytest.raises(ConfigError, match=r"outside the 20x20 frame"):
        Target.click(25, 5).check_inside((20, 20))


@pytest.mark.parametrize(("option", "text", "message"), [
    ("--pick", "1.5,2", "--pick must be X,Y in whole pixels, got '1.5,2'"),
    ("--pick-color", "x", "--pick-color must be X,Y in whole pixels, got 'x'"),
    ("--pick-color", "3,-1", "--pick-color must be non-negative pixels, got '3,-1'"),
])
def test_a_pixel_is_two_whole_non_negative_numbers_named_by_its_option(option, text, message):
    from sensekit.vision.targets import parse_pixel

    assert parse_pixel(" 3, 40", option=option) == (3, 40)
    with pytest.raises(ConfigError, match=f"^{re.escape(message)}$"):
        parse_pixel(text, option=option)


def test_a_tracked_colour_covering_most_of_the_frame_is_warned_once(caplog):
    """A grey picked on a grey wall matches most of the frame: one log warning, the stage's
    ``warnings()`` (the panel's status line) until the match shrinks again."""
    import logging

    from sensekit.clock import ManualClock
    from sensekit.panel.commands import CommandQueue
    from sensekit.panel.frames import FrameHub
    from sensekit.panel.tap import PanelTap
    from sensekit.panel.telemetry import Telemetry

    wall = np.full((120, 160, 3), 128, np.uint8)
    ball = np.zeros((120, 160, 3), np.uint8)
    ball[50:70, 70:90] = 128
    stage = VisionStage(tracker=ColorTracker("#808080"))
    with caplog.at_level(logging.WARNING, logger="sensekit.vision.pipeline"):
        for k, img in enumerate([wall, wall, wall]):
            list(stage.process(VideoFrame(k, k / 30, img)))
    assert len([r for r in caplog.records if "covers 100 %" in r.getMessage()]) == 1
    assert stage.warnings() and "covers 100 % of the frame" in stage.warnings()[0]
    telemetry = Telemetry()
    clock = ManualClock()
    tap = PanelTap(FrameHub(), telemetry, CommandQueue(), lambda: [stage], clock=clock)
    clock.advance(2.0)                                     # the status is refreshed once a second
    tap.process(VideoFrame(3, 0.1, wall))
    assert "covers 100 %" in telemetry.status()["warning"]
    list(stage.process(VideoFrame(4, 4 / 30, ball)))
    assert stage.warnings() == []


def test_frames_that_arrive_mirrored_are_not_flipped_back():
    """``mirror`` asks for a mirrored picture; with ``input_mirrored`` (an app's host) it is one
    already, so the stage sees the frame as given - and flips it only when it is not."""
    frames = _frames(2)
    once = VisionStage(mirror=True, input_mirrored=True, edges=True)
    Runner(ListSource(frames), [once], Dispatcher(), lazy=False).run()
    assert np.array_equal(once.frame, frames[-1]) and once.runs["mirror"] == 0
    flips = VisionStage(mirror=True, edges=True)
    Runner(ListSource(frames), [flips], Dispatcher(), lazy=False).run()
    assert np.array_equal(flips.frame, frames[-1][:, ::-1]) and flips.runs["mirror"] == 2


@pytest.mark.parametrize("command", [["events", "demo", "--max-items", "1"], ["snapshot", "demo"]])
@pytest.mark.parametrize("value, said", [
    ("500", "--tolerance 500: `tracker.hue_tolerance` must be a number 0..180 deg, got 500.0"),
    ("10,20", "--tolerance 10,20: must be 'H' or 'H,S,V', got '10,20'"),
])
def test_a_bad_tolerance_is_named_by_the_option_typed(command, value, said, capsys, tmp_path):
    # the message named only `tracker.hue_tolerance`, or "tolerance", not the --tolerance typed
    from sensekit.cli import main

    out = ["--out", str(tmp_path / "s.png")] if command[0] == "snapshot" else []
    assert main([*command, *out, "--tolerance", value]) == 2
    assert capsys.readouterr().err == f"sensekit: error: {said}\n"


@pytest.mark.parametrize("option, value", [("track_color", "#DC1E1E"), ("track_color", "80,60"),
                                           ("track_box", "60,40,40,40")])
def test_a_target_gives_the_same_tracker_through_every_door(option, value):
    """One rule for how a target is tracked: ``sensekit events`` (``build_stages``),
    ``sensekit run`` (``start_tracking``), an app's click or drag (``TrackerPicking``) and
    ``App.pick_color`` give the tracker the same settings (``tracker.method`` included, which
    the panel shows) and the same method in use. Before, events stored ``hsv`` for a colour
    and ``model`` for a click where run stored none."""
    from types import SimpleNamespace

    from sensekit.app.base import App
    from sensekit.app.picking import TrackerPicking, start_tracking
    from sensekit.vision.targets import target_from_text

    frame = _frames(1)[0]
    target = target_from_text(**{option: value})

    def after_a_frame(stage: VisionStage) -> ColorTracker:
        list(stage.process(VideoFrame(0, 0.0, frame)))
        assert stage.pending_target is None
        return stage.tracker

    (events,) = _build(["--" + option.replace("_", "-"), value], ListSource([frame]))
    trackers = {"events": after_a_frame(events)}
    run = VisionStage(tracker=ColorTracker())
    assert start_tracking([run], **{option: value}, frame_size=(160, 120))
    trackers["run"] = after_a_frame(run)
    if target.kind != "color":
        picker = TrackerPicking()
        picker.vision = VisionStage(tracker=ColorTracker())
        picker.host = SimpleNamespace(runner=SimpleNamespace(latest_frame=frame))   # type: ignore[assignment]
        if target.kind == "click":
            assert picker.pick_color((30, 30, 220), (80, 60)) is not None
        else:
            assert picker.pick_region((60, 40, 40, 40)) is not None
        trackers["app drag or click"] = after_a_frame(picker.vision)
    if target.kind == "click":
        stage = VisionStage(tracker=ColorTracker())
        app = SimpleNamespace(color_tracker=lambda: stage.tracker,
                              host=SimpleNamespace(runner=SimpleNamespace(latest_frame=frame, stages=[stage])))
        assert App.pick_color(app, (30, 30, 220), (80, 60)) is not None   # type: ignore[arg-type]
        trackers["App.pick_color"] = after_a_frame(stage)
    seen = {door: (t.settings(), t.method_in_use) for door, t in trackers.items()}
    first = seen["run"]
    assert first[1] == ("hsv" if target.kind == "color" else "model")
    for door, got in seen.items():
        assert got == first, f"{door} differs from run: {got} != {first}"
