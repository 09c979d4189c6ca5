"""Short sounds on real clips: a clap too short for the voiced rule is segmented, taught and
heard (``transients``, the cut of taught sounds); speech is cut as before."""
from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

pytest.importorskip("webrtcvad")
pytest.importorskip("soxr")

from sensekit.audio.vad import voiced_segments

PAD_S = 0.5          # voiced_segments adds this much silence before the clip
NEAR_S = 0.05


def _clip(shared_data: Path, name: str) -> tuple:
    import soundfile as sf

    return sf.read(shared_data / "audio" / f"{name}.wav", dtype="float32")


def _onsets(shared_data: Path, name: str) -> list[float]:
    with open(shared_data / "audio" / "clap_onsets.csv", newline="") as f:
        return sorted(float(row[1]) for row in csv.reader(f) if row and row[0] == f"audio/{name}.wav")


def _claps_begun(shared_data: Path, name: str, transients: bool) -> int:
    y, rate = _clip(shared_data, name)
    starts = [s.start - PAD_S for s in voiced_segments(y, rate, transients=transients)]
    return sum(any(abs(t - s) <= NEAR_S for s in starts) for t in _onsets(shared_data, name))


def test_short_claps_begin_a_segment_with_transients(shared_data):
    # clap_k_regular14's claps after its fade-in are each under 120 ms of sound: the voiced rule
    # (teaching words, or before voice24) begins a segment at 7 of its 14, onsets at 13
    assert _claps_begun(shared_data, "clap_k_regular14", transients=False) == 7
    assert _claps_begun(shared_data, "clap_k_regular14", transients=True) == 13
    assert _claps_begun(shared_data, "tr_sample-112", transients=True) == 2       # 0 without


@pytest.mark.parametrize("name", ["speech_arctic_aew_a0001", "speech_arctic_axb_a0004", "wnc_voice"])
def test_speech_is_cut_as_before(shared_data, name):
    y, rate = _clip(shared_data, name)
    before = voiced_segments(y, rate)
    after = voiced_segments(y, rate, transients=True)
    assert before and len(after) == len(before)
    for s, u in zip(after, before):
        assert (s.start, s.end) == (pytest.approx(u.start, abs=1e-9), pytest.approx(u.end, abs=1e-9))
    assert not any(s.transient for s in after)


def test_a_clap_taught_from_its_first_three_short_claps_hears_the_others(shared_data, tmp_path, capsys):
    from sensekit.cli import main

    clip = shared_data / "audio" / "clap_k_regular14.wav"
    profile = tmp_path / "claps.toml"
    # the first three claps (0.41, 0.75, 1.05 s) gave "no sound found" before voice24
    spec = ",".join(f"{clip}@{a}-{b}" for a, b in ((0.3, 0.65), (0.65, 0.95), (0.95, 1.25)))
    assert main(["teach", "sound", "--profile", str(profile), f"clap={spec}"]) == 0
    assert "clap: 3 examples" in capsys.readouterr().out
    heard = {}
    for name in ("clap_k_regular14", "clap_k_triple", "clap_k_steady13"):
        assert main(["events", str(shared_data / "audio" / f"{name}.wav"), "--profile", str(profile),
                     "--sounds", "--jsonl"]) == 0
        events = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
        onsets = _onsets(shared_data, name)
        heard[name] = sum(any(e["sound"] == "clap" and abs(e["start"] - t) <= NEAR_S for e in events)
                          for t in onsets)
    # the same clip's 14 claps (3 of them taught), and two other clips of the same person
    assert heard == {"clap_k_regular14": 13, "clap_k_triple": 3, "clap_k_steady13": 13}
