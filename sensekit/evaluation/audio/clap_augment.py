"""Sounds a clap must survive and sounds it must not be: noise at a chosen SNR, synthetic hard negatives.

Evaluation code: used by ``clap_training.py`` (augmented training copies),
``clap_noise.py`` and ``benchmarks/audio_eval.py`` (the noise curve) and
``benchmarks/train_clap.py --everyday``; never by the runtime. Everything is a pure function
of its arguments and a seeded ``numpy.random.Generator``: the same seed gives the same
samples.

**SNR** is the clap's own loudness over the noise's: the claps' loudest 5 ms RMS (the
median over a clip's claps, ``sensekit.audio.clap_loudness``, which ``calibrate --claps``
uses too) over the RMS of the noise. So "10 dB" is what a listener would call a clap
clearly over a fan, not the power ratio of two whole recordings.

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

**Everyday hard negatives** (``EVERYDAY_KINDS``; tried in the tenth pass, not in the shipped
training: held out, the real typing, gravel and phone knocks fired as before, docs/claps_history.md): the
held-out sounds that still fired, synthesised from how they are made (parameters from
physics and general knowledge, fixed before any held-out score):

- ``typing``: keystrokes in irregular trains of 3-10 a second (pauses between words); each
  a finger touch (a 0.2-0.5 ms pulse), the key bottoming 2-10 ms later (an impulse into 2-4
  plastic resonances at 1-6 kHz ringing 3-25 ms, and a 100-400 Hz thud of the case and desk)
  and the key-up click 60-150 ms later, 4-12 dB softer; levels vary by ~3 dB a stroke, and
  one stroke in six is a space bar (louder, resonances at 0.5-2 kHz);
- ``gravel``: footsteps at 1.5-2.5 a second (8 % jitter), each a heel thud (noise low-passed
  at 100-300 Hz, 15-40 ms) and a 30-120 ms crunch of grains (tiny 1-8 kHz rings of
  0.2-1 ms at 1,000-6,000 a second, heavy-tailed amplitudes), then a softer toe-off crunch;
- ``phone_knock``: knuckle knocks (a 0.3-1.5 ms half-sine contact into 1-3 surface modes at
  0.3-6 kHz, in groups of 2-4 at 4-8 a second) recorded through a phone: a 80-250 Hz
  high-pass, an AGC (1-5 ms attack, 50-300 ms release, 3-8:1 over a threshold, make-up gain
  that lifts the floor) and either a 300-3400 Hz band through an 8 kHz rate (4 in 10) or a
  codec's high cut at 7-16 kHz.

``synthetic_claps`` makes dry and reverberant noise-burst claps with their onsets.

Cost: the noise is one FFT of the clip's length; ~20 ms for 10 s at 48 kHz.
"""
from __future__ import annotations

import numpy as np

