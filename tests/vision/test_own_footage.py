"""The click benchmarks on a clip folder they never saw (issue 20: "a user can run it on their own
footage"): a tiny synthetic folder made here, run through each benchmark's entry in a subprocess
as a user runs it; and a bad folder refused with one line naming the file (and row), exit 2."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from sensekit.errors import SourceError
from sensekit.evaluation.vision.clip_check import check_clip, checked_clips
from sensekit.vision import extent_model
from sensekit.evaluation.vision.held_out import unseen_by_fit
from tests.vision.synth import background

REPO = Path(__file__).resolve().parents[2]
W, H = 160, 120


def _clip(folder: Path, name: str, n: int = 30, colour: tuple[int, int, int] = (30, 30, 220),
          rows: int | None = None) -> list[tuple[int, int, int, int]]:
    """``name.mp4`` (``n`` frames, a square of ``colour`` drifting right on a textured
    background) and ``name_gt.csv`` (its first ``rows`` boxes, default ``n``); the boxes."""
    bg = background(W, H)
    boxes = [(40 + 2 * k, 45, 24, 24) for k in range(n)]
    writer = cv2.VideoWriter(str(folder / f"{name}.mp4"), cv2.VideoWriter.fourcc(*"mp4v"), 30.0, (W, H))
    for x, y, w, h in boxes:
        f = bg.copy()
        f[y:y + h, x:x + w] = colour
        writer.write(f)
    writer.release()
    (folder / f"{name}_gt.csv").write_text("frame,x,y,w,h\n" + "".join(
        f"{k},{x},{y},{w},{h}\n" for k, (x, y, w, h) in enumerate(boxes[:rows or n])))
    return boxes


@pytest.fixture(scope="module")
def own(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Two clips no weight was fitted on, named as no developer clip is."""
    folder = tmp_path_factory.mktemp("own")
    _clip(folder, "red_square")
    _clip(folder, "blue_square", colour=(200, 60, 20))
    assert not {"red_square", "blue_square"} & set(extent_model.FOLDS)
    return folder


def _bench(script: str, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"}
    return subprocess.run([sys.executable, str(REPO / "benchmarks" / script), *args], capture_output=True,
                          text=True, env=env, cwd=REPO, timeout=600)


def _rows(stdout: str, names: list[str]) -> dict[str, list[float]]:
    """Each clip's row of a table: its numbers (brackets dropped)."""
    out = {}
    for line in stdout.splitlines():
        cells = line.replace("(", " ").replace(")", " ").split()
        if cells and cells[0] in names:
            out[cells[0]] = [float(c) for c in cells[1:]]
    return out


def test_track_eval_on_a_folder_it_never_saw_gives_a_row_per_clip(own):
    """The user-facing entry, held out as the developer clips are (``--held-out``: on a clip no
    weight saw, the shipped weights; it raised KeyError before): a row per clip, 3 starts,
    every success a share, the clicks near the square, the true box's tracker holding it."""
    proc = _bench("track_eval.py", "--clips", str(own), "--frames", "10", "--no-mil", "--held-out")
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout, ["red_square", "blue_square"])
    assert set(rows) == {"red_square", "blue_square"}, proc.stdout
    for name, (starts, clicks, clicks_px, box, box_px, cam, _cam_px, _ratio, size) in rows.items():
        assert starts == 3
        assert all(0 <= v <= 1 for v in (clicks, box, cam, size)), (name, rows[name])
        assert box >= 0.9 and box_px <= 3, (name, rows[name])        # a square on texture: held
        assert clicks_px <= 12, (name, rows[name])                    # the clicks stay near the square
    assert "segment_click at 640x480" in proc.stdout and "over 30 clicks" in proc.stdout


def test_false_losses_on_a_folder_it_never_saw_gives_a_row_per_clip(own):
    """It stopped with KeyError (every clip pinned to the held-out fold of a developer clip of
    the same name); now a row per clip: 3 starts x (5 clicks + the box) = 18 runs, and a square
    that never leaves the view is never falsely lost."""
    proc = _bench("false_losses.py", "--clips", str(own))
    assert proc.returncode == 0, proc.stderr
    rows = _rows(proc.stdout, ["red_square", "blue_square", "all"])
    assert rows["red_square"][:3] == [18, rows["red_square"][1], 0] and rows["blue_square"][0] == 18
    assert rows["all"][0] == 36 and rows["all"][2] == 0


