"""Short sounds: which annotated claps begin a segment, and how many segments each kind of clip
gives, cut as teaching cuts a file before and after voice24's onsets (``vad``'s ``transients``).

    python benchmarks/sounds_short.py

For every clip of ``audio/clap_onsets.csv``: the annotated claps with a segment starting within
50 ms (``voiced_segments`` pads 0.5 s of silence, taken off here), before (voiced frames only)
and after (an onset 20 dB over the floor and 10 dB over the frame before opens one too). Then,
for every clip of ``labels.csv``, the segments per kind before and after, and how many of them
are ``transient`` (no words are looked for in those). The recall and false fires of taught
sounds on the two cuts are ``sounds_open_set.py`` and ``sounds_open_set.py --transients``.

Measured (28 November 2026): 76 of 115 annotated claps began a segment before, 90 after
(clap_k_regular14 7 -> 13 of 14, clap_k_mixed15 7 -> 10, clap_k_mixed18 10 -> 12, the travisjayday
clips 9 -> 12 of 16); the claps still missed are close pairs joined into one segment. Speech
gives the same segments.
"""
from __future__ import annotations

import csv
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from _reference import SHARED_DATA
from voice_eval import read_wav

PAD_S = 0.5          # voiced_segments adds this much silence before the clip
NEAR_S = 0.05        # a segment starting this close to an annotated clap begins at it


def onsets() -> dict[str, list[float]]:
    out: dict[str, list[float]] = defaultdict(list)
    with open(SHARED_DATA / "audio" / "clap_onsets.csv", newline="") as f:
        for row in csv.reader(f):
            if row and row[0].startswith("audio/"):
                out[row[0]].append(float(row[1]))
    return dict(out)


def main() -> None:
    from sensekit.audio.vad import voiced_segments

    total = [0, 0, 0]
    print("clip                        claps  begin a segment before / after   segments before / after")
    for name, claps in sorted(onsets().items()):
        x, rate = read_wav(SHARED_DATA / name)
        row = []
        for transients in (False, True):
            segs = voiced_segments(x, rate, what=name, transients=transients)
            starts = [s.start - PAD_S for s in segs]
            row += [sum(any(abs(t - s) <= NEAR_S for s in starts) for t in claps), len(segs)]
        total = [total[0] + len(claps), total[1] + row[0], total[2] + row[2]]
        print(f"{Path(name).stem:28s} {len(claps):5d}  {row[0]:5d} / {row[2]:<5d}                    "
              f"{row[1]:5d} / {row[3]}")
    print(f"{'all':28s} {total[0]:5d}  {total[1]:5d} / {total[2]}")
    kinds: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    with open(SHARED_DATA / "labels.csv", newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["media"] == "audio" and r["file"].endswith(".wav")]
    for r in rows:
        x, rate = read_wav(SHARED_DATA / r["file"])
        before = voiced_segments(x, rate, what=r["file"])
        after = voiced_segments(x, rate, what=r["file"], transients=True)
        k = kinds[r["label"]]
        k[0] += len(before)
        k[1] += len(after)
        k[2] += sum(s.transient for s in after)
    print("\nkind              segments before / after (transient)")
    for label, (b, a, t) in sorted(kinds.items()):
        print(f"{label:17s} {b:5d} / {a} ({t})")


if __name__ == "__main__":
    main()
