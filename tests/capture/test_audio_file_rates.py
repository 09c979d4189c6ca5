"""``sensekit events FILE`` on audio files whose rate, channels, sample format or header are not
what the stages were tuned on: the same claps at the same times, or one line naming the problem.

A real clip (three claps) is written at 8 / 11.025 / 22.05 / 48 kHz, as 6 channels, as float64,
as 24-bit and as FLAC; 96 and 192 kHz are refused by the clap detector in one line (8-48 kHz).
WAV headers that lie about the length: a data size of 0 (what a recorder killed before it
finished the header leaves: Python's ``wave``, ``sox``), 0xFFFFFFFF (the streaming convention) and
ten times the real size must all play the samples the file holds.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import soundfile as sf

from sensekit.cli import main

CLIP = "audio/clap_k_triple.wav"        # 44.1 kHz, 2.6 s, claps at 1.261, 1.678, 2.101 s


@pytest.fixture(scope="module")
def clip(shared_data: Path) -> tuple[np.ndarray, int]:
    x, rate = sf.read(str(shared_data / CLIP), dtype="float64", always_2d=False)
    return (x if x.ndim == 1 else x.mean(axis=1)), int(rate)


def claps(capsys: pytest.CaptureFixture, path: Path) -> list[float]:
    capsys.readouterr()
    assert main(["events", str(path), "--clap", "--jsonl"]) == 0
    lines = capsys.readouterr().out.splitlines()
    return [d["t"] for d in map(json.loads, lines) if d["event"] == "clap"]


@pytest.fixture(scope="module")
def reference(clip, tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ref") / "ref.wav"
    sf.write(str(path), clip[0], clip[1], subtype="PCM_16")
    return path


def _resampled(clip: tuple[np.ndarray, int], rate: int) -> np.ndarray:
    from scipy.signal import resample_poly

    x, r0 = clip
    g = np.gcd(rate, r0)
    return np.asarray(resample_poly(x, rate // g, r0 // g))


@pytest.mark.parametrize("variant", ["8000", "11025", "22050", "48000", "6ch", "float64", "pcm24", "flac"])
def test_any_rate_or_layout_gives_the_claps_at_their_times(clip, reference, tmp_path, capsys, variant):
    x, rate = clip
    want = claps(capsys, reference)
    assert len(want) == 3
    path = tmp_path / ("clip.flac" if variant == "flac" else "clip.wav")
    if variant.isdigit():
        sf.write(str(path), _resampled(clip, int(variant)), int(variant), subtype="PCM_16")
    elif variant == "6ch":
        sf.write(str(path), np.repeat(x[:, None], 6, axis=1), rate, subtype="PCM_16")
    else:
        sf.write(str(path), x, rate, subtype={"float64": "DOUBLE", "pcm24": "PCM_24", "flac": "PCM_16"}[variant])
    assert np.allclose(claps(capsys, path), want, atol=0.003)


@pytest.mark.parametrize("rate", [96000, 192000])
def test_a_rate_the_clap_detector_cannot_take_is_one_line(clip, tmp_path, capsys, rate):
    path = tmp_path / "hi.wav"
    sf.write(str(path), _resampled(clip, rate), rate, subtype="PCM_16")
    capsys.readouterr()
    assert main(["events", str(path), "--clap", "--jsonl"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"sensekit: error: sample rate {rate} Hz is not supported by the clap detector; "
                   "it handles 8000..48000 Hz"]


def _with_data_size(src: Path, dst: Path, size: int) -> None:
    data = bytearray(src.read_bytes())
    at = data.find(b"data")
    data[at + 4:at + 8] = size.to_bytes(4, "little")
    dst.write_bytes(bytes(data))


@pytest.mark.parametrize("size", ["zero", "streaming", "ten_times"])
def test_a_wav_header_lying_about_its_length_plays_what_the_file_holds(reference, tmp_path, capsys, caplog, size):
    ref = reference
    data = ref.read_bytes()
    real = len(data) - (data.find(b"data") + 8)
    path = tmp_path / "lies.wav"
    _with_data_size(ref, path, {"zero": 0, "streaming": 0xFFFFFFFF, "ten_times": 10 * real}[size])
    assert claps(capsys, path) == claps(capsys, ref)
    if size == "zero":
        assert any("the WAV header gives no length" in r.getMessage() for r in caplog.records)


@pytest.mark.parametrize("subtype", ["PCM_16", "PCM_32", "PCM_U8", "FLOAT", "DOUBLE"])
def test_an_unfinished_wav_gives_the_samples_soundfile_gives_for_the_finished_one(clip, tmp_path, subtype):
    from sensekit.capture.base import AudioBlock
    from sensekit.capture.media import MediaFileSource

    x, rate = clip
    stereo = np.stack([x, -0.5 * x], axis=1)[: rate]              # 1 s, two channels
    done = tmp_path / "done.wav"
    sf.write(str(done), stereo, rate, subtype=subtype)
    cut = tmp_path / "cut.wav"
    _with_data_size(done, cut, 0)
    blocks = []
    for path in (done, cut):
        with MediaFileSource(path) as src:
            blocks.append([b.samples for b in src if isinstance(b, AudioBlock)])
    assert len(blocks[0]) == len(blocks[1]) == -(-rate // 512)
    for a, b in zip(*blocks):
        assert a.dtype == b.dtype == np.float32 and np.array_equal(a, b)
