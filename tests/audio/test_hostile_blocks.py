"""The audio chain against the blocks a user's own code or an odd microphone hands it.

A real clap clip is streamed as float32, int16 PCM, float64, and two-channel blocks: every
event must be the one the float32 stream gives (int16 blocks once read as if each sample
were 32768 times full scale, so every level was 100 and the recorder, which stores int16 as
PCM, disagreed with the live run). Blocks that are not audio are one-line ``ConfigError``s;
an absurdly loud block is skipped, counted and named as what it is.
"""
from __future__ import annotations

import logging

import numpy as np
import pytest
import soundfile as sf

from sensekit.audio.activity import ActivityDetector
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.pipeline import AudioStage
from sensekit.audio.pitch import PitchTracker
from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError
from sensekit.events import Event

CLIP = "audio/clap_k_pairs8.wav"      # 44.1 kHz, 16-bit: eight claps in pairs
BLOCK = 512


def stage() -> AudioStage:
    return AudioStage(activity=ActivityDetector(), clap=ClapDetector(), pattern=ClapPatternTracker(),
                      pitch=PitchTracker())


def run(blocks: list[np.ndarray], rate: int) -> list[Event]:
    st = stage()
    out: list[Event] = []
    for k, b in enumerate(blocks):
        out += st.process(AudioBlock(k, k * BLOCK / rate, b, rate))
    return out


def as_tuples(events: list[Event]) -> list[tuple[str, float, tuple[float, ...]]]:
    """Name, time and rounded numeric fields of each event (the level to 1e-4)."""
    rows = []
    for e in events:
        d = e.to_dict()
        nums = tuple(round(float(v), 4) for k, v in sorted(d.items())
                     if isinstance(v, (int, float)) and k != "t")
        rows.append((e.name, round(e.t, 6), nums))
    return rows


@pytest.fixture(scope="module")
def pcm(shared_data):
    x, rate = sf.read(str(shared_data / CLIP), dtype="int16")
    assert x.ndim == 1 and rate == 44100
    return x, rate


def chunks(x: np.ndarray) -> list[np.ndarray]:
    return [x[i:i + BLOCK] for i in range(0, len(x), BLOCK)]


def test_int16_float64_and_stereo_blocks_give_the_float32_events(pcm):
    x16, rate = pcm
    f32 = (x16.astype(np.float32) / np.float32(32768.0))
    ref = run(chunks(f32), rate)
    claps = [e for e in ref if e.name == "clap"]
    assert len(claps) >= 6, "the clip's claps are the point of the comparison"
    variants = {
        "int16": chunks(x16),
        "float64": chunks(f32.astype(np.float64)),
        "stereo float32": chunks(np.stack([f32, f32], axis=1)),
        "stereo int16": chunks(np.stack([x16, x16], axis=1)),
    }
    for name, blocks in variants.items():
        assert as_tuples(run(blocks, rate)) == as_tuples(ref), name


@pytest.mark.parametrize("samples, fragment", [
    ([0.0] * BLOCK, "must be a numpy array of samples, got list"),
    (np.zeros(BLOCK, np.complex64), "must hold real numbers"),
    (np.array(["a"] * BLOCK, object), "must hold real numbers"),
    (np.zeros((BLOCK, 0), np.float32), "no channels"),
    (np.zeros((BLOCK, 1, 1), np.float32), "must have shape (n,) or (n, channels)"),
    # (harden22) a (channels, n) array: read as 2 samples of 512 channels, averaged, with no word
    (np.zeros((2, BLOCK), np.float32), "512 channels (at most 64); a block is (n, channels): transpose"),
])
def test_blocks_that_are_not_audio_are_one_line_config_errors(samples, fragment):
    with pytest.raises(ConfigError) as err:
        stage().process(AudioBlock(0, 0.0, samples, 16000))
    assert fragment in str(err.value) and "\n" not in str(err.value)


def test_a_block_too_loud_to_measure_is_skipped_and_named(caplog):
    st = stage()
    quiet = np.zeros(BLOCK, np.float32)
    loud = np.full(BLOCK, 1e30, np.float32)          # finite, but its mean square overflows
    with caplog.at_level(logging.WARNING, logger="sensekit.audio.level"), \
            np.errstate(over="ignore"):
        assert list(st.process(AudioBlock(0, 0.0, quiet, 16000)))
        assert list(st.process(AudioBlock(1, 0.032, loud, 16000))) == []
    assert st.meter.skipped_blocks == 1
    msg = [r.getMessage() for r in caplog.records if "block 1" in r.getMessage()]
    assert len(msg) == 1 and "too large" in msg[0] and "NaN" not in msg[0]


@pytest.mark.parametrize("rate", [8000, 96000])
def test_sample_rates_at_the_edges(pcm, rate):
    """8 kHz (telephone audio) runs; 96 kHz (studio interfaces) is refused in one line naming
    the range the clap detector handles, before any event."""
    from sensekit.evaluation.audio.clap_training import resample

    x16, src_rate = pcm
    x16 = x16[:int(2.5 * src_rate)]                 # five claps, 0.34 .. 2.26 s
    x = resample(x16.astype(np.float32) / 32768.0, src_rate, rate).astype(np.float32)
    if rate == 8000:
        events = run(chunks(x), rate)
        assert sum(e.name == "clap" for e in events) >= 4
    else:
        with pytest.raises(ConfigError, match=r"96000 Hz is not supported .* 8000\.\.48000 Hz"):
            run(chunks(x), rate)
