"""The ``record``, ``inspect`` and ``events`` commands, run in-process (and Ctrl-C in a subprocess)."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from sensekit.capture.base import VideoFrame
from sensekit.capture.recording import ReplaySource, read_meta
from sensekit.cli import events as events_cli
from sensekit.cli import main as cli_main
from tests.capture.clips import make_clip, record_until_signalled


def run(capsys: pytest.CaptureFixture, *argv: str) -> tuple[int, str, str]:
    capsys.readouterr()
    code = cli_main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


# --- record ----------------------------------------------------------------------------

def test_record_negative_seconds(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    code, _, err = run(capsys, "record", str(tmp_path / "r.skrec"), "--seconds", "-1")
    assert code == 2 and "--seconds" in err and "-1" in err
    assert not (tmp_path / "r.skrec").exists()


def test_record_a_source_and_replay_it(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    clip = make_clip(tmp_path / "clip.skrec")
    out = tmp_path / "copy.skrec"
    code, out_text, err = run(capsys, "record", str(out), "--source", f"replay:{clip}", "--seconds", "0.5",
                              "--notes", "copied")
    assert code == 0, err
    assert "saved" in out_text and "5 frames" in out_text     # the closing line on stdout, as run's
    assert "saved" not in err
    meta = read_meta(out)
    assert meta["complete"] and meta["notes"] == "copied" and meta["sources"] == ["replay:clip.skrec"]
    original = [i for i in ReplaySource(clip) if i.t < 0.5]
    copy = list(ReplaySource(out))
    assert [(type(i), i.t) for i in copy] == [(type(i), i.t) for i in original]
    code, _, err = run(capsys, "record", str(out), "--source", f"replay:{clip}")
    assert code == 2 and "already exists" in err


def test_record_missing_camera_is_one_clear_line(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    pytest.importorskip("sensekit.capture.camera")
    code, _, err = run(capsys, "record", str(tmp_path / "c.skrec"), "--camera", "9", "--seconds", "1")
    assert code == 75 and "camera" in err.lower() and "9" in err and "Traceback" not in err
    assert not (tmp_path / "c.skrec").exists()


def test_record_without_devices_says_what_to_record_instead(tmp_path: Path, capsys: pytest.CaptureFixture,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """No camera and no microphone: one line naming both, then the way out (--source); it
    ended on the microphone's message with no next step."""
    import sensekit.capture.spec as spec
    from sensekit.errors import DeviceNotFoundError

    def no_device(text: str) -> None:
        raise DeviceNotFoundError(f"No {'camera at index 0' if text.startswith('camera') else 'microphone'}; "
                                  "available: none")
    monkeypatch.setattr(spec, "open_source", no_device)
    code, _, err = run(capsys, "record", str(tmp_path / "c.skrec"), "--seconds", "1")
    assert code == 75 and err.strip() == (       # devices not there yet: a unit tries again later
        "sensekit: error: nothing to record: no camera at index 0; available: none; no microphone; available: "
        "none (to record a file or a recording instead: --source SPEC, e.g. --source demo)")
    assert not (tmp_path / "c.skrec").exists()


RECORD_UNTIL_CTRL_C = r"""
import sys
from sensekit.capture.recording import ReplaySource, record_source
summary = record_source(ReplaySource(sys.argv[1], realtime=True, loop=True), sys.argv[2], progress=True)
print("interrupted" if summary["interrupted"] else "finished", summary["frames"])
"""


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["ctrl-c", "sigterm"])
def test_ctrl_c_finishes_the_recording_cleanly(tmp_path: Path, sig: int) -> None:
    clip = make_clip(tmp_path / "clip.skrec")
    out = tmp_path / "live.skrec"
    env = dict(os.environ, PYGAME_HIDE_SUPPORT_PROMPT="1")
    code, stdout, stderr = record_until_signalled(RECORD_UNTIL_CTRL_C, clip, out, sig, frames=10, env=env)
    assert code == 0, stderr
    word, frames = stdout.split()
    assert word == "interrupted" and int(frames) >= 10
    meta = read_meta(out)
    assert meta["complete"] is True and meta["frames"] == int(frames)
    replayed = [i for i in ReplaySource(out) if isinstance(i, VideoFrame)]
    assert len(replayed) == int(frames)
    assert all(np.all(f.image == (f.index % 10) * 20) for f in replayed)   # looped clip


