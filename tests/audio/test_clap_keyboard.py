"""A keyboard heard only under claps (sensekit/evaluation/audio/clap_keyboard.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from sensekit.evaluation.audio import clap_keyboard as ck
from sensekit.evaluation.audio.clap_training import SYNTH


def _keys(rate: int, seed: int, n: int = 12) -> np.ndarray:
    """Clicks every 250 ms: a decaying 2 ms noise burst each, as a key's press."""
    rng = np.random.default_rng(seed)
    x = np.zeros(n * rate // 4, np.float32)
    k = int(0.002 * rate)
    for i in range(n):
        a = i * rate // 4 + rate // 8
        x[a:a + k] += (rng.standard_normal(k) * np.exp(-np.arange(k) / (k / 4)) * 0.3).astype(np.float32)
    return x + (rng.standard_normal(len(x)) * 1e-4).astype(np.float32)


def _claps(rate: int) -> np.ndarray:
    x = np.zeros(rate, np.float32)
    x[rate // 4:rate // 4 + 80] = np.random.default_rng(3).standard_normal(80).astype(np.float32) * 0.05
    return x


@pytest.mark.parametrize("copy", sorted(ck.COPIES))
def test_the_keyboard_goes_under_the_clip_at_the_copys_power_ratio(copy: str) -> None:
    rate = 16000
    x = _claps(rate)
    y = ck.keyboard_under(x, rate, [(_keys(rate, 1), rate)], copy, np.random.default_rng(0))
    bg = y.astype(np.float64) - x
    ratio_db = 10 * np.log10(np.mean(x.astype(np.float64) ** 2) / np.mean(bg ** 2))
    assert abs(ratio_db - ck.COPIES[copy]) < 0.01
    assert len(y) == len(x)


def test_the_keyboard_clip_is_picked_by_the_seed_and_brought_to_the_clips_rate() -> None:
    keys = [(_keys(44100, s), 44100) for s in range(5)]
    x = _claps(16000)
    a = ck.keyboard_under(x, 16000, keys, "kb0", np.random.default_rng(11))
    b = ck.keyboard_under(x, 16000, keys, "kb0", np.random.default_rng(11))
    c = ck.keyboard_under(x, 16000, keys, "kb0", np.random.default_rng(12))
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)
    # the 44.1 kHz key clicks land at their times in the 16 kHz copy: a click every 250 ms (4,000
    # samples, within a 2 ms click; taken as 16 kHz samples unresampled they would be 689 ms apart)
    env = np.abs(a.astype(np.float64) - x)
    peaks = [int(np.argmax(env[i * 4000:(i + 1) * 4000])) + i * 4000 for i in range(4)]
    assert np.all(np.abs(np.diff(peaks) - 4000) <= 32)


def test_an_unknown_copy_or_no_keyboard_is_refused() -> None:
    x = _claps(16000)
    with pytest.raises(ValueError, match="unknown keyboard copy 'mix0'"):
        ck.keyboard_under(x, 16000, [(_keys(16000, 1), 16000)], "mix0", np.random.default_rng(0))
    with pytest.raises(ValueError, match="no keyboard clip"):
        ck.keyboard_under(x, 16000, [], "kb0", np.random.default_rng(0))


def test_the_copies_label_claps_positive_and_key_strokes_negative(tmp_path: Path) -> None:
    (tmp_path / "audio").mkdir()
    (tmp_path / "audio" / "clap_onsets.csv").write_text("file,onset_s\n")
    (tmp_path / "labels.csv").write_text("file,label\n")     # only the synthetic clap clips
    b = ck.keyboard_mixes(tmp_path, [(_keys(48000, 2, n=40), 48000)])
    assert set(b.variant.tolist()) == set(ck.COPIES)
    assert set(b.source.tolist()) == {SYNTH}
    assert set(b.background.tolist()) == {ck.KEYBOARD}
    for v in ck.COPIES:
        m = b.variant == v
        assert (b.y[m] == 1).sum() > 0          # the claps stay claps
        assert (b.y[m] == 0).sum() >= 20        # the clicks between them are negatives
    again = ck.keyboard_mixes(tmp_path, [(_keys(48000, 2, n=40), 48000)])
    np.testing.assert_array_equal(b.X, again.X)
    np.testing.assert_array_equal(b.y, again.y)
