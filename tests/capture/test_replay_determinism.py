"""Replays are bit-for-bit deterministic, and the bundled clip is reproducible and true.

- ``sensekit events --jsonl --records`` twice in-process and once in a subprocess:
  byte-identical output.
- A golden file (``golden/demo_records.jsonl``, the first 60 records of the bundled
  demo) shows a replay "on another day" is identical. If the bundle is ever
  regenerated on purpose, rewrite the golden with
  ``sensekit events demo --jsonl --records --max-items 60 > tests/capture/golden/demo_records.jsonl``.
- The generator writes byte-identical files twice, and its short clip starts
  exactly like the bundled one (the bundle is format version 1, the generator
  writes version 2; under ``-m slow`` the whole clip is compared).
- The bundled clip agrees with its truth file (ball colour at the truth centre,
  the hand only where and when the truth says, claps and silences in the audio).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sensekit import synth
from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.recording import ReplaySource
from sensekit.cli import main as cli_main

GOLDEN = Path(__file__).parent / "golden" / "demo_records.jsonl"


@pytest.fixture(scope="module")
def demo(recordings_dir: Path) -> Path:
    path = recordings_dir / "demo.skrec"
    if not (path / "meta.json").is_file():
        pytest.fail(f"bundled recording missing at {path}; run `python -m sensekit.synth`")
    return path


@pytest.fixture(scope="module")
def truth(recordings_dir: Path) -> dict:
    return json.loads((recordings_dir / "demo.truth.json").read_text())


def run_events(capsys: pytest.CaptureFixture, *args: str) -> str:
    capsys.readouterr()
    assert cli_main(["events", *args]) == 0
    return capsys.readouterr().out


def test_events_jsonl_is_byte_identical_across_runs(demo: Path, capsys: pytest.CaptureFixture) -> None:
    first = run_events(capsys, str(demo), "--jsonl", "--records")
    second = run_events(capsys, str(demo), "--jsonl", "--records")
    assert first == second
    lines = first.splitlines()
    names = [json.loads(line)["event"] for line in lines]
    assert names.count("frame") == 300 and names.count("audio_block") == 625

    env = dict(os.environ, PYGAME_HIDE_SUPPORT_PROMPT="1", OPENCV_FFMPEG_LOGLEVEL="-8")
    proc = subprocess.run([sys.executable, "-m", "sensekit", "events", str(demo), "--jsonl", "--records"],
                          capture_output=True, env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr.decode()
    assert proc.stdout.decode() == first


def test_replay_matches_the_golden_file(demo: Path, capsys: pytest.CaptureFixture) -> None:
    out = run_events(capsys, str(demo), "--jsonl", "--records", "--max-items", "60")
    records = [line for line in out.splitlines()
               if json.loads(line)["event"] in ("frame", "audio_block")]
    golden = GOLDEN.read_text().splitlines()
    assert len(golden) == 60
    assert records == golden


def test_synth_is_byte_identical_twice(tmp_path: Path) -> None:
    a = synth.generate(tmp_path / "a", seconds=1.0)
    b = synth.generate(tmp_path / "b", seconds=1.0)
    files = sorted(p.relative_to(a.parent) for p in a.parent.rglob("*") if p.is_file())
    names = [str(f) for f in files]
    segments = [n for n in names if n.startswith("demo.skrec/video/")]
    assert len(segments) >= 2 and segments[0].startswith("demo.skrec/video/000000-")
    assert [n for n in names if n not in segments] == [
        "demo.skrec/audio.wav", "demo.skrec/audio_crc.csv", "demo.skrec/meta.json",
        "demo.skrec/video.ffconcat", "demo.skrec/video_crc.csv", "demo.skrec/video_ts.csv",
        "demo.skrec/video_ts_crc.csv", "demo.truth.json"]
    for f in files:
        assert (a.parent / f).read_bytes() == (b.parent / f).read_bytes(), f


def test_short_synth_clip_starts_like_the_bundle(tmp_path: Path, demo: Path) -> None:
    short = synth.generate(tmp_path, seconds=1.0)
    mine = list(ReplaySource(short))
    bundled = [i for i in ReplaySource(demo) if i.t < 1.0]
    assert len(mine) == len(bundled)
    for x, y in zip(mine, bundled):
        assert type(x) is type(y) and x.t == y.t
        if isinstance(x, VideoFrame):
            assert np.array_equal(x.image, y.image)
        else:   # the short clip's last block is cut at 1.0 s
            assert np.array_equal(x.samples, y.samples[: len(x.samples)])


@pytest.mark.slow
def test_full_synth_replays_like_the_bundle(tmp_path: Path, demo: Path,
                                           capsys: pytest.CaptureFixture) -> None:
    """The synth writes format version 2; the bundle is version 1: every record is identical."""
    fresh = synth.generate(tmp_path)
    assert json.loads((fresh / "meta.json").read_text())["version"] == 2
    assert json.loads((demo / "meta.json").read_text())["version"] == 1
    assert (run_events(capsys, str(fresh), "--jsonl", "--records")
            == run_events(capsys, str(demo), "--jsonl", "--records"))


def test_bundle_is_small(recordings_dir: Path) -> None:
    size = sum(p.stat().st_size for p in recordings_dir.rglob("*") if p.is_file())
    assert size <= 6_000_000, f"recordings/ is {size / 1e6:.2f} MB"


def test_bundle_matches_its_truth(demo: Path, truth: dict) -> None:
    src = ReplaySource(demo)
    frames = {f.index: f.image for f in src if isinstance(f, VideoFrame)}
    per_frame = truth["frames"]
    assert len(frames) == len(per_frame) == truth["video"]["frames"] == 300
    ball = np.array(truth["ball"]["color_bgr"], np.int16)
    skin = np.array(truth["hand"]["color_bgr"], np.int16)
    no_hand = [f["index"] for f in per_frame if f["hand"] is None]
    ref = frames[no_hand[0]].astype(np.int16)
    y_band = truth["zones"]["left"][1]
    for f in per_frame[::5]:
        img = frames[f["index"]].astype(np.int16)
        cx, cy, r = f["ball"]["cx"], f["ball"]["cy"], f["ball"]["r"]
        patch = img[int(cy) - 3:int(cy) + 4, int(cx) - 3:int(cx) + 4]
        assert np.abs(patch - ball).max() <= 3, f"ball not at truth centre in frame {f['index']}"
        assert np.abs(img[int(cy), int(cx + r + 3)] - ball).max() > 40   # just outside: not ball
        lower = img[y_band:]
        if f["hand"] is None:
            assert np.abs(lower - ref[y_band:]).max() <= 4, f"lower band moved in frame {f['index']}"
        else:
            x, y, w, h = f["hand"]["box"]
            assert y >= y_band
            inside = np.abs(img[y:y + h, x:x + w] - skin).max(axis=2) <= 3
            assert inside.mean() > 0.4
            other = slice(160, 320) if f["hand"]["side"] == "left" else slice(0, 160)
            assert np.abs(lower[:, other] - ref[y_band:, other]).max() <= 4
            assert (x + w <= 160) == (f["hand"]["side"] == "left")

    rate = truth["audio"]["sample_rate"]
    audio = np.concatenate([b.samples for b in ReplaySource(demo) if isinstance(b, AudioBlock)])
    assert len(audio) == truth["audio"]["samples"]

    def rms(a: float, b: float) -> float:
        seg = audio[int(a * rate):int(b * rate)]
        return float(np.sqrt(np.mean(seg.astype(np.float64) ** 2)))

    for t in truth["claps"]:
        assert rms(t, t + 0.01) > 0.1 and rms(t - 0.1, t - 0.02) < 0.01
    for a, b in truth["silence"]:
        if b - a > 0.1:
            assert rms(a + 0.03, b - 0.03) < 0.002, (a, b)
    loud = np.mean([rms(a, b) for a, b in truth["loud"]])
    quiet = np.mean([rms(a, b) for a, b in truth["quiet"]])
    assert loud > 5 * quiet > 5 * 0.002
    assert truth["clap_patterns"] == [{"count": 2, "times": [12.0, 12.25]}]
