"""The twentieth pass's look (benchmarks/clap_general_look.py): the aisfx front end (the shipped
``clap_wait.log_mel`` / ``mel_bank`` the look imports) and the replace / veto / boost rules with their
threshold choice. Synthetic signals only."""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import clap_general_look as g

from sensekit.audio.clap_wait import mel_bank


def _hz_to_mel(f: float) -> float:
    return 2595.0 * float(np.log10(1.0 + f / 700.0))


def test_the_mel_bank_is_librosas_htk_bank_with_unit_area_filters() -> None:
    bank = mel_bank()
    assert bank.shape == (96, 1025)
    assert (bank >= 0).all()
    np.testing.assert_allclose(bank.sum(axis=1), 1.0, atol=1e-9)
    f = np.fft.rfftfreq(2048, 1.0 / 44100)
    centres = f[bank.argmax(axis=1)]
    assert (np.diff(centres) >= 0).all()
    # the 50th band's centre, on the HTK mel scale: 97 equal mel steps from 0 to 22.05 kHz
    top = _hz_to_mel(22050.0)
    want = 700.0 * (10.0 ** (50 * top / 97 / 2595.0) - 1.0)
    assert abs(centres[49] - want) <= 2 * 44100 / 2048


def test_a_tone_lands_in_its_band_and_a_click_in_the_frame_at_the_peak() -> None:
    rate = 16000
    t = np.arange(rate) / rate
    tone = 0.3 * np.sin(2 * np.pi * 1000.0 * t)
    m = g.log_mel(tone, rate, rate // 2, g.WINDOWS["short"])
    assert m.shape == (16, 96)
    f = np.fft.rfftfreq(2048, 1.0 / 44100)
    centres = f[mel_bank().argmax(axis=1)]
    assert abs(centres[int(np.argmax(m[8]))] - 1000.0) < 120.0

    click = np.zeros(rate)
    click[rate // 2] = 1.0
    m = g.log_mel(click, rate, rate // 2, g.WINDOWS["short"])
    # frame centres at -0.25 s + i * 1024 / 44100: frame 11 is the one nearest the peak (+5 ms)
    assert int(np.argmax(m.sum(axis=1))) == 11
    assert m[:8].max() == 0.0


def test_a_window_past_the_clip_edges_is_zero_padded() -> None:
    x = np.random.default_rng(0).normal(0.0, 0.1, 4000)
    m = g.log_mel(x, 16000, 100, g.WINDOWS["long"])
    assert m.shape == (66, 96) and np.isfinite(m).all()
    # 0.25 s of sound, the peak 6 ms in: frames centred -0.5 .. +1.0 s around it; only 22-32 hear it
    assert m[0].max() == 0.0 and m[-1].max() == 0.0 and m[27].max() > 0.0


def test_veto_only_removes_and_boost_only_adds_to_the_trees() -> None:
    rng = np.random.default_rng(1)
    trees = rng.random(200) < 0.5
    s = rng.normal(size=200)
    veto, boost, rep = (g.decide(r, trees, s, 0.3) for r in ("veto", "boost", "replace"))
    assert not (veto & ~trees).any() and not (trees & ~boost).any()
    np.testing.assert_array_equal(rep, s >= 0.3)


def test_the_threshold_is_the_best_f1_and_the_one_nearest_zero_among_ties() -> None:
    y = np.array([1, 1, 1, 0, 0, 0])
    s = np.array([2.0, 1.6, 1.1, 0.4, -0.5, -3.0])
    trees = np.zeros(6, bool)
    # every threshold in (0.4, 1.1] accepts exactly the three claps: 0.5 is the grid's nearest 0
    assert g.choose("replace", y, trees, s, (0, 0, 0)) == 0.5
    # with many false bursts already outside the margin, F1 still peaks on the same cut
    assert g.choose("replace", y, trees, s, (10, 20, 5)) == 0.5
    # a veto cannot add: with the trees rejecting everything, every threshold ties; 0 wins
    assert g.choose("veto", y, trees, s, (0, 0, 0)) == 0.0
