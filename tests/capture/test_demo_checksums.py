"""The bundled demo recording carries the format's checksums (issue: ``inspect demo`` warned).

They were added by ``add_checksums`` (now ``sensekit inspect REC --add-checksums``) without
rewriting the video or the samples: the demo replays, verified, to the very frames and samples it gave without them, and
its frame checksums are the ones the golden records (written before) hold.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock, VideoFrame
from sensekit.capture.checksums import AUDIO_CRC_FILE, TIMESTAMPS_CRC_FILE, VIDEO_CRC_FILE
from sensekit.capture.recording_check import check_recording
from sensekit.capture.replay import ReplaySource

GOLDEN = Path(__file__).parent / "golden" / "demo_records.jsonl"


@pytest.fixture(scope="module")
def demo(recordings_dir: Path) -> Path:
    return recordings_dir / "demo.skrec"


def strip(src: Path, dst: Path) -> Path:
    """A copy of the recording ``src`` as it was before it had checksums."""
    shutil.copytree(src, dst)
    meta = json.loads((dst / "meta.json").read_text())
    for track in ("video", "audio"):
        meta[track].pop("checksums")
    meta["video"].pop("timestamps_checksums")
    meta["audio"].pop("checksum_block")
    (dst / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    (dst / VIDEO_CRC_FILE).unlink()
    (dst / AUDIO_CRC_FILE).unlink()
    (dst / TIMESTAMPS_CRC_FILE).unlink()
    return dst


def decoded(rec: Path) -> tuple[list[np.ndarray], np.ndarray, list[float]]:
    with ReplaySource(rec) as src:
        items = list(src)
    frames = [i.image for i in items if isinstance(i, VideoFrame)]
    samples = np.concatenate([i.samples for i in items if isinstance(i, AudioBlock)])
    return frames, samples, [i.t for i in items]


def test_inspect_demo_verifies_clean(demo: Path, capsys: pytest.CaptureFixture) -> None:
    from sensekit.cli import main

    report = check_recording(demo)
    assert report.status == "intact"
    assert not any("verified" in n or "checksum" in n for n in report.notes), report.notes
    assert main(["inspect", "demo"]) == 0
    out = capsys.readouterr().out
    assert "checksum" not in out.replace(AUDIO_CRC_FILE, "").replace(VIDEO_CRC_FILE, "")
    assert "not verified" not in out and "also" not in out


def test_the_checksums_changed_no_frame_and_no_sample(demo: Path, tmp_path: Path) -> None:
    before = decoded(strip(demo, tmp_path / "before.skrec"))
    after = decoded(demo)                                   # verified against its checksums
    assert len(after[0]) == json.loads((demo / "meta.json").read_text())["frames"] == 300
    assert all(np.array_equal(a, b) for a, b in zip(before[0], after[0], strict=True))
    assert np.array_equal(before[1], after[1]) and len(after[1]) == 320000
    assert before[2] == after[2]
    golden = [json.loads(ln) for ln in GOLDEN.read_text().splitlines()]
    frame_crcs = [r["checksum"] for r in golden if r["event"] == "frame"]
    stored = (demo / VIDEO_CRC_FILE).read_text().splitlines()[1:]
    assert frame_crcs and [row.split(",")[1] for row in stored[:len(frame_crcs)]] == frame_crcs
