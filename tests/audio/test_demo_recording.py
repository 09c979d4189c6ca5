"""The bundled recording's known clap times are found (read through ReplaySource)."""
from __future__ import annotations

import json

import pytest

from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.evaluation.audio.evaluate import match


def test_demo_claps_found(recordings_dir):
    rec = recordings_dir / "demo.skrec"
    truth_path = recordings_dir / "demo.truth.json"
    if not (rec / "meta.json").is_file() or not truth_path.is_file():
        pytest.skip(f"bundled recording not generated yet ({rec})")
    from sensekit.capture.base import AudioBlock
    from sensekit.capture.recording import ReplaySource

    truth = json.loads(truth_path.read_text())
    d = ClapDetector()
    tracker = ClapPatternTracker(2, max_gap_ms=600)
    claps, patterns = [], []
    with ReplaySource(rec) as src:
        for item in src:
            if isinstance(item, AudioBlock):
                for c in d.feed(item):
                    claps.append(c.t)
                    p = tracker.add(c)
                    if p is not None:
                        patterns.append(p.times)
    m = match(claps, truth["claps"], tolerance_s=0.03)
    assert (m.tp, m.fp, m.fn) == (len(truth["claps"]), 0, 0), (claps, truth["claps"])
    want = [tuple(p["times"]) for p in truth.get("clap_patterns", []) if p["count"] == 2]
    for w in want:
        assert any(all(abs(a - b) < 0.03 for a, b in zip(w, got)) for got in patterns)
