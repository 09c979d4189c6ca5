"""``sensekit plot`` is honest about a long timeout: it shows where the level is loud, not only
the detector's active span, and says when the timeout holds separate passages together."""
from __future__ import annotations

import numpy as np

from sensekit.capture.replay import ReplaySource
from sensekit.cli.plot import active_spans, collect, held_note, loud_spans


def test_loud_spans_follow_the_threshold_in_force():
    t = np.arange(10) * 0.1
    level = np.array([0, 20, 20, 0, 0, 20, 20, 20, 0, 20], float)
    th = np.array([[0.0, 10.0, 10.0], [0.45, 25.0, 25.0], [0.75, 10.0, 10.0]])
    assert np.allclose(loud_spans(t, level, th), [(0.1, 0.3), (0.9, 0.9)])   # 0.5-0.7: under 25
    unknown = th.copy()
    unknown[0, 1] = np.nan                      # a floor-relative threshold before the floor is learned
    assert np.allclose(loud_spans(t, level, unknown), [(0.9, 0.9)])


def _spans(recordings_dir, timeout_ms):
    with ReplaySource(recordings_dir / "demo.skrec") as source:
        data = collect(source, settings={"activity.timeout_ms": timeout_ms}, clap=False)
    active = active_spans(data["activity"], data["duration"])
    loud = loud_spans(data["t"], data["level"], data["thresholds"])
    return active, loud, held_note(active, loud, data["duration"], timeout_ms)


def test_the_default_timeout_is_shown_holding_the_demo_in_one_span(recordings_dir):
    active, loud, note = _spans(recordings_dir, 2000.0)
    assert len(active) == 1 and active[0][1] - active[0][0] > 0.9 * 20.0
    assert len(loud) >= 10                      # 5 voiced phrases and 6 claps, each its own passage
    assert "2000 ms timeout" in note and "separate loud passages" in note
    short_active, short_loud, short_note = _spans(recordings_dir, 500.0)
    assert len(short_active) >= 5 and short_loud == loud and short_note == ""


def test_the_summary_line_counts_in_words(recordings_dir, tmp_path, capsys):
    """The demo has one activity start: the line read '6 claps, 1 activations'."""
    from sensekit.cli import main

    assert main(["plot", str(recordings_dir / "demo.skrec"), "--out", str(tmp_path / "p.png")]) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line.endswith("blocks, 6 claps, 1 activation at threshold 10, timeout 2000 ms)"), line


def test_the_threshold_legend_names_its_level_or_its_range(tmp_path, monkeypatch):
    import soundfile as sf
    from matplotlib.figure import Figure

    from sensekit.cli import main

    legends: list[list[str]] = []
    save = Figure.savefig

    def spy(fig, *args, **kwargs):
        legends.append([t.get_text() for t in fig.axes[0].get_legend().get_texts()])
        return save(fig, *args, **kwargs)

    monkeypatch.setattr(Figure, "savefig", spy)
    rng = np.random.default_rng(3)
    wav = tmp_path / "n.wav"
    sf.write(wav, (0.01 * rng.standard_normal(16000 * 2)).astype(np.float32), 16000)
    assert main(["plot", str(wav), "--out", str(tmp_path / "p.png"), "--activity", "62,300"]) == 0
    assert "threshold 62 (timeout 300 ms)" in legends[-1], legends[-1]
    from sensekit.cli.plot import level_label     # a threshold that changed, or not yet known

    assert level_label("threshold", [np.nan, 40.0, 40.0, 62.0]) == "threshold 40-62"
    assert level_label("threshold", [np.nan, 37.44, 37.44]) == "threshold 37.4"
    assert level_label("threshold", [np.nan]) == "threshold"
