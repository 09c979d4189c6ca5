"""Noise at a chosen SNR, the synthetic hard negatives (``evaluation.audio.clap_augment``), the clap band."""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap_features import band_width, clap_band
from sensekit.audio.clap_loudness import clap_loudness, rms_5ms_peak
from sensekit.evaluation.audio.clap_augment import (
    EVERYDAY_KINDS,
    NOISE_KINDS,
    SYNTHETIC_KINDS,
    _gravel,
    _keystroke,
    _knocks,
    _typing,
    everyday,
    noise,
    phone,
    synthetic_negatives,
    with_noise,
)

from .helpers import burst_in_silence

RATE = 48000


@pytest.mark.parametrize("kind", NOISE_KINDS)
def test_noise_kinds_have_unit_rms_and_are_seeded(kind):
    speech = [np.sin(np.arange(9000) * 0.07) * np.random.default_rng(1).uniform(0.5, 1, 9000)]
    a = noise(kind, 24000, RATE, np.random.default_rng(5), speech)
    b = noise(kind, 24000, RATE, np.random.default_rng(5), speech)
    assert np.sqrt(np.mean(a ** 2)) == pytest.approx(1.0, rel=1e-3)
    assert np.array_equal(a, b)


def band_power(x: np.ndarray, lo: float, hi: float) -> float:
    p = np.abs(np.fft.rfft(x)) ** 2
    f = np.fft.rfftfreq(len(x), 1 / RATE)
    return float(p[(f >= lo) & (f < hi)].sum())


def test_pink_is_flat_per_octave_and_brown_falls():
    rng = np.random.default_rng(3)
    pink, brown = noise("pink", 96000, RATE, rng), noise("brown", 96000, RATE, rng)
    ratio_pink = band_power(pink, 4000, 8000) / band_power(pink, 1000, 2000)
    ratio_brown = band_power(brown, 4000, 8000) / band_power(brown, 1000, 2000)
    assert 0.7 < ratio_pink < 1.4
    assert ratio_brown < 0.35


def test_with_noise_sets_the_snr_against_the_claps_loudness():
    x = burst_in_silence()
    loud = clap_loudness(x, RATE, [0.5])
    y = with_noise(x, RATE, loud, 10.0, "white", np.random.default_rng(2))
    n = y.astype(np.float64) - x
    assert 20 * np.log10(loud / np.sqrt(np.mean(n ** 2))) == pytest.approx(10.0, abs=0.05)
    with pytest.raises(ValueError, match="babble"):
        noise("babble", 100, RATE, np.random.default_rng(0))
    with pytest.raises(ValueError, match="noise kind"):
        noise("fan", 100, RATE, np.random.default_rng(0))


@pytest.mark.parametrize("kind", SYNTHETIC_KINDS)
def test_synthetic_negatives_are_seeded_bursts(kind):
    a = synthetic_negatives(kind, RATE, np.random.default_rng(7), seconds=2.0)
    assert np.array_equal(a, synthetic_negatives(kind, RATE, np.random.default_rng(7), seconds=2.0))
    assert a.dtype == np.float32 and len(a) == 2 * RATE
    assert 0.02 < float(np.abs(a).max()) <= 1.0
    assert rms_5ms_peak(a, RATE) > 30 * np.sqrt(np.mean(a[:200] ** 2))


def test_clap_band_widths_and_values():
    assert [band_width(r) for r in (8000, 16000, 22050, 32000, 44100, 48000)] == [1, 2, 4, 4, 8, 8]
    x = np.random.default_rng(4).normal(size=300)
    assert np.array_equal(clap_band(x, 1), x[1:] - x[:-1])
    y = clap_band(x, 8)
    want = np.array([x[i + 8: i + 16].sum() - x[i: i + 8].sum() for i in range(len(x) - 15)])
    assert len(y) == len(want) and np.allclose(y, want)