def test_a_source_failing_midway_leaves_an_incomplete_recording(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture) -> None:
    clip = make_clip(tmp_path / "clip.skrec", frames=30)
    second = sorted((clip / "video").glob("*-*.mkv"))[1]
    first_of_second = int(second.name.split("-")[0])
    second.write_bytes(second.read_bytes()[: second.stat().st_size // 3])
    out = tmp_path / "copy.skrec"
    code, _, err = run(capsys, "record", str(out), "--source", f"replay:{clip}", "--no-progress")
    assert code == 2 and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert "'copy.skrec' stopped early" in err and second.name in err
    assert "kept, marked incomplete" in err
    meta = read_meta(out)
    assert meta["complete"] is False
    frames = [i for i in ReplaySource(out) if isinstance(i, VideoFrame)]
    assert first_of_second <= len(frames) < 30
    assert all(np.all(f.image == f.index * 20 % 256) for f in frames)
    code, text, _ = run(capsys, "inspect", str(out))
    assert code == 1 and "INCOMPLETE" in text


def test_a_source_that_cannot_open_leaves_no_folder(tmp_path: Path,
                                                    capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "garbage.mp4").write_bytes(np.random.default_rng(1).bytes(3000))
    for spec in ("BROKEN", str(tmp_path / "garbage.mp4")):
        out = tmp_path / "never.skrec"
        code, _, err = run(capsys, "record", str(out), "--source", spec, "--no-progress")
        assert code == 2 and "Traceback" not in err and not out.exists(), err


# --- inspect ----------------------------------------------------------------------------

def test_inspect_summary(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    clip = make_clip(tmp_path / "clip.skrec")
    code, out, _ = run(capsys, "inspect", str(clip))
    assert code == 0
    for words in ("clip.skrec  (complete)", "1970-01-01 00:00:00 UTC", "duration   1.000 s",
                  "32x24 @ 10 fps, FFV1, 10 frames", "8000 Hz mono int16, gain 50, 4800 samples",
                  "audio.wav", "video/ 2 segments", "video.ffconcat", "a tiny clip"):
        assert words in out, words
    assert "problems" not in out
    meta = json.loads((clip / "meta.json").read_text())
    meta["complete"] = False
    (clip / "meta.json").write_text(json.dumps(meta))
    code, out, _ = run(capsys, "inspect", str(clip))
    assert code == 1 and "INCOMPLETE" in out and "problems" not in out


def test_inspect_not_a_recording(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "x.skrec").mkdir()
    code, _, err = run(capsys, "inspect", str(tmp_path / "x.skrec"))
    assert code == 2 and "has no meta.json" in err


# --- events -----------------------------------------------------------------------------

def test_events_readable_and_stats(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    clip = make_clip(tmp_path / "clip.skrec")
    code, out, err = run(capsys, "events", str(clip), "--stats", "--max-items", "5")
    assert code == 0
    lines = out.splitlines()
    assert len(lines) == 5
    assert lines[0].split()[:3] == ["0.000", "frame", "index=0"]
    assert "audio_block" in out and "checksum=" in out
    assert "frames 2, audio blocks 3, events 5, dropped frames 0" in err
    assert "frame" in err and "audio_block" in err


def test_events_unknown_spec(capsys: pytest.CaptureFixture) -> None:
    code, _, err = run(capsys, "events", "webcam:0")
    assert code == 2 and "'webcam:0'" in err and "camera:" in err


FAKE_PROVIDER = '''
from sensekit.events import Level
class LevelStage:
    consumes = "audio"
    emits = frozenset({"level"})
    def process(self, block):
        return [Level(t=block.t, level=float(abs(block.samples).max() * 100))]
def add_arguments(parser):
    parser.add_argument("--fake-level", action="store_true")
def option_values(args):
    return {}
def build_stages(args, source, chosen):
    return [LevelStage()] if args.fake_level else []
'''


def test_stage_providers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                         capsys: pytest.CaptureFixture) -> None:
    (tmp_path / "fake_provider_mod.py").write_text(FAKE_PROVIDER)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(events_cli, "STAGE_PROVIDERS", ["no_such_provider_mod.options", "fake_provider_mod"])
    clip = make_clip(tmp_path / "clip.skrec")
    code, out, _ = run(capsys, "events", str(clip), "--jsonl", "--fake-level")
    names = [json.loads(line)["event"] for line in out.splitlines()]
    assert code == 0 and names == ["level"] * 12
    code, out, _ = run(capsys, "events", str(clip), "--jsonl", "--fake-level", "--records")
    names = [json.loads(line)["event"] for line in out.splitlines()]
    assert names.count("level") == 12 and names.count("frame") == 10
    code, out, _ = run(capsys, "events", str(clip), "--jsonl")          # nothing enabled: records
    names = {json.loads(line)["event"] for line in out.splitlines()}
    assert names == {"frame", "audio_block"}
    # a provider whose own import is broken is not silently skipped
    (tmp_path / "broken_provider_mod.py").write_text("import no_such_dependency_xyz\n")
    monkeypatch.setattr(events_cli, "STAGE_PROVIDERS", ["broken_provider_mod"])
    with pytest.raises(ModuleNotFoundError, match="no_such_dependency_xyz"):
        cli_main(["events", str(clip)])


# --- a live recording: MJPEG camera + ALSA file microphone -------------------------------

LIVE_RECORD = r"""
import json, sys
from sensekit.capture.camera import CameraSource
from sensekit.capture.combined import CombinedSource
from sensekit.capture.microphone import MicrophoneSource
from sensekit.capture.recording import record_source
from sensekit.runner import checksum

url, out, rate = sys.argv[1], sys.argv[2], int(sys.argv[3])
src = CombinedSource(CameraSource(url),
                     MicrophoneSource(None, sample_rate=rate, block_size=512, max_queued_blocks=4096))
seen, blocks = [], []
inner_read = src.read
def read(timeout=None):
    item = inner_read(timeout)
    if item is not None and hasattr(item, "image"):
        seen.append(checksum(item.image))
    elif item is not None:
        blocks.append((item.t, (item.samples * 32768).astype(int).tolist()))
    return item
src.read = read
summary = record_source(src, out, seconds=1.5, progress=False)
print(json.dumps({"summary": summary, "frames": seen, "blocks": blocks}))
"""


# Recording from the MJPEG stream plus the ALSA file microphone is covered
# exhaustively in tests/capture/test_record_live.py.


def test_events_into_a_closed_pipe_exits_quietly(recordings_dir):
    """`sensekit events ... | head -1` must not print a BrokenPipeError traceback."""
    env = dict(__import__("os").environ, PYGAME_HIDE_SUPPORT_PROMPT="1")
    proc = subprocess.Popen(
        [sys.executable, "-m", "sensekit", "events", str(recordings_dir / "demo.skrec"), "--jsonl"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    first = proc.stdout.readline()
    proc.stdout.close()          # the reader goes away, like `head -1`
    _, err = proc.communicate(timeout=60)
    assert first.startswith(b"{")
    assert b"Traceback" not in err, err.decode()
    assert proc.returncode == 0
