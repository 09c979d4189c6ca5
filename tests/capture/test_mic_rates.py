"""A microphone whose default rate is above what the detectors take (a studio interface at
96 kHz) still gives claps: it is opened at 48 kHz. Before, ``sensekit events mic --clap`` was
refused ("sample rate 96000 Hz is not supported by the clap detector") and no option of the
command line could choose another rate.

The microphone is ALSA's file plugin behind a plug device whose default rate is the one
configured (96 kHz), reading a real clap clip resampled to 96 kHz (``alsa_filemic``). The
plugin is not paced, so the claps are checked from a source that keeps every block from the
start (``drop="newest"``); the command line is checked for the rate it opens and its exit.
"""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import soundfile as sf

from tests.capture.alsa_filemic import FileMic, unavailable_reason

CLIP = "audio/clap_k_pairs8.wav"          # 44.1 kHz; its first 2.5 s hold five claps (0.34 .. 2.26 s)
RATE = 96000

_reason = unavailable_reason()
pytestmark = pytest.mark.skipif(_reason is not None, reason=f"ALSA file microphone: {_reason}")


@pytest.fixture
def mic96(shared_data, tmp_path) -> FileMic:
    from scipy.signal import resample_poly

    x, rate = sf.read(str(shared_data / CLIP), dtype="float64", frames=int(2.5 * 44100))
    y = resample_poly(x, RATE // 300, rate // 300)                # 44.1 -> 96 kHz
    pcm = np.clip(np.round(y * 32768), -32768, 32767).astype(np.int16)
    return FileMic(tmp_path, np.concatenate([pcm, np.zeros(RATE // 2, np.int16)]), RATE)


def test_the_command_line_opens_a_96_khz_microphone_at_48_khz(mic96):
    r = subprocess.run([sys.executable, "-m", "sensekit", "events", "mic", "--clap", "--jsonl", "--records",
                        "--max-items", "40"], env=mic96.env, cwd=str(mic96.folder),
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    rates = {json.loads(line)["rate"] for line in r.stdout.splitlines() if '"audio_block"' in line}
    assert rates == {48000}


def test_the_claps_of_a_96_khz_microphone_are_heard(mic96):
    r = mic96.run("""
        import json
        from sensekit.audio.clap import ClapDetector
        from sensekit.audio.pipeline import AudioStage
        from sensekit.capture.microphone import MicrophoneSource
        stage, claps, n = AudioStage(clap=ClapDetector()), [], 0
        with MicrophoneSource(max_queued_blocks=4096, drop="newest") as src:
            while n < 3.0 * 48000:
                b = src.read(timeout=5)
                assert b is not None, "no block within 5 s"
                n += len(b.samples)
                claps += [e.t for e in stage.process(b) if e.name == "clap"]
            print(json.dumps({"rate": src.sample_rate, "claps": claps}))
    """, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["rate"] == 48000
    # the clip's five claps, in order; ALSA's plug converts 96 -> 48 kHz a little short (the
    # claps arrive 3-5 % early: 0.331, 0.779, 1.548, 1.736, 2.147 s here, the same every run)
    assert len(out["claps"]) == 5, out["claps"]
    assert np.allclose(out["claps"], [0.34, 0.8, 1.61, 1.82, 2.26], rtol=0.06, atol=0.01), out["claps"]


def test_a_rate_the_device_does_not_take_is_a_setting_to_change_not_a_device_to_wait_for(tmp_path):
    """harden24: PortAudio's "Invalid sample rate" was a ``DeviceUnavailableError`` (exit 75: the
    unit restarted the piece every 5 s for ever, and waiting never changes what rates a device
    takes). Now it is a ``SourceError`` (exit 2) naming the rate and the device's own; a device
    that opens at its own rate still opens."""
    mic = FileMic(tmp_path, np.zeros(48000, np.int16), 48000)
    r = mic.run("""
        import json
        from sensekit.capture.microphone import MicrophoneSource
        from sensekit.errors import DeviceUnavailableError, SourceError, exit_status
        try:
            MicrophoneSource(sample_rate=768000).open()
            out = {"opened": True}
        except SourceError as exc:
            out = {"unavailable": isinstance(exc, DeviceUnavailableError), "status": exit_status(exc),
                   "message": str(exc)}
        src = MicrophoneSource(sample_rate=48000)
        src.open()
        out["own_rate_block"] = src.read(timeout=5) is not None
        src.close()
        print(json.dumps(out))
    """, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    out = json.loads(r.stdout.strip().splitlines()[-1])
    assert out["unavailable"] is False and out["status"] == 2, out
    assert "does not take 768000 Hz" in out["message"] and "its own rate is 48000 Hz" in out["message"]
    assert "\n" not in out["message"] and out["own_rate_block"]