def test_a_short_clip_runs_each_start_once_and_is_left_out_of_runs_it_is_too_short_for(capsys):
    """20 frames spread 3 starts onto frames 6, 6 and 13: run twice, one start counted double
    (and its rescaled runs written to one file twice); a clip shorter than the cut at frame 30
    has no cut script (found_eval stopped with IndexError) and no cut or cover run in
    track_eval --loss (it ran them on misaligned frames)."""
    sys.path.insert(0, str(REPO / "benchmarks"))
    from _track_loss import _long_enough

    from sensekit.evaluation.vision.comeback import CUT_AT, cut_script
    from sensekit.evaluation.vision.evaluate import start_frames

    assert start_frames(20) == [6, 13] and start_frames(50) == [6, 16, 33] and start_frames(7) == [6]
    truth = np.tile([40.0, 45, 24, 24], (CUT_AT - 1, 1))
    assert cut_script("short", truth, "other", 60, (W, H)) is None
    assert cut_script("long", np.tile(truth[:1], (CUT_AT, 1)), "other", 60, (W, H)) is not None
    first = {"short": [None] * 29, "mid": [None] * 40, "long": [None] * 46}
    assert _long_enough(first, ["short", "mid", "long"]) == {"cut": ["mid", "long"], "cover": ["long"]}
    err = capsys.readouterr().err
    assert "short: 29 frames, the cut runs need 30; left out of them" in err
    assert "mid: 40 frames, the cover runs need 46; left out of them" in err


def test_one_clip_has_no_held_out_choice_rather_than_one_made_on_itself(tmp_path):
    """refine_eval chose the gain 'without the clip' on the clip itself when it was alone."""
    _clip(tmp_path, "alone")
    proc = _bench("refine_eval.py", "--clips", str(tmp_path), "--frames", "5", "--gains", "1")
    assert proc.returncode == 0, proc.stderr
    assert "held out: no choice of the gain (it needs 2 clips or more)" in proc.stdout
    assert "without the clip" not in proc.stdout and _rows(proc.stdout.replace("|", " "), ["alone"])


def test_the_shipped_weights_score_a_clip_no_fit_saw_and_the_fold_a_developer_clip():
    keep = extent_model.ACTIVE
    assert unseen_by_fit("my_own_clip") is None                  # the shipped extent, its weights
    assert unseen_by_fit(None) is None
    name = sorted(extent_model.FOLDS)[0]
    exp = unseen_by_fit(name)
    assert exp is not None and exp.weights is extent_model.FOLDS[name]
    assert extent_model.ACTIVE is keep


def _bad_gt(tmp_path: Path, row: int, text: str | None) -> Path:
    """A 12-frame clip ``bad`` whose ground truth's line ``row`` (0: the header) is ``text``, or gone."""
    _clip(tmp_path, "bad", n=12)
    gt = tmp_path / "bad_gt.csv"
    lines = gt.read_text().splitlines()
    if text is None:
        del lines[row]
    else:
        lines[row] = text
    gt.write_text("\n".join(lines) + "\n")
    return gt


