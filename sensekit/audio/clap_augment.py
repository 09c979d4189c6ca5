"""Sounds a clap must survive and sounds it must not be: noise at a chosen SNR, synthetic hard negatives.

Used by ``clap_training.py`` (augmented training copies) and ``benchmarks/audio_eval.py``
(the noise curve). Everything is a pure function of its arguments and a seeded
``numpy.random.Generator``: the same seed gives the same samples.

**SNR** is the clap's own loudness over the noise's: the claps' loudest 5 ms RMS (the
median over a clip's claps, ``clap_loudness``) over the RMS of the noise. So "10 dB" is
what a listener would call a clap clearly over a fan, not the power ratio of two whole
recordings (a few claps in a long clip would otherwise read as very quiet).

**Noise kinds** (``NOISE_KINDS``): ``white``; ``pink`` (-3 dB/octave) and ``brown``
(-6 dB/octave, from 20 Hz), shaped in the frequency domain; ``hum`` (a 50 or 60 Hz mains
hum with 12 harmonics falling 3 dB each, plus a fan's brown noise 10 dB under it);
``babble`` (3-6 speech recordings summed at random offsets; the caller supplies them, from
sources other than the clip's).

**Synthetic hard negatives** (``synthetic_negatives``): what physics says is close to a clap
but is not one - a knuckle knock (a click into one or two damped resonances at 150-2500 Hz,
ringing 8-60 ms), a thud (noise low-passed at 150-600 Hz with a 10-40 ms decay), a plosive
(noise low-passed at 0.8-2.5 kHz, a 3-8 ms attack and a 20-80 ms decay, often with a
voiced tail) and a tap (a click into a 2-6 kHz ring). Each clip holds 12-20 of them at
random times and levels.

``synthetic_claps`` makes dry and reverberant noise-burst claps with their onsets.

Cost: the noise is one FFT of the clip's length; ~20 ms for 10 s at 48 kHz.
"""
from __future__ import annotations

import numpy as np

NOISE_KINDS = ("white", "pink", "brown", "hum", "babble")
SYNTHETIC_KINDS = ("knock", "thud", "plosive", "tap")


def rms_5ms_peak(x: np.ndarray, rate: int) -> float:
    """The loudest 5 ms RMS of ``x`` (a sliding window, float64)."""
    n = max(1, round(0.005 * rate))
    x2 = x.astype(np.float64) ** 2
    if len(x2) <= n:
        return float(np.sqrt(x2.mean()))
    c = np.concatenate([[0.0], np.cumsum(x2)])
    return float(np.sqrt(max(0.0, float((c[n:] - c[:-n]).max()) / n)))


def clap_loudness(x: np.ndarray, rate: int, onsets: list[float]) -> float:
    """The median over ``onsets`` of each clap's loudest 5 ms RMS (from 5 ms before its
    onset to 30 ms after); the whole clip's loudest 5 ms RMS when there are no onsets."""
    if not onsets:
        return rms_5ms_peak(x, rate)
    vals = []
    for o in onsets:
        a, b = max(0, round((o - 0.005) * rate)), round((o + 0.030) * rate)
        if b - a > 1:
            vals.append(rms_5ms_peak(x[a:b], rate))
    return float(np.median(vals)) if vals else rms_5ms_peak(x, rate)


def _shaped(n: int, rate: int, power: float, rng: np.random.Generator, f_lo: float = 20.0) -> np.ndarray:
    """Gaussian noise whose power spectrum falls as ``f ** -power`` (flat below ``f_lo``)."""
    spec = np.fft.rfft(rng.normal(0.0, 1.0, n))
    f = np.fft.rfftfreq(n, 1.0 / rate)
    spec *= np.maximum(f, f_lo) ** (-power / 2.0)
    spec[0] = 0.0
    return np.fft.irfft(spec, n)


