"""The clap detector on the real developer clips (../shared/data), against the book's method.

Prints the evaluation table (run with ``-s`` to see it; ``benchmarks/audio_eval.py``
prints the same). Skips cleanly when the shared data folder is absent.
"""
from __future__ import annotations

import pytest

from sensekit.audio.clap import ClapDetector
from sensekit.evaluation.audio.evaluate import evaluate, format_table, read_clips, read_wav


@pytest.fixture(scope="module")
def evaluation(shared_data):
    ev = evaluate(shared_data, block=512)
    print("\n" + format_table(ev))
    return ev


def test_per_clip_f1_and_beats_the_book(evaluation):
    ev = evaluation
    assert ev.clip.f1 >= 0.95, format_table(ev)
    assert ev.clip.recall == 1.0
    assert ev.book_clip.f1 < 0.70                 # the book fires on every loud negative
    assert ev.clip.f1 > ev.book_clip.f1 + 0.2


def test_per_clap_f1_within_60_ms(evaluation):
    assert evaluation.per_clap.f1 >= 0.95, format_table(evaluation)
    assert evaluation.per_clap.f1 > evaluation.book_per_clap.f1
    # the continuous-clapping clips, against the recipe's times (code, not a person)
    assert evaluation.recipe.f1 >= 0.95, format_table(evaluation)


@pytest.mark.parametrize("label", ["speech", "music", "drum_hit", "hi_hat", "finger_snap",
                                   "room_noise", "dog_bark", "keyboard_typing", "cough",
                                   "footsteps", "glass", "tambourine", "silence", "laugh"])
def test_negatives_by_label(evaluation, label):
    """Every clip of these labels gives no clap."""
    hits = [(r.clip.file, r.claps[:3]) for r in evaluation.results
            if r.clip.label == label and r.claps]
    assert hits == []


def test_the_known_false_claps(evaluation):
    """No negative clip of the developer set gives a clap with the shipped trees (all 41: knocks,
    taps, typing, speech, music, alarms...; the booster before them fired on the click at the start
    of the alarm clip). These clips are in the trees' training; held out, several kinds still
    fire (docs/claps.md, "What still fires")."""
    hits = {r.clip.file.split("/")[-1]: len(r.claps) for r in evaluation.results
            if r.clip.label != "clap" and r.claps}
    assert hits == {}, hits


@pytest.mark.parametrize("offset", [1, 23, 517, 1000])
def test_start_offsets(shared_data, offset):
    ev = evaluate(shared_data, block=512, offset=offset, book=False)
    assert ev.clip.f1 >= 0.95 and ev.per_clap.f1 >= 0.95, format_table(ev)


@pytest.mark.parametrize("block", [256, 1024])
def test_other_block_sizes(shared_data, block):
    ev = evaluate(shared_data, block=block, book=False)
    assert ev.clip.f1 >= 0.95 and ev.per_clap.f1 >= 0.95, format_table(ev)


def waveform_onset(x, rate: int, annotated: float) -> float:
    """The first sample near an annotation that reaches 20 % of the local peak amplitude.

    The isolated-clip times are another detector's output rounded to 10 ms; on the
    waveform the rise comes up to ~8 ms after them, so "the block holding the onset"
    is taken as the later of the annotation and this physical onset.
    """
    import numpy as np

    a, b = int((annotated - 0.02) * rate), int((annotated + 0.06) * rate)
    seg = np.abs(x[max(0, a):b])
    return (max(0, a) + int(np.argmax(seg >= 0.2 * seg.max()))) / rate


def test_latency_on_replay(shared_data, tmp_path):
    """Record the isolated-clap clip, replay it: each clap event comes with the block that
    completes the detector's look-ahead after the onset (plus the few ms to the peak)."""
    from sensekit.capture.base import AudioBlock
    from sensekit.capture.recording import Recorder, ReplaySource

    clip = next(c for c in read_clips(shared_data) if "sparse" in c.file)
    x, rate = read_wav(shared_data / clip.file)
    path = tmp_path / "claps.skrec"
    with Recorder(path, audio=(rate, 1), block_size=512, fsync=False) as rec:
        for k, i in enumerate(range(0, len(x), 512)):
            rec.write(AudioBlock(k, i / rate, x[i:i + 512], rate))
    d = ClapDetector()
    emitted: list[tuple[int, float]] = []
    with ReplaySource(path) as src:
        for item in src:
            if isinstance(item, AudioBlock):
                assert len(item.samples) <= 512
                for c in d.feed(item):
                    emitted.append((item.index, c.t))
    assert len(emitted) == len(clip.onsets)
    for onset in clip.onsets:
        physical = max(onset, waveform_onset(x, rate, onset))
        assert physical - onset < 0.010
        k, t = min(emitted, key=lambda e: abs(e[1] - onset))
        assert abs(t - onset) <= 0.06
        assert abs(t - physical) <= 0.003
        due = int((physical + 0.012 + d.latency_ms / 1000.0) * rate) // 512
        assert k <= due, (onset, physical, due, k)


def test_latency_on_the_bundled_replay(recordings_dir):
    """The demo recording's synthetic claps have exact times: each event comes with the block
    that completes the look-ahead."""
    import json

    rec = recordings_dir / "demo.skrec"
    if not (rec / "meta.json").is_file():
        pytest.skip(f"bundled recording not generated yet ({rec})")
    from sensekit.capture.base import AudioBlock
    from sensekit.capture.recording import ReplaySource

    truth = json.loads((recordings_dir / "demo.truth.json").read_text())["claps"]
    d = ClapDetector()
    emitted = []
    with ReplaySource(rec) as src:
        for item in src:
            if isinstance(item, AudioBlock):
                n, rate = len(item.samples), item.rate
                emitted += [(item.index, c.t) for c in d.feed(item)]
    for onset in truth:
        k, t = min(emitted, key=lambda e: abs(e[1] - onset))
        assert abs(t - onset) < 0.005
        assert k <= int((onset + 0.006 + d.latency_ms / 1000.0) * rate) // n
