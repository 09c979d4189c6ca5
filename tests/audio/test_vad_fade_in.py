"""The segmenter after a fade-in: the room's noise must not join the first sound (real clips)."""
from __future__ import annotations

import csv
from pathlib import Path

import pytest

pytest.importorskip("webrtcvad")
pytest.importorskip("soxr")

from sensekit.audio.vad import voiced_segments

PAD_S = 0.5          # voiced_segments adds this much silence before the clip
CLIPS = ["clap_k_triple", "clap_k_regular14", "clap_j_double"]   # each fades in from silence


def _onsets(shared_data: Path, name: str) -> list[float]:
    with open(shared_data / "audio" / "clap_onsets.csv", newline="") as f:
        return sorted(float(row[1]) for row in csv.reader(f) if row and row[0] == f"audio/{name}.wav")


def _events(shared_data: Path, name: str) -> list[tuple[float, float]]:
    import soundfile as sf

    y, rate = sf.read(shared_data / "audio" / f"{name}.wav", dtype="float32")
    return [(s.start - PAD_S, s.end - PAD_S) for s in voiced_segments(y, rate)]


@pytest.mark.parametrize("name", CLIPS)
def test_events_after_a_fade_in_start_at_a_clap_and_end_with_it(shared_data, name):
    onsets = _onsets(shared_data, name)
    events = _events(shared_data, name)
    assert onsets and events
    for start, end in events:
        assert end - start < 0.5, f"{name}: event {start:.2f}-{end:.2f} s is longer than a clap or two"
        if start > onsets[-1] + 0.05:
            continue                      # after the last annotated clap: sounds nobody marked
        near = [t for t in onsets if abs(t - start) <= 0.05]
        assert near, f"{name}: event {start:.2f}-{end:.2f} s starts at no clap ({onsets})"
        covered = [t for t in onsets if start - 0.05 <= t < end]
        # a clap sounds ~0.2 s; claps closer than the hangover make one event
        assert end < max(covered) + 0.25, f"{name}: event {start:.2f}-{end:.2f} s outlasts its claps"


def test_the_first_clap_after_a_fade_in_is_its_own_short_event(shared_data):
    start, end = _events(shared_data, "clap_k_triple")[0]
    assert abs(start - 1.265) <= 0.05 and end - start < 0.4, (start, end)
    start, end = _events(shared_data, "clap_j_double")[0]     # two claps 0.2 s apart
    assert abs(start - 0.763) <= 0.05 and end - start < 0.45, (start, end)
