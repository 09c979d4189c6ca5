"""``benchmarks/_before_click.py`` (``track_eval.py --point-prompt-before K``, branch ``click27``):
SAM's box from the embedding of a frame k before the click, caught up; on made-up frames and a
stand-in for the model (which is not installed here), and the flag's one-line refusals."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _before_click import (
    DECODER_FRAMES,
    ENCODER_FRAMES,
    ClipFrames,
    before_hook,
    before_point_prompt_tracker,
    carried_back,
    carry_point,
    frames_back,
    frames_in,
    ring_megabytes,
    size_ok_share,
)

from sensekit.errors import ConfigError

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"


def _scene(dx: int) -> np.ndarray:
    frame = np.full((120, 160, 3), (60, 140, 60), np.uint8)
    frame[40:70, 50 + dx:90 + dx] = (30, 30, 200)                 # a red block moving right
    return frame


class _FakeSam:
    """Stands in for ``_point_prompt.MobileSam``: its best mask is a fixed box; keeps the frames it saw."""

    def __init__(self, box: tuple[int, int, int, int] | None) -> None:
        self.box, self.seen = box, []

    def masks(self, frame: np.ndarray, x: float, y: float, key: object = None) -> tuple[np.ndarray, np.ndarray]:
        self.seen.append(frame)
        out = np.zeros((3, *frame.shape[:2]), bool)
        if self.box is not None:
            bx, by, bw, bh = self.box
            out[1, by:by + bh, bx:bx + bw] = True
        return out, np.array([0.2, 0.9, 0.5])


def test_the_declared_costs_in_frames_and_the_ring_buffer():
    assert (ENCODER_FRAMES, DECODER_FRAMES) == (28, 4)          # 930 ms and 120 ms at 30 fps
    assert frames_in(0.0) == 1 and frames_in(1000.0) == 30
    assert ring_megabytes(56) == pytest.approx(57 * 640 * 480 * 3 / 1e6)      # 52.5 MB
    assert ring_megabytes(42) == pytest.approx(39.6288)
    for bad in (-1.0, float("nan"), float("inf")):
        with pytest.raises(ValueError, match="finite non-negative"):
            frames_in(bad)
    with pytest.raises(ValueError, match="at least 1"):
        ring_megabytes(0)


def test_frames_back_clamps_at_the_clips_start_and_refuses_k_below_one():
    assert frames_back(100, 42) == 58
    assert frames_back(6, 42) == 0 and frames_back(42, 42) == 0
    with pytest.raises(ConfigError, match="--point-prompt-before must be at least 1 frame, got 0"):
        frames_back(100, 0)
    with pytest.raises(ValueError, match="not negative"):
        frames_back(-1, 5)


def test_clip_frames_keeps_the_frames_before_each_start():
    frames = [_scene(k) for k in range(30)]
    ring = ClipFrames.of(iter(frames), [2, 20], 5)
    assert sorted(ring.frames) == [0, 1, 2, 15, 16, 17, 18, 19, 20]
    t, back = ring.before(frames[20].copy())
    assert t == 20 and len(back) == 5 and all(b is frames[j] for b, j in zip(back, range(15, 20)))
    t, back = ring.before(frames[2])
    assert t == 2 and len(back) == 2
    with pytest.raises(KeyError, match="none of the clip's start frames"):
        ring.before(frames[10])
    with pytest.raises(ValueError, match="ends before its start frames \\[40\\]"):
        ClipFrames.of(iter(frames), [20, 40], 5)


def test_the_before_hook_answers_as_shipped_then_as_a_tracker_from_sams_box_on_the_older_frame():
    """SAM is asked on the frame k back (not the click's); a tracker from its box there, run over
    the frames since, replaces the shipped tracker's answers ``delay`` frames after the click."""
    from sensekit.evaluation.vision.extent_experiment import make_tracker
    from sensekit.vision.color_tracker import ColorTracker as plain

    frames = [_scene(2 * k) for k in range(12)]                   # click on frame 6, k = 4: frame 2
    ring = ClipFrames.of(iter(frames), [6], 4)
    sam = _FakeSam((54, 42, 30, 20))
    hooked = make_tracker({"tracker_class": before_point_prompt_tracker(sam, ring, 2)})
    hooked.pick(frames[6], 70.0, 55.0)
    assert len(sam.seen) == 1 and sam.seen[0] is frames[2]
    shipped, from_sam = plain(), plain()
    shipped.pick(frames[6], 70.0, 55.0)
    from_sam.pick_box(frames[2], (54.0, 42.0, 30.0, 20.0))
    for k in range(3, 7):
        caught = from_sam.update(frames[k], (k - 6) / 30.0)          # the click's frame at 0
    assert ring.boxes == {6: [tuple(float(v) for v in caught.box)]}
    for k in range(7, 11):
        got = hooked.update(frames[k], (k - 6) / 30.0)
        want_shipped, want_sam = shipped.update(frames[k], (k - 6) / 30.0), from_sam.update(frames[k], (k - 6) / 30.0)
        assert got == (want_shipped if k < 8 else want_sam), k
    assert want_shipped.box != want_sam.box                    # the two answers differ on this scene


def test_an_empty_mask_leaves_the_shipped_tracker_and_its_box():
    from sensekit.evaluation.vision.extent_experiment import make_tracker
    from sensekit.vision.color_tracker import ColorTracker as plain

    frames = [_scene(2 * k) for k in range(10)]
    ring = ClipFrames.of(iter(frames), [6], 3)
    hooked = make_tracker({"tracker_class": before_point_prompt_tracker(_FakeSam(None), ring)})
    shipped = plain()
    hooked.pick(frames[6], 70.0, 55.0)
    shipped.pick(frames[6], 70.0, 55.0)
    assert ring.boxes == {6: [tuple(float(v) for v in shipped.picked.box)]}
    assert all(hooked.update(f) == shipped.update(f) for f in frames[7:])
    with pytest.raises(ConfigError, match="at least 1 frame"):
        before_point_prompt_tracker(_FakeSam(None), ring, 0)
    with pytest.raises(ConfigError, match="at least 1 frame"):
        before_hook(_FakeSam(None), 0)


def test_size_ok_share_against_the_truth_on_the_click_frame():
    truth = np.array([[0, 0, 10, 10]] * 5 + [[0, 0, 40, 20]], float)
    boxes: dict[int, list[Any]] = {5: [(1.0, 1.0, 40.0, 20.0), (0.0, 0.0, 51.0, 20.0), None],
                                   0: [(0.0, 0.0, 12.0, 8.0)]}
    assert size_ok_share(boxes, truth) == (2, 4)


def _clip(folder: Path, step: int) -> Path:
    """A 10-frame clip ``a`` whose 40 x 30 box moves ``step`` px a frame to the right."""
    import cv2

    folder.mkdir()
    writer = cv2.VideoWriter(str(folder / "a.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (320, 120))
    for k in range(10):
        frame = np.full((120, 320, 3), (60, 140, 60), np.uint8)
        frame[40:70, 50 + k * step:90 + k * step] = (30, 30, 200)
        writer.write(frame)
    writer.release()
    (folder / "a_gt.csv").write_text("frame,x,y,w,h\n" + "".join(f"{k},{50 + k * step},40,40,30\n" for k in range(10)))
    return folder


def test_on_object_table_counts_clicks_inside_the_box_k_back(tmp_path):
    from _before_click import on_object_table

    lines = on_object_table(_clip(tmp_path / "c", 20), [1, 4]).splitlines()
    assert lines[1].split() == ["1", "1/5", "1/5", "1/5"]      # 20 px back: only the left click is on it
    assert lines[2].split() == ["4", "0/5", "0/5", "0/5"]


def test_track_eval_refuses_the_flag_in_one_line(tmp_path):
    from _track_first_box import _use_salient

    with pytest.raises(ConfigError, match="--point-prompt-before needs --point-prompt"):
        _use_salient(None, 160, before=42)
    with pytest.raises(ConfigError, match="two designs"):
        _use_salient(None, 160, sam_root=tmp_path, late=28, before=42)
    with pytest.raises(ConfigError, match="at least 1 frame, got 0"):
        _use_salient(None, 160, sam_root=tmp_path / "absent", before=0)    # before the model is loaded
    clips = _clip(tmp_path / "clips", 1)
    proc = subprocess.run([sys.executable, str(BENCH / "track_eval.py"), "--point-prompt", str(tmp_path),
                           "--point-prompt-before", "42", "--scales", "0.5,1", "--clips", str(clips)],
                          capture_output=True, text=True, timeout=120)
    assert (proc.returncode, proc.stdout) == (2, "")
    assert proc.stderr == ("--point-prompt-before runs at --scales 1 only (a rescaled run keeps 6 frames before "
                           "its click)\n")


def test_track_eval_hands_the_before_hook_the_model_and_k(monkeypatch, tmp_path):
    import _before_click
    import _encoder_variants
    from _track_first_box import _use_salient

    class FakeSam:
        def __init__(self, root: Path, side: int, variant: str, work: Path) -> None:
            self.variant = variant

    monkeypatch.setattr(_encoder_variants, "VariantSam", FakeSam)
    monkeypatch.setattr(_before_click, "before_hook", lambda sam, k, carry=False: (sam.variant, k, carry))
    _, settings = _use_salient(None, 160, sam_root=tmp_path, before=42, encoder="ort-int8")
    assert settings == {"before_hook": ("ort-int8", 42, False)}
    _, settings = _use_salient(None, 160, sam_root=tmp_path, before=56, encoder="ort-int8", carry_back=True)
    assert settings == {"before_hook": ("ort-int8", 56, True)}


def test_full_k_success_keeps_the_starts_with_k_frames_before_them():
    from _before_click import full_k_success

    runs = {"1": {"a": [[6, {"click centre": 0.9, "click left": 0.7, "sensekit (true box)": 0.1,
                             "size ok:click centre": 1.0}],
                        [60, {"click centre": 0.2, "click left": 0.4, "sensekit (true box)": 1.0}],
                        [120, {"click centre": 0.0, "click left": 0.6}]],
                  "b": [[6, {"click centre": 1.0}]]}}
    assert full_k_success(runs, 42) == {"a": (pytest.approx(0.3), 2)}
    assert full_k_success(runs, 6)["b"] == (1.0, 1)


def test_points_on_object_counts_the_clicks_inside_the_older_box():
    from _before_click import points_on_object

    pts = [(50.0, 40.0), (45.0, 40.0), (55.0, 40.0), (50.0, 35.0), (50.0, 45.0)]
    assert points_on_object(pts, (40.0, 30.0, 20.0, 20.0)) == 5
    assert points_on_object(pts, (48.0, 30.0, 20.0, 20.0)) == 4            # moved right: the left click is off
    assert points_on_object(pts, (200.0, 30.0, 20.0, 20.0)) == 0


def test_the_caught_up_tracker_runs_on_the_live_clock(monkeypatch):
    """The frames since t - k at 1/30 s apart with the click's frame at 0, then the caller's times:
    a tracker's default clock would count the caught-up frames again after the click."""
    from sensekit.evaluation.vision.extent_experiment import ExperimentTracker, make_tracker

    frames = [_scene(2 * k) for k in range(10)]
    ring = ClipFrames.of(iter(frames), [6], 4)
    hooked_class = before_point_prompt_tracker(_FakeSam((54, 42, 30, 20)), ring, 2)
    times: dict[int, list[float | None]] = {}
    update = ExperimentTracker.update

    def recording(self: Any, frame: np.ndarray, t: float | None = None) -> Any:
        times.setdefault(id(self), []).append(t)
        return update(self, frame, t)

    monkeypatch.setattr(ExperimentTracker, "update", recording)
    hooked = make_tracker({"tracker_class": hooked_class})
    hooked.pick(frames[6], 70.0, 55.0)
    for k in (7, 8):
        hooked.update(frames[k], (k - 6) / 30.0)
    shadow = times[id(hooked._shadow)]
    assert shadow == pytest.approx([-3 / 30, -2 / 30, -1 / 30, 0.0, 1 / 30, 2 / 30])
    assert times[id(hooked)] == pytest.approx([1 / 30, 2 / 30])


# --carry-back (branch click28): the click point carried back to frame t - k before SAM is prompted


def _fast(dx: int) -> np.ndarray:
    """A 320 x 120 frame whose 40 x 30 red block starts at x = 50 + dx (moved 8 px a frame below)."""
    frame = np.full((120, 320, 3), (60, 140, 60), np.uint8)
    frame[40:70, 50 + dx:90 + dx] = (30, 30, 200)
    return frame


class _PointSam(_FakeSam):
    """``_FakeSam`` that also keeps the points it was prompted at."""

    def __init__(self, box: tuple[int, int, int, int] | None) -> None:
        super().__init__(box)
        self.points: list[tuple[float, float]] = []

    def masks(self, frame: np.ndarray, x: float, y: float, key: object = None) -> tuple[np.ndarray, np.ndarray]:
        self.points.append((x, y))
        return super().masks(frame, x, y, key)


def test_carry_point_moves_the_click_by_the_box_centres_displacement_inside_the_frame():
    assert carry_point(70.0, 55.0, (50.0, 40.0, 40.0, 30.0), (30.0, 44.0, 40.0, 30.0), (320, 120)) == (50.0, 59.0)
    assert carry_point(70.0, 55.0, (50.0, 40.0, 40.0, 30.0), (50.0, 40.0, 60.0, 30.0), (320, 120)) == (80.0, 55.0)
    assert carry_point(10.0, 110.0, (50.0, 40.0, 40.0, 30.0), (0.0, 80.0, 40.0, 30.0), (320, 120)) == (0.0, 119.0)


def test_carried_back_follows_the_block_backwards_onto_it_on_the_older_frame():
    """The block moves 8 px a frame: the raw click (frame 8) is off the block 6 frames back; carried by
    the tracker run over frames 7 .. 2 it lands on it, where a tracker run the same way puts it."""
    from sensekit.vision.color_tracker import ColorTracker as plain

    frames = [_fast(8 * k) for k in range(10)]
    box = (114.0, 40.0, 40.0, 30.0)
    x, y = carried_back(plain(), frames[8], box, frames[2:8], 134.0, 55.0)
    twin = plain()
    twin.pick_box(frames[8], box)
    for m, j in enumerate(range(7, 1, -1), 1):
        last = twin.update(frames[j], m / 30.0)
    assert last.found
    want = carry_point(134.0, 55.0, box, tuple(float(v) for v in last.box), (320, 120))   # type: ignore[arg-type]
    assert (x, y) == want
    assert 66 <= x < 106 and 40 <= y < 70                      # on the block of frame 2 (x 66 .. 105)
    assert not 66 <= 134.0 < 106                               # the raw point is not


class _Lost:
    """A tracker that finds its box on the first ``found`` frames back, 10 px further left each, then
    reports lost (with a box far away, which must not be used)."""

    def __init__(self, found: int) -> None:
        self.found, self.n, self.box = found, 0, (0.0, 0.0, 0.0, 0.0)

    def pick_box(self, frame: np.ndarray, box: tuple[float, float, float, float]) -> None:
        self.box = box

    def update(self, frame: np.ndarray, t: float | None = None) -> Any:
        from types import SimpleNamespace

        self.n += 1
        if self.n > self.found:
            return SimpleNamespace(found=False, box=(300, 100, 10, 10))
        x, y, w, h = self.box
        return SimpleNamespace(found=True, box=(int(x - 10 * self.n), int(y), int(w), int(h)))


def test_carried_back_keeps_the_last_found_box_when_the_tracker_is_lost():
    frames = [_fast(0)] * 6
    box = (114.0, 40.0, 40.0, 30.0)
    assert carried_back(_Lost(2), frames[5], box, frames[:5], 134.0, 55.0) == (114.0, 55.0)
    assert carried_back(_Lost(0), frames[5], box, frames[:5], 134.0, 55.0) == (134.0, 55.0)   # lost on t - 1
    assert carried_back(_Lost(9), frames[5], box, frames[:5], 134.0, 55.0) == (84.0, 55.0)    # found on all 5


def test_the_carry_back_hook_prompts_sam_at_the_carried_point_on_the_older_frame():
    """With ``carry``: SAM is asked on frame t - k at the point ``carried_back`` gives (the shipped
    click's box tracked backwards); without, at the raw click; the points and costs are kept."""
    from sensekit.evaluation.vision.extent_experiment import make_tracker
    from sensekit.vision.color_tracker import ColorTracker as plain

    frames = [_fast(8 * k) for k in range(12)]
    for carry in (False, True):
        ring = ClipFrames.of(iter(frames), [8], 6)
        sam = _PointSam((66, 40, 40, 30))
        hooked = make_tracker({"tracker_class": before_point_prompt_tracker(sam, ring, 2, carry=carry)})
        hooked.pick(frames[8], 134.0, 55.0)
        assert len(sam.seen) == 1 and sam.seen[0] is frames[2]
        shipped = plain()
        shipped.pick(frames[8], 134.0, 55.0)
        box = tuple(float(v) for v in shipped.picked.box)
        if not carry:
            assert sam.points == [(134.0, 55.0)] and ring.points == {} and ring.cpu_ms == []
            continue
        want = carried_back(plain(), frames[8], box, frames[2:8], 134.0, 55.0)   # type: ignore[arg-type]
        assert sam.points == [want] and want != (134.0, 55.0)
        assert ring.points == {8: [((134.0, 55.0), want)]}
        assert len(ring.cpu_ms) == 1 and all(v >= 0 for v in ring.cpu_ms[0])
        assert ring.boxes[8][0] is not None


def test_carry_back_is_refused_without_point_prompt_before():
    from _track_first_box import _use_salient

    with pytest.raises(ConfigError, match="--carry-back needs --point-prompt-before K"):
        _use_salient(None, 160, sam_root=None, carry_back=True)


# --carry-box (branch click29): SAM also given the backward tracker's box on frame t - k


class _BoxSam(_PointSam):
    """``_PointSam`` that also keeps the box prompts it was given (None for none)."""

    def __init__(self, box: tuple[int, int, int, int] | None) -> None:
        super().__init__(box)
        self.prompts: list[tuple[float, float, float, float] | None] = []

    def masks(self, frame: np.ndarray, x: float, y: float, key: object = None,
              box: tuple[float, float, float, float] | None = None) -> tuple[np.ndarray, np.ndarray]:
        self.prompts.append(box)
        return super().masks(frame, x, y, key)


def test_backward_box_is_the_last_found_box_and_the_clicks_box_for_a_loss_on_t_minus_1():
    from _before_click import backward_box

    frames = [_fast(0)] * 6
    box = (114.0, 40.0, 40.0, 30.0)
    assert backward_box(_Lost(2), frames[5], box, frames[:5]) == (94.0, 40.0, 40.0, 30.0)
    assert backward_box(_Lost(0), frames[5], box, frames[:5]) == box
    assert backward_box(_Lost(9), frames[5], box, frames[:5]) == (64.0, 40.0, 40.0, 30.0)


def test_clamp_box_cuts_the_box_to_the_frame():
    from _before_click import clamp_box

    assert clamp_box((10.0, 20.0, 30.0, 40.0), (320, 120)) == (10.0, 20.0, 30.0, 40.0)
    assert clamp_box((-10.0, 100.0, 30.0, 40.0), (320, 120)) == (0.0, 100.0, 20.0, 20.0)
    assert clamp_box((330.0, 130.0, 5.0, 5.0), (320, 120)) == (319.0, 119.0, 1.0, 1.0)


def test_the_carry_box_hook_prompts_sam_with_the_backward_box_and_the_carried_point():
    """With ``carry_box``: SAM is asked on frame t - k at the carried point and with the box of the
    shipped click's box tracked backwards (on the block of frame t - k); with ``carry`` alone, no box."""
    from _before_click import backward_box, boxes_on_object

    from sensekit.evaluation.vision.extent_experiment import make_tracker
    from sensekit.vision.color_tracker import ColorTracker as plain

    frames = [_fast(8 * k) for k in range(12)]
    for carry_box in (False, True):
        ring = ClipFrames.of(iter(frames), [8], 6)
        sam = _BoxSam((66, 40, 40, 30))
        hooked = make_tracker({"tracker_class": before_point_prompt_tracker(sam, ring, 2, carry=True,
                                                                            carry_box=carry_box)})
        hooked.pick(frames[8], 134.0, 55.0)
        shipped = plain()
        shipped.pick(frames[8], 134.0, 55.0)
        box = tuple(float(v) for v in shipped.picked.box)
        want_point = carried_back(plain(), frames[8], box, frames[2:8], 134.0, 55.0)  # type: ignore[arg-type]
        assert sam.points == [want_point] and sam.seen[0] is frames[2]
        if not carry_box:
            assert sam.prompts == [None] and ring.back_boxes == {}
            continue
        want_box = backward_box(plain(), frames[8], box, frames[2:8])  # type: ignore[arg-type]
        assert sam.prompts == [want_box] and ring.back_boxes == {8: [want_box]}
        assert boxes_on_object([want_box], (66.0, 40.0, 40.0, 30.0)) == (1, 1)    # the block of frame 2
        assert boxes_on_object([box], (66.0, 40.0, 40.0, 30.0))[0] == 0         # the click's box is not on it


def test_carry_box_is_refused_without_carry_back():
    from _before_click import BeforeHook
    from track_eval import _with_carry_box

    with pytest.raises(ConfigError, match="--carry-box needs --carry-back"):
        before_hook(object(), 42, carry=False, carry_box=True)
    with pytest.raises(ConfigError, match="--carry-box needs --carry-back"):
        before_point_prompt_tracker(object(), ClipFrames(5, {}, {}), carry_box=True)
    with pytest.raises(ConfigError, match="--carry-box needs --carry-back"):
        _with_carry_box(BeforeHook(object(), 42), True)
    with pytest.raises(ConfigError, match="--carry-box needs --carry-back"):
        _with_carry_box(None, True)
    hook = before_hook("sam", 42, carry=True)
    assert _with_carry_box(hook, False) is hook
    assert _with_carry_box(hook, True) == BeforeHook("sam", 42, True, True)


def test_boxes_on_object_counts_overlap_and_size():
    from _before_click import boxes_on_object

    truth = (40.0, 30.0, 20.0, 20.0)
    assert boxes_on_object([(40.0, 30.0, 20.0, 20.0), (45.0, 30.0, 20.0, 20.0), (40.0, 30.0, 60.0, 60.0),
                            (200.0, 30.0, 20.0, 20.0)], truth) == (2, 3)