def test_clap_band_does_not_depend_on_where_the_segment_starts():
    x = np.random.default_rng(5).normal(size=1000).astype(np.float32)
    whole = clap_band(x, 8)
    for start in (1, 7, 333):
        assert np.array_equal(clap_band(x[start:], 8), whole[start:])


def test_the_band_keeps_a_clap_over_white_noise_that_the_difference_loses():
    """A 2 kHz-centred burst 10 dB over white noise at 48 kHz rises >= 10 dB in the clap band,
    < 6 dB in the first difference (why the detector moved to the band)."""
    from scipy.signal import butter, sosfilt

    rng = np.random.default_rng(6)
    clap = sosfilt(butter(2, [600, 3500], "bp", fs=RATE, output="sos"), rng.normal(size=480))
    x = np.zeros(RATE // 5)
    x[4800: 5280] = clap * np.exp(-np.arange(480) / 120)
    loud = rms_5ms_peak(x, RATE)
    y = x + noise("white", len(x), RATE, rng) * loud / np.sqrt(10.0)

    def rise(d: np.ndarray) -> float:
        e = np.convolve(d ** 2, np.ones(48) / 48, "valid")
        return float(10 * np.log10(e[4700: 5400].max() / np.median(e[:4000])))

    assert rise(clap_band(y, 8)) >= 10.0
    assert rise(clap_band(y, 1)) < 6.0



# --- everyday hard negatives (typing, footsteps on gravel, knocks through a phone) ---------

def frame_db(x: np.ndarray, ms: float = 1.0) -> np.ndarray:
    """RMS per ``ms`` frame, dB."""
    f = round(ms * RATE / 1000)
    m = len(x) // f
    return 10 * np.log10(np.mean(x[: m * f].astype(np.float64).reshape(m, f) ** 2, axis=1) + 1e-30)


def onsets_ms(x: np.ndarray, over_db: float, gap_ms: int) -> list[int]:
    """1 ms frames where the level rises ``over_db`` over the clip's median after at least
    ``gap_ms`` under it."""
    out: list[int] = []
    last = -10 ** 9
    for i in np.flatnonzero(frame_db(x) > np.median(frame_db(x)) + over_db).tolist():
        if i - last > gap_ms:
            out.append(i)
        last = i
    return out


def period_s(x: np.ndarray, lo_s: float, hi_s: float) -> float:
    """The lag in ``lo_s..hi_s`` where the 1 ms power envelope's autocorrelation peaks."""
    e = 10 ** (frame_db(x) / 10)
    e = e - e.mean()
    ac = np.correlate(e, e, "full")[len(e) - 1:]
    lo, hi = round(lo_s * 1000), round(hi_s * 1000)
    return (lo + int(np.argmax(ac[lo: hi]))) / 1000


@pytest.mark.parametrize("kind", EVERYDAY_KINDS)
def test_everyday_kinds_are_seeded_float32_clips_over_a_floor(kind):
    a = synthetic_negatives(kind, RATE, np.random.default_rng(11), seconds=3.0)
    assert np.array_equal(a, synthetic_negatives(kind, RATE, np.random.default_rng(11), seconds=3.0))
    assert not np.array_equal(a, synthetic_negatives(kind, RATE, np.random.default_rng(12), seconds=3.0))
    assert a.dtype == np.float32 and len(a) == 3 * RATE
    assert 0.001 < float(np.abs(a).max()) <= 1.0
    d = frame_db(a)
    # events stand over the floor (a phone's AGC lifts the floor under the knocks)
    assert d.max() - np.median(d) > (15.0 if kind == "phone_knock" else 25.0)
    with pytest.raises(ValueError, match="everyday kind"):
        everyday("sneeze", RATE, np.random.default_rng(0))


def test_a_keystroke_rings_in_plastic_and_its_key_up_comes_60_to_150_ms_later_softer():
    for seed in range(6):
        k = _keystroke(RATE, np.random.default_rng(seed), space=False)
        d = frame_db(k)
        down = int(np.argmax(d[:20]))                   # bottom-out 2-10 ms after the touch
        up = 55 + int(np.argmax(d[55:170]))
        assert 2 <= down <= 12
        assert 60 <= up - down <= 155
        a = np.abs(k)
        drop = 20 * np.log10(a[: round(0.02 * RATE)].max() / a[round(0.055 * RATE): round(0.17 * RATE)].max())
        assert 4.0 - 1.0 <= drop <= 12.0 + 4.0          # 4-12 dB softer (the thud adds to key-down)
        assert band_power(k, 1000, 6500) > 3 * band_power(k, 6500, 24000)   # plastic modes, no air


def test_typing_is_an_irregular_train():
    for seed in range(6):
        x = _typing(6 * RATE, RATE, np.random.default_rng(seed))
        gaps = np.diff(onsets_ms(x, 30.0, 30))
        assert 1.0 <= (len(gaps) + 1) / 6.0 <= 20.0
        assert gaps.std() / gaps.mean() > 0.3            # not a metronome


def test_a_gravel_step_is_a_low_thud_and_a_crunch_longer_than_a_clap_at_1_5_to_2_5_a_second():
    from scipy.signal import butter, sosfilt

    for seed in range(3):
        x = _gravel(8 * RATE, RATE, np.random.default_rng(seed))
        assert 0.9 / 2.5 <= period_s(x, 0.32, 0.8) <= 1.1 / 1.5
        steps = onsets_ms(x, 20.0, 120)
        crunch = sosfilt(butter(4, [1000, 8000], "bp", fs=RATE, output="sos"), x)
        thud = sosfilt(butter(4, 300, "lp", fs=RATE, output="sos"), x)
        late = []
        for s in steps:
            c = crunch[s * 48: (s + 200) * 48] ** 2
            late.append(c[15 * 48:].sum() / c.sum())     # the crunch's energy after 15 ms
            assert frame_db(thud[s * 48: (s + 60) * 48]).max() > np.median(frame_db(thud)) + 15.0
        assert np.median(late) >= 0.25                   # a dry clap is over within ~10 ms


def test_phone_high_passes_compresses_and_cuts_the_top():
    rng = np.random.default_rng(9)
    x = np.zeros(RATE)
    x[4800: 14400] = rng.normal(0.0, 0.5, 9600)          # loud 0.2 s
    x[28800: 38400] = rng.normal(0.0, 0.5 * 10 ** (-30 / 20), 9600)   # 30 dB quieter
    narrow = wide = 0
    for seed in range(10):
        y = phone(x, RATE, np.random.default_rng(seed))
        assert np.abs(y).max() == pytest.approx(10 ** (-3 / 20), rel=1e-6)
        loud, quiet = frame_db(y[7200: 14400], 150)[0], frame_db(y[31200: 38400], 150)[0]
        assert 5.0 < loud - quiet < 24.0                 # AGC: 3-8:1 over its threshold
        total = band_power(y, 0, 24000)
        assert band_power(y, 0, 50) < 1e-3 * total       # 80-250 Hz high-pass
        if band_power(y, 4500, 24000) < 1e-4 * total:
            narrow += 1                                  # an 8 kHz channel
        else:
            wide += 1                                    # the codec's high cut (white input)
            assert band_power(y, 19000, 24000) / 5000 < 0.1 * band_power(y, 1000, 4000) / 3000
    assert narrow >= 1 and wide >= 1


def test_knocks_come_in_groups_at_4_to_8_a_second():
    for seed in range(3):
        gaps = np.diff(onsets_ms(_knocks(6 * RATE, RATE, np.random.default_rng(seed)), 25.0, 60)) / 1000
        close = gaps[gaps < 0.4]
        assert len(close) >= 2 and close.min() >= 1 / 8 - 0.01
        assert np.mean(close <= 1 / 4 + 0.01) >= 0.5