def _bad(tmp_path: Path, how: str) -> tuple[Path, str]:
    """A folder with one good clip and one broken ``how``; the text the refusal must hold."""
    _clip(tmp_path, "good", n=12)
    if how == "missing csv":
        _clip(tmp_path, "lone", n=12)
        (tmp_path / "lone_gt.csv").unlink()
        return tmp_path, f"{tmp_path / 'lone.mp4'}: no ground truth lone_gt.csv"
    if how == "missing video":
        _clip(tmp_path, "lone", n=12)
        (tmp_path / "lone.mp4").unlink()
        return tmp_path, f"{tmp_path / 'lone_gt.csv'}: no video lone.mp4"
    if how == "bad row":
        gt = _bad_gt(tmp_path, 4, "3,48,abc,24,24")                   # line 5 of the file
        return tmp_path, f"{gt} line 5: '3,48,abc,24,24' is not five numbers"
    if how == "skipped frame":
        gt = _bad_gt(tmp_path, 3, None)
        return tmp_path, f"{gt} line 4: frame 3, expected 2"
    if how == "box outside":
        gt = _bad_gt(tmp_path, 7, "6,150,45,24,24")                   # x + w = 174 > 160
        return tmp_path, f"{gt} line 8 (frame 6): box x=150 y=45 w=24 h=24 lies outside the 160x120 frame"
    if how == "fewer frames":
        _clip(tmp_path, "bad", n=8)
        (tmp_path / "bad_gt.csv").write_text("frame,x,y,w,h\n" + "".join(f"{k},40,45,24,24\n" for k in range(12)))
        return tmp_path, f"{tmp_path / 'bad.mp4'}: 8 frames, fewer than the 12 rows of bad_gt.csv"
    if how == "video will not open":
        _clip(tmp_path, "bad", n=12)
        (tmp_path / "bad.mp4").write_bytes(b"not a video at all\n" * 50)
        return tmp_path, f"{tmp_path / 'bad.mp4'}: the video will not open"
    if how == "no clips":
        empty = tmp_path / "empty"
        empty.mkdir()
        return empty, f"no clips in {empty}"
    raise AssertionError(how)


BAD = ["missing csv", "missing video", "bad row", "skipped frame", "box outside", "fewer frames",
       "video will not open", "no clips"]


@pytest.mark.parametrize("how", BAD)
def test_a_bad_folder_is_refused_naming_the_file_and_row(tmp_path, how):
    folder, message = _bad(tmp_path, how)
    with pytest.raises(SourceError) as e:
        checked_clips(folder)
    assert message in str(e.value) and "\n" not in str(e.value)


def test_a_good_folder_passes_and_only_checks_the_clips_asked_for(tmp_path):
    boxes = _clip(tmp_path, "a", n=12)
    _clip(tmp_path, "b", n=8, rows=6)                                  # more frames than rows: fine
    assert checked_clips(tmp_path) == ["a", "b"]
    assert check_clip(tmp_path, "a").truth.tolist() == [list(b) for b in boxes[:12]]
    (tmp_path / "b_gt.csv").write_text("frame,x,y,w,h\n0,40,45,24,24\n1,x,45,24,24\n")
    assert checked_clips(tmp_path, "a") == ["a"]                      # --only a: b is not looked at
    (tmp_path / "b_gt.csv").write_bytes(b"\xef\xbb\xbfframe, x, y, w, h\r\n" + b"".join(
        f"{k}, 40, 45, 24, 24\r\n".encode() for k in range(6)))       # saved by a spreadsheet
    assert check_clip(tmp_path, "b").truth.tolist() == [[40, 45, 24, 24]] * 6


BENCHES = [("track_eval.py", "--no-mil", "--frames", "5"), ("false_losses.py",), ("found_eval.py",),
           ("click_steps.py", "--scales", "1"), ("extent_diagnose.py",), ("holder_eval.py",),
           ("refine_eval.py", "--frames", "5", "--gains", "1"), ("refine_looks.py",), ("click_cost.py",),
           ("loss_misses.py",), ("resize_eval.py", "--scales", "1", "--at", "20")]


@pytest.mark.parametrize("bench", BENCHES, ids=[b[0] for b in BENCHES])
@pytest.mark.parametrize("how", ["bad row", "fewer frames", "missing csv"])
def test_every_clip_benchmark_refuses_a_bad_folder_in_one_line(tmp_path, bench, how):
    folder, message = _bad(tmp_path, how)
    proc = _bench(bench[0], "--clips", str(folder), *bench[1:])
    assert proc.returncode == 2, (proc.stdout, proc.stderr)
    assert proc.stderr.strip() == message or proc.stderr.strip().startswith(message), proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


@pytest.mark.parametrize("how", BAD)
def test_track_eval_refuses_each_bad_folder_in_one_line(tmp_path, how):
    """The user-facing entry on each refusal (the others share its check: above)."""
    folder, message = _bad(tmp_path, how)
    proc = _bench("track_eval.py", "--clips", str(folder), "--no-mil", "--frames", "5")
    assert proc.returncode == 2 and proc.stdout == "", (proc.stdout, proc.stderr)
    assert proc.stderr.startswith(message) and len(proc.stderr.strip().splitlines()) == 1, proc.stderr