NOISE_KINDS = ("white", "pink", "brown", "hum", "babble")
SYNTHETIC_KINDS = ("knock", "thud", "plosive", "tap")
EVERYDAY_KINDS = ("typing", "gravel", "phone_knock")


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
    a clap (a digitally clean event would teach the trees "synthetic", not "knock").

    ``EVERYDAY_KINDS`` are trains, not single events (``everyday``)."""
    if kind in EVERYDAY_KINDS:
        return everyday(kind, rate, rng, seconds)
    n = round(seconds * rate)
    x = np.zeros(n)
    count = int(rng.integers(12, 21))
    starts = np.sort(rng.choice(np.arange(round(0.05 * rate), n - round(0.2 * rate)), count, replace=False))
    for s in starts.tolist():
        ev = _event(kind, rate, rng) * 10.0 ** (rng.uniform(-30.0, -3.0) / 20.0)
        x[s: s + len(ev)] += ev[: n - s]
    x = room_tail(x, rate, rng) + noise("pink", n, rate, rng) * 10.0 ** (rng.uniform(-65.0, -45.0) / 20.0)
    return np.asarray(np.clip(x, -1.0, 1.0), np.float32)


def _ring(n: int, rate: int, freqs: list[float], taus: list[float], rng: np.random.Generator) -> np.ndarray:
    """Damped sinusoids (modes at ``freqs`` with decay time constants ``taus``), random phases
    and amplitudes within 6 dB of each other, ``n`` samples from an impulse at 0."""
    t = np.arange(n) / rate
    y = np.zeros(n)
    for f, tau in zip(freqs, taus):
        y += (10.0 ** (rng.uniform(-6.0, 0.0) / 20.0) * np.exp(-t / tau)
              * np.sin(2 * np.pi * min(f, 0.45 * rate) * t + rng.uniform(0, 2 * np.pi)))
    return y


def _pulse(rate: int, seconds: float) -> np.ndarray:
    """A half-sine force pulse of ``seconds`` (a contact: a fingertip, a knuckle)."""
    m = max(2, round(seconds * rate))
    return np.sin(np.pi * (np.arange(m) + 0.5) / m)


def _keystroke(rate: int, rng: np.random.Generator, space: bool) -> np.ndarray:
    """One key: touch, bottom-out (plastic modes + case thud) and, 60-150 ms later, key-up."""
    from scipy.signal import butter, sosfilt

    n = round(0.25 * rate)
    y = np.zeros(n)
    lo, hi = (500.0, 2000.0) if space else (1000.0, 6000.0)
    k = int(rng.integers(2, 5))
    freqs = rng.uniform(lo, hi, k).tolist()
    taus = (rng.uniform(0.003, 0.025, k) / 6.9).tolist()
    touch = _pulse(rate, rng.uniform(0.0002, 0.0005)) * 10.0 ** (rng.uniform(-20.0, -10.0) / 20.0)
    y[: len(touch)] += touch * rng.choice([-1.0, 1.0])
    b = round(rng.uniform(0.002, 0.010) * rate)
    m = round(0.06 * rate)
    hit = _ring(m, rate, freqs, taus, rng)
    tt = np.arange(m) / rate
    thud = sosfilt(butter(2, rng.uniform(100.0, 400.0), "lp", fs=rate, output="sos"),
                   rng.normal(0.0, 1.0, m) * np.exp(-tt / (rng.uniform(0.010, 0.030) / 6.9)))
    thud *= 10.0 ** (rng.uniform(-12.0, -3.0) / 20.0) / (np.abs(thud).max() + 1e-20)
    y[b: b + m] += hit / (np.abs(hit).max() + 1e-20) + thud
    u = b + round(rng.uniform(0.060, 0.150) * rate)
    up = _ring(m, rate, freqs, taus, rng)
    up *= 10.0 ** (-rng.uniform(4.0, 12.0) / 20.0) / (np.abs(up).max() + 1e-20)
    y[u: u + m] += up[: n - u]
    return y


def _typing(n: int, rate: int, rng: np.random.Generator) -> np.ndarray:
    x = np.zeros(n)
    per_s = rng.uniform(3.0, 10.0)
    level = rng.uniform(-30.0, -6.0)
    t = rng.uniform(0.02, 0.2)
    while t < n / rate - 0.3:
        space = rng.random() < 1.0 / 6.0
        ev = _keystroke(rate, rng, space)
        ev *= 10.0 ** ((level + rng.normal(0.0, 3.0) + (4.0 if space else 0.0)) / 20.0) / (np.abs(ev).max() + 1e-20)
        i = round(t * rate)
        x[i: i + len(ev)] += ev[: n - i]
        t += rng.gamma(4.0, 1.0 / (4.0 * per_s))              # irregular, mean 1/per_s
        if rng.random() < 0.12:
            t += rng.uniform(0.3, 1.0)                          # a pause between words
    return x


def _crunch(rate: int, rng: np.random.Generator, seconds: float) -> np.ndarray:
    """Gravel grains: tiny 1-8 kHz rings of 0.2-1 ms at Poisson times, 1,000-6,000 a second,
    heavy-tailed amplitudes, under an envelope that rises in ~5 ms and falls over ``seconds``."""
    m = round(seconds * rate)
    g = round(0.006 * rate)
    y = np.zeros(m + g)
    count = int(rng.poisson(rng.uniform(1000.0, 6000.0) * seconds))
    at = np.sort(rng.integers(0, m, count))
    env = np.minimum(1.0, at / (0.005 * rate)) * np.exp(-at / (seconds * rate / 3.0))
    amps = env * rng.pareto(2.5, count) * rng.choice([-1.0, 1.0], count)
    tg = np.arange(g) / rate
    for a, amp in zip(at.tolist(), amps.tolist()):
        f = min(rng.uniform(1000.0, 8000.0), 0.45 * rate)
        y[a: a + g] += amp * np.exp(-tg / (rng.uniform(0.0002, 0.001) / 6.9)) * np.sin(2 * np.pi * f * tg)
    return y[:m]


def _gravel(n: int, rate: int, rng: np.random.Generator) -> np.ndarray:
    from scipy.signal import butter, sosfilt

    x = np.zeros(n)
    period = 1.0 / rng.uniform(1.5, 2.5)
    level = rng.uniform(-30.0, -6.0)
    t = rng.uniform(0.02, 0.3)
    while t < n / rate - 0.5:
        m = round(0.45 * rate)
        ev = np.zeros(m)
        tt = np.arange(round(0.1 * rate)) / rate
        thud = sosfilt(butter(2, rng.uniform(100.0, 300.0), "lp", fs=rate, output="sos"),
                       rng.normal(0.0, 1.0, len(tt)) * np.exp(-tt / (rng.uniform(0.015, 0.040) / 6.9)))
        ev[: len(thud)] += thud / (np.abs(thud).max() + 1e-20) * 10.0 ** (rng.uniform(-6.0, 0.0) / 20.0)
        c = _crunch(rate, rng, rng.uniform(0.030, 0.120))
        ev[: len(c)] += c / (np.abs(c).max() + 1e-20)
        toe = _crunch(rate, rng, rng.uniform(0.030, 0.080))
        j = round(rng.uniform(0.15, 0.30) * rate)
        ev[j: j + len(toe)] += toe / (np.abs(toe).max() + 1e-20) * 10.0 ** (-rng.uniform(6.0, 12.0) / 20.0)
        ev *= 10.0 ** ((level + rng.normal(0.0, 3.0)) / 20.0) / (np.abs(ev).max() + 1e-20)
        i = round(t * rate)
        x[i: i + m] += ev[: n - i]
        t += period * (1.0 + rng.normal(0.0, 0.08))
    return x


def _knocks(n: int, rate: int, rng: np.random.Generator) -> np.ndarray:
    """Knuckle knocks in groups of 2-4 at 4-8 a second: a 0.3-1.5 ms half-sine contact into
    1-3 surface modes at 0.3-6 kHz (ringing 5-60 ms) and the contact's own thump."""
    x = np.zeros(n)
    level = rng.uniform(-30.0, -6.0)
    t = rng.uniform(0.02, 0.2)
    m = round(0.1 * rate)
    while t < n / rate - 0.2:
        k = int(rng.integers(1, 4))
        freqs = rng.uniform(300.0, 6000.0, k).tolist()
        taus = (rng.uniform(0.005, 0.060, k) / 6.9).tolist()
        contact = rng.uniform(0.0003, 0.0015)
        for _ in range(int(rng.integers(2, 5))):
            p = _pulse(rate, contact)
            ring = _ring(m, rate, freqs, taus, rng)
            ev = np.convolve(ring / (np.abs(ring).max() + 1e-20), p)[:m] / p.sum() * rng.uniform(2.0, 6.0)
            ev[: len(p)] += p * rng.uniform(0.3, 1.0)
            ev *= 10.0 ** ((level + rng.normal(0.0, 3.0)) / 20.0) / (np.abs(ev).max() + 1e-20)
            i = round(t * rate)
            x[i: i + m] += ev[: n - i]
            t += 1.0 / rng.uniform(4.0, 8.0)
        t += rng.uniform(0.4, 1.5)
    return x


