"""The voice segmenter's events on clips that fade in from silence, against their clap onsets.

    python benchmarks/vad_fade_in.py

For each clip: the annotated clap onsets (``audio/clap_onsets.csv``) and the events that
``voiced_segments`` (what teaching from files and the voice stage use) cuts, in the clip's
seconds. Used for the fade-in table in docs/voice.md.
"""
from __future__ import annotations

import csv
import sys
from pathlib import Path

import soundfile as sf

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _reference import SHARED_DATA
from sensekit.audio.vad import voiced_segments

CLIPS = ("clap_k_triple", "clap_k_regular14", "clap_j_double")
PAD_S = 0.5      # voiced_segments puts this much silence before the clip


def main() -> int:
    with open(SHARED_DATA / "audio" / "clap_onsets.csv", newline="") as f:
        rows = [r for r in csv.reader(f) if r]
    for name in CLIPS:
        onsets = sorted(float(r[1]) for r in rows if r[0] == f"audio/{name}.wav")
        y, rate = sf.read(SHARED_DATA / "audio" / f"{name}.wav", dtype="float32")
        events = [(s.start - PAD_S, s.end - PAD_S) for s in voiced_segments(y, rate)]
        print(f"{name}: onsets {' '.join(f'{t:.3f}' for t in onsets)}")
        print("  events " + "  ".join(f"{a:.2f}-{b:.2f} ({b - a:.2f} s)" for a, b in events))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