def noise(kind: str, n: int, rate: int, rng: np.random.Generator,
          speech: list[np.ndarray] | None = None) -> np.ndarray:
    """``n`` samples of noise of ``kind`` (``NOISE_KINDS``) at unit RMS, float64.

    ``babble`` needs ``speech``: recordings at ``rate`` (3-6 of them are summed)."""
    if kind == "white":
        y = rng.normal(0.0, 1.0, n)
    elif kind == "pink":
        y = _shaped(n, rate, 1.0, rng)
    elif kind == "brown":
        y = _shaped(n, rate, 2.0, rng)
    elif kind == "hum":
        f0 = 50.0 if rng.random() < 0.5 else 60.0
        t = np.arange(n) / rate
        y = np.zeros(n)
        for h in range(1, 13):
            if h * f0 < 0.45 * rate:
                y += 10.0 ** (-3.0 * (h - 1) / 20.0) * np.sin(2 * np.pi * h * f0 * t + rng.uniform(0, 2 * np.pi))
        fan = _shaped(n, rate, 2.0, rng)
        y = y / np.sqrt(np.mean(y ** 2)) + fan / np.sqrt(np.mean(fan ** 2)) * 10.0 ** (-10.0 / 20.0)
    elif kind == "babble":
        if not speech:
            raise ValueError("babble noise needs speech recordings")
        y = np.zeros(n)
        for _ in range(int(rng.integers(3, 7))):
            s = speech[int(rng.integers(len(speech)))].astype(np.float64)
            s = s / (np.sqrt(np.mean(s ** 2)) + 1e-20)
            reps = -(-(n + len(s)) // len(s))
            tiled = np.tile(s, reps)
            start = int(rng.integers(len(s)))
            y += tiled[start: start + n]
    else:
        raise ValueError(f"noise kind must be one of {NOISE_KINDS}, got {kind!r}")
    return np.asarray(y / (np.sqrt(np.mean(y ** 2)) + 1e-20), np.float64)


def with_noise(x: np.ndarray, rate: int, loudness: float, snr_db: float, kind: str,
               rng: np.random.Generator, speech: list[np.ndarray] | None = None) -> np.ndarray:
    """``x`` plus noise of ``kind`` whose RMS is ``snr_db`` under ``loudness`` (the claps'
    loudest 5 ms RMS, ``clap_loudness``); scaled down if it would clip, float32."""
    y = x.astype(np.float64) + noise(kind, len(x), rate, rng, speech) * loudness * 10.0 ** (-snr_db / 20.0)
    peak = float(np.abs(y).max())
    return np.asarray(y * (0.95 / peak) if peak > 0.95 else y, np.float32)


def _event(kind: str, rate: int, rng: np.random.Generator) -> np.ndarray:
    from scipy.signal import butter, sosfilt

    n = round(0.15 * rate)
    t = np.arange(n) / rate
    if kind in ("knock", "tap"):
        click = np.zeros(n)
        click[: max(2, round(0.0005 * rate))] = rng.normal(0.0, 1.0, max(2, round(0.0005 * rate)))
        y = 0.3 * click
        ranges = [(150.0, 2500.0)] * int(rng.integers(1, 3)) if kind == "knock" else [(2000.0, 6000.0)]
        for lo, hi in ranges:
            f = min(rng.uniform(lo, hi), 0.4 * rate)
            tau = rng.uniform(0.008, 0.060) / 6.9 if kind == "knock" else rng.uniform(0.004, 0.020) / 6.9
            y += np.sin(2 * np.pi * f * t + rng.uniform(0, 2 * np.pi)) * np.exp(-t / tau)
    elif kind == "thud":
        w = rng.normal(0.0, 1.0, n) * np.exp(-t / (rng.uniform(0.010, 0.040) / 6.9))
        y = sosfilt(butter(2, rng.uniform(150.0, 600.0), "lp", fs=rate, output="sos"), w)
    elif kind == "plosive":
        attack = rng.uniform(0.003, 0.008)
        env = np.minimum(1.0, t / attack) * np.exp(-np.maximum(0.0, t - attack) / (rng.uniform(0.02, 0.08) / 6.9))
        w = rng.normal(0.0, 1.0, n) * env
        y = sosfilt(butter(2, min(rng.uniform(800.0, 2500.0), 0.4 * rate), "lp", fs=rate, output="sos"), w)
        if rng.random() < 0.5:                                # a voiced tail (the vowel after)
            f0 = rng.uniform(90.0, 250.0)
            vt = np.clip((t - attack - 0.01) / 0.02, 0.0, 1.0)
            y = y + 0.5 * np.sign(np.sin(2 * np.pi * f0 * t)) * vt * np.exp(-t / 0.2) * np.abs(y).max()
    else:
        raise ValueError(f"synthetic kind must be one of {SYNTHETIC_KINDS}, got {kind!r}")
    return np.asarray(y / (np.abs(y).max() + 1e-20), np.float64)


def room_tail(x: np.ndarray, rate: int, rng: np.random.Generator) -> np.ndarray:
    """``x`` in a synthetic room: the direct sound plus exponentially decaying noise from
    3 ms on (RT60 0.2-0.8 s, reverberant energy -12..0 dB re the direct sound)."""
    from scipy.signal import fftconvolve

    rt60 = rng.uniform(0.2, 0.8)
    n = int(rate * rt60)
    t = np.arange(n) / rate
    tail = rng.normal(0.0, 1.0, n) * np.exp(-6.91 * t / rt60)
    tail[: int(0.003 * rate)] = 0.0
    tail *= np.sqrt(10.0 ** (rng.uniform(-12.0, 0.0) / 10.0) / (np.sum(tail ** 2) + 1e-20))
    tail[0] = 1.0
    return np.asarray(fftconvolve(x, tail)[: len(x)], np.float64)


def synthetic_negatives(kind: str, rate: int, rng: np.random.Generator, seconds: float = 6.0) -> np.ndarray:
    """A clip of 12-20 synthetic ``kind`` events (``SYNTHETIC_KINDS``) at random times and
    peak levels (-30..-3 dBFS), in a synthetic room (``room_tail``), over a pink noise floor
    at -65..-45 dBFS: like a recording, so that nothing but the event itself tells it from
    a clap (a digitally clean event would teach the trees "synthetic", not "knock")."""
    n = round(seconds * rate)
    x = np.zeros(n)
    count = int(rng.integers(12, 21))
    starts = np.sort(rng.choice(np.arange(round(0.05 * rate), n - round(0.2 * rate)), count, replace=False))
    for s in starts.tolist():
        ev = _event(kind, rate, rng) * 10.0 ** (rng.uniform(-30.0, -3.0) / 20.0)
        x[s: s + len(ev)] += ev[: n - s]
    x = room_tail(x, rate, rng) + noise("pink", n, rate, rng) * 10.0 ** (rng.uniform(-65.0, -45.0) / 20.0)
    return np.asarray(np.clip(x, -1.0, 1.0), np.float32)


def synthetic_claps(rate: int, rng: np.random.Generator, seconds: float = 6.0) -> tuple[np.ndarray, list[float]]:
    """A clip of 8-14 synthetic claps and their onsets: what a clap is, physically - a noise
    burst of 4-15 ms (0.3-1 ms attack, 1.5-5 ms decay), band-limited to 0.3-1 kHz .. 2.5-12
    kHz or (3 in 10) not at all, at -30..-3 dBFS, at least 150 ms apart, half of them dry
    (a close microphone, outdoors) and half in a synthetic room, over a pink floor at
    -80..-50 dBFS. They stand for the dry, clean claps no developer clip holds (the bundled
    demo's claps are such bursts)."""
    from scipy.signal import butter, sosfilt

    n = round(seconds * rate)
    x = np.zeros(n)
    onsets: list[float] = []
    t = rng.uniform(0.1, 0.3)
    while t < seconds - 0.2:
        m = round(rng.uniform(0.004, 0.015) * rate)
        tt = np.arange(m) / rate
        env = np.minimum(1.0, tt / rng.uniform(0.0003, 0.001)) * np.exp(-tt / rng.uniform(0.0015, 0.005))
        burst = rng.uniform(-1.0, 1.0, m) * env
        if rng.random() >= 0.3:
            lo, hi = rng.uniform(300.0, 1000.0), min(rng.uniform(2500.0, 12000.0), 0.45 * rate)
            burst = sosfilt(butter(2, [lo, hi], "bp", fs=rate, output="sos"), burst)
        burst *= 10.0 ** (rng.uniform(-30.0, -3.0) / 20.0) / (np.abs(burst).max() + 1e-20)
        i = round(t * rate)
        x[i: i + m] += burst[: n - i]
        onsets.append(t)
        t += rng.uniform(0.15, 0.8)
    if rng.random() < 0.5:
        x = room_tail(x, rate, rng)
    x = x + noise("pink", n, rate, rng) * 10.0 ** (rng.uniform(-80.0, -50.0) / 20.0)
    return np.asarray(np.clip(x, -1.0, 1.0), np.float32), onsets