def phone(x: np.ndarray, rate: int, rng: np.random.Generator) -> np.ndarray:
    """``x`` as a phone records it: a 80-250 Hz high-pass (a small MEMS capsule), an AGC
    (an envelope on 1 ms frames, 1-5 ms attack, 50-300 ms release, 3-8:1 above a threshold
    10-25 dB under the loudest frame, then make-up gain to -3 dBFS: quiet passages and the
    floor come up), and the channel: 300-3400 Hz through an 8 kHz rate (4 in 10) or a
    codec's high cut at 7-16 kHz (8th-order low-pass)."""
    from scipy.signal import butter, resample_poly, sosfilt

    y = sosfilt(butter(2, rng.uniform(80.0, 250.0), "hp", fs=rate, output="sos"), x)
    f = max(1, round(0.001 * rate))
    frames = len(y) // f
    rms = np.sqrt(np.mean(y[: frames * f].reshape(frames, f) ** 2, axis=1) + 1e-20)
    att, rel = np.exp(-1.0 / rng.uniform(1.0, 5.0)), np.exp(-1.0 / rng.uniform(50.0, 300.0))
    env = np.empty(frames)
    e = float(rms[0]) if frames else 0.0
    for i, r in enumerate(rms.tolist()):
        e = (att if r > e else rel) * e + (1.0 - (att if r > e else rel)) * r
        env[i] = e
    env_db = 20.0 * np.log10(env + 1e-20)
    thresh = float(env_db.max()) - rng.uniform(10.0, 25.0) if frames else 0.0
    ratio = rng.uniform(3.0, 8.0)
    gain_db = -np.maximum(0.0, env_db - thresh) * (1.0 - 1.0 / ratio)
    gain = np.interp(np.arange(len(y)), np.arange(frames) * f + f / 2.0, 10.0 ** (gain_db / 20.0))
    y = y * gain
    if rng.random() < 0.4:
        y = sosfilt(butter(4, [300.0, 3400.0], "bp", fs=rate, output="sos"), y)
        y = resample_poly(resample_poly(y, 1, rate // 8000), rate // 8000, 1)[: len(x)] if rate % 8000 == 0 else y
    else:
        y = sosfilt(butter(8, min(rng.uniform(7000.0, 16000.0), 0.45 * rate), "lp", fs=rate, output="sos"), y)
    return np.asarray(y * (10.0 ** (-3.0 / 20.0) / (np.abs(y).max() + 1e-20)), np.float64)


def everyday(kind: str, rate: int, rng: np.random.Generator, seconds: float = 6.0) -> np.ndarray:
    """A clip of ``kind`` (``EVERYDAY_KINDS``): a train of keystrokes, footsteps on gravel or
    knuckle knocks, in a synthetic room (``room_tail``) over a pink floor at -65..-45 dBFS;
    ``phone_knock`` then goes through ``phone`` (its floor too, as a phone hears it)."""
    n = round(seconds * rate)
    make = {"typing": _typing, "gravel": _gravel, "phone_knock": _knocks}.get(kind)
    if make is None:
        raise ValueError(f"everyday kind must be one of {EVERYDAY_KINDS}, got {kind!r}")
    floor = noise("pink", n, rate, rng) * 10.0 ** (rng.uniform(-65.0, -45.0) / 20.0)
    x = room_tail(make(n, rate, rng), rate, rng) + floor
    if kind == "phone_knock":
        x = phone(x, rate, rng)
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
