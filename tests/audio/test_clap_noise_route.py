"""The floor route (``sensekit.audio.clap_floor``, ``clap.noise_route``) and the venue deciding it.

Unit checks of the floor statistic on seeded synthetic noise; behaviour on real clips: taught in
steady noise (a clap clip mixed with white or pink noise at 10 dB) ``calibrate --claps``
keeps the route on (the default) and the second half gives more claps than with the route off
and no more false ones; taught in a quiet room (claps 40+ dB over a steady floor: eldar's own
room, tr's room noise) it switches it off, and tr's room noise stays silent either way.
"""
from __future__ import annotations

import numpy as np
import pytest

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_floor import FLOOR_SPLIT_DB, FloorRoute
from sensekit.audio.clap_loudness import clap_loudness
from sensekit.audio.clap_teach import room_floor, teach
from sensekit.evaluation.audio.clap_augment import noise
from sensekit.evaluation.audio.clap_training import resample
from sensekit.evaluation.audio.evaluate import match, read_clips, read_wav

RATE = 48000


def stream(x: np.ndarray, rate: int, **settings) -> list[float]:
    det = ClapDetector(**settings)
    out: list[float] = []
    for k, i in enumerate(range(0, len(x), 512)):
        out += [c.t for c in det.process(x[i:i + 512], i / rate, rate, index=k)]
    return out


def settings_of(lesson) -> dict:
    return {k.split(".", 1)[1]: v for k, v in lesson.values.items()}


@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_floor_spread_tells_steady_noise_from_a_swelling_floor_and_silence(rate):
    rng = np.random.default_rng(3)
    route = FloorRoute(rate)
    n = route.pre + rate // 10
    p = route.pre
    white = rng.standard_normal(n).astype(np.float32)
    swell = (white * (1.0 + 0.9 * np.sin(2 * np.pi * 3.0 * np.arange(n) / rate))).astype(np.float32)
    gated = white.copy()
    gated[p // 2: p // 2 + rate // 50] = 0.0            # 20 ms of digital silence in the floor
    assert route.floor_spread_db(white, p) < FLOOR_SPLIT_DB
    assert route.floor_spread_db(100.0 * white, p) == pytest.approx(route.floor_spread_db(white, p), abs=1e-3)
    assert route.floor_spread_db(swell, p) > 3 * FLOOR_SPLIT_DB
    assert route.floor_spread_db(gated, p) == 60.0


@pytest.fixture(scope="module")
def eldar(shared_data):
    clip = next(c for c in read_clips(shared_data) if c.file.endswith("clap_sparse_eldar-sample2.wav"))
    x, rate = read_wav(shared_data / clip.file)
    assert rate == RATE
    return x.astype(np.float64), list(clip.onsets)


@pytest.mark.parametrize("kind", ["white", "pink"])
def test_taught_in_steady_noise_the_route_finds_more_claps_and_no_more_false_ones(eldar, kind):
    x, onsets = eldar
    loud = clap_loudness(x, RATE, onsets)
    nz = noise(kind, 2 * len(x), RATE, np.random.default_rng(7)) * loud * 10.0 ** (-10.0 / 20.0)
    y = (x + nz[:len(x)]).astype(np.float32)            # the claps at 10 dB SNR
    room = nz[len(x):].astype(np.float32)                # the same room without claps
    half = len(x) // 2
    lesson = teach(y[:half], room[:half], RATE)
    print(lesson.summary())
    assert lesson.noise_route and lesson.values["clap.noise_route"] is True
    assert "noise route: on" in lesson.summary()
    truth = [t - half / RATE for t in onsets if t >= half / RATE + 0.05]
    # the route against no route, the close-call wait off on both sides: with it on (the default),
    # the wait finds in pink at 10 dB the claps the route finds (5 of 8 either way), so the
    # route's own gain is measured without it, and with it the route loses nothing
    before = match(stream(y[half:], RATE, noise_route=False, close_call_wait=False), truth)
    after = match(stream(y[half:], RATE, **{**settings_of(lesson), "close_call_wait": False}), truth)
    print(before, after)
    assert after.tp > before.tp
    assert after.fp <= before.fp
    waited = match(stream(y[half:], RATE, noise_route=False), truth)
    both = match(stream(y[half:], RATE, **settings_of(lesson)), truth)
    assert both.tp >= max(waited.tp, after.tp) and both.fp <= before.fp
    # the route is on by default now: the untaught detector already finds what the taught one does
    assert match(stream(y[half:], RATE), truth).tp == after.tp


def test_taught_in_a_quiet_room_the_route_stays_off(eldar):
    x, onsets = eldar
    first = onsets[0] - 0.1
    room = x[:round(first * RATE)].astype(np.float32)   # eldar's room before the first clap
    claps = x[round(first * RATE):len(x) // 2].astype(np.float32)
    spread, _ = room_floor(room, RATE)
    assert spread < FLOOR_SPLIT_DB                      # a steady floor ...
    lesson = teach(claps, room, RATE)
    print(lesson.summary())
    assert lesson.clap_snr_db > 35.0                     # ... that the claps stand far over
    assert lesson.values["clap.noise_route"] is False
    assert "noise route: off" in lesson.summary()


def test_a_venue_switched_off_is_streamed_with_the_route_off(eldar, monkeypatch):
    """The decision is compared with the detector's default (on), not with False: the claps are
    streamed again and the room is streamed with the route off once the lesson says off."""
    from sensekit.audio import clap_teach

    x, onsets = eldar
    first = onsets[0] - 0.1
    room = x[:round(first * RATE)].astype(np.float32)
    claps = x[round(first * RATE):len(x) // 2].astype(np.float32)
    seen: list[tuple[int, object]] = []
    real = clap_teach._stream

    def spy(y, rate, settings, gain, block=1024, detector=ClapDetector):
        seen.append((len(y), detector(**settings).noise_route))
        return real(y, rate, settings, gain, block, detector=detector)

    monkeypatch.setattr(clap_teach, "_stream", spy)
    lesson = teach(claps, room, RATE)
    assert lesson.values["clap.noise_route"] is False
    assert seen[0] == (len(claps), True)                 # heard with the default: the route on
    assert (len(claps), False) in seen[1:]               # then again as decided
    assert [r for n, r in seen if n == len(room)] == [False]   # the room: with the route off


def test_taught_in_tr_room_the_route_stays_off_and_the_room_stays_silent(eldar, shared_data):
    x, onsets = eldar
    tr, tr_rate = read_wav(shared_data / "audio" / "tr_silence-2.wav")
    # the quiet tick at 2.65 s fired with the eighth pass's expert; the eleventh pass's does not
    assert not stream(tr, tr_rate, noise_route=True)
    assert not stream(tr, tr_rate, noise_route=False)
    floor = resample(tr.astype(np.float64), tr_rate, RATE)
    half = len(x) // 2
    _, floor_rms = room_floor(floor.astype(np.float32), RATE)
    floor *= clap_loudness(x, RATE, onsets) / (floor_rms * 10.0 ** (40.0 / 20.0))   # claps 40 dB over it
    claps = (x[:half] + np.tile(floor, -(-half // len(floor)))[:half]).astype(np.float32)
    lesson = teach(claps, floor.astype(np.float32), RATE)
    print(lesson.summary())
    assert lesson.claps_heard >= 3
    assert lesson.floor_spread_db < FLOOR_SPLIT_DB and lesson.clap_snr_db > 35.0
    assert lesson.values["clap.noise_route"] is False
    assert not stream(tr, tr_rate, **settings_of(lesson))


def test_route_on_gives_the_same_claps_at_any_block_size_and_when_switched_on_mid_stream(eldar):
    x, onsets = eldar
    loud = clap_loudness(x, RATE, onsets)
    y = (x + noise("white", len(x), RATE, np.random.default_rng(5)) * loud * 10.0 ** (-10.0 / 20.0)).astype(np.float32)
    on = stream(y, RATE, noise_route=True)
    assert len(on) > len(stream(y, RATE, noise_route=False))   # the route matters on this mix
    assert stream(y, RATE) == on                                 # (on by default)
    for block in (256, 1024, 4096):
        det = ClapDetector(noise_route=True)
        got = [c.t for i in range(0, len(y), block) for c in det.process(y[i:i + block], i / RATE, RATE)]
        assert got == on
    det = ClapDetector(noise_route=False)
    switch = len(y) // 4
    late: list[float] = []
    for k, i in enumerate(range(0, len(y), 512)):
        if i >= switch and not det.noise_route:
            det.apply_now(noise_route=True)
        late += [c.t for c in det.process(y[i:i + 512], i / RATE, RATE, index=k) if c.t > switch / RATE + 1.0]
    assert late == [t for t in on if t > switch / RATE + 1.0]


def _spread_as_defined(x: np.ndarray, p: int, rate: int) -> float:
    """``floor_spread_db`` written out as its docstring says: every frame's log power, sorted."""
    n, every = round(rate * 0.006), round(rate * 0.012)
    a = p - round(rate * 0.304) - 1
    d = np.diff(x[a: a + 25 * every + 1]).reshape(25, every)[:, :n].astype(np.float64)
    pw = (d * d).sum(axis=1)
    if np.count_nonzero(pw) != 25:
        return 60.0
    lv = np.sort(np.log10(pw + pw.max() * 1e-6))
    return 10.0 * float(lv[22] - lv[2])


@pytest.mark.parametrize("rate", [16000, 44100, 48000])
def test_floor_spread_is_the_range_of_the_middle_frames_log_powers(rate):
    rng = np.random.default_rng(rate)
    x = rng.standard_normal(3 * rate).astype(np.float32)
    x[rate: rate + rate // 2] *= np.linspace(1.0, 30.0, rate // 2, dtype=np.float32)   # a swell
    x[2 * rate + 100: 2 * rate + 400] = 0.0                                             # silence
    fr = FloorRoute(rate)
    got = [fr.floor_spread_db(x, p) for p in range(fr.pre, len(x), 997)]
    want = [_spread_as_defined(x, p, rate) for p in range(fr.pre, len(x), 997)]
    assert np.allclose(got, want, rtol=0, atol=1e-3)      # (the frames summed in float32)
    assert min(got) < FLOOR_SPLIT_DB < max(got) and 60.0 in got     # every branch was taken


def test_the_experts_trees_are_built_with_the_detector_not_on_a_block_or_a_clap(eldar, monkeypatch):
    from sensekit.audio import clap_floor

    x, onsets = eldar
    loud = clap_loudness(x, RATE, onsets)
    y = (x + noise("white", len(x), RATE, np.random.default_rng(5)) * loud * 10.0 ** (-10.0 / 20.0)).astype(np.float32)
    clap_floor.expert.cache_clear()
    ClapDetector(noise_route=False)
    assert clap_floor.expert.cache_info().currsize == 0          # off: the expert is not built
    det = ClapDetector()                                         # on by default, no rate yet
    assert clap_floor.expert.cache_info().currsize == 1
    later = ClapDetector(noise_route=False)
    later.apply_now(noise_route=True)                            # switched on before its first block
    clap_floor.expert.cache_clear()
    later.apply_now(noise_route=False)
    later.apply_now(noise_route=True)
    assert clap_floor.expert.cache_info().currsize == 1
    built = clap_floor.expert.cache_info().misses
    routed: list[float] = []
    score = FloorRoute.score

    def noting(self, xb, p, vals):
        s = score(self, xb, p, vals)
        if s is not None:
            routed.append(s)
        return s

    monkeypatch.setattr(FloorRoute, "score", noting)
    claps = [c.t for i in range(0, len(y), 512) for c in det.process(y[i:i + 512], i / RATE, RATE)]
    assert routed and claps                                      # the expert judged bursts here ...
    assert clap_floor.expert.cache_info().misses == built        # ... with the trees built before


def test_a_burst_the_route_takes_is_not_scored_by_the_shipped_trees(eldar, monkeypatch):
    """The route answers first; the shipped trees score only the bursts it leaves (their score
    of a routed burst was thrown away), and every judged burst keeps the score that decides."""
    from sensekit.audio import clap as clap_mod

    x, onsets = eldar
    loud = clap_loudness(x, RATE, onsets)
    y = (x + noise("white", len(x), RATE, np.random.default_rng(7)) * loud * 10.0 ** (-10.0 / 20.0)).astype(np.float32)
    answers: list[float | None] = []
    trees: list[float] = []
    route_score, trees_score = FloorRoute.score, clap_mod.clap_score

    def route_noting(self, xb, p, vals):
        answers.append(route_score(self, xb, p, vals))
        return answers[-1]

    def trees_noting(v, model=None):
        trees.append(trees_score(v, model))
        return trees[-1]

    monkeypatch.setattr(FloorRoute, "score", route_noting)
    monkeypatch.setattr(clap_mod, "clap_score", trees_noting)
    det = ClapDetector()
    det.keep_features = True
    for k, i in enumerate(range(0, len(y), 512)):
        det.process(y[i:i + 512], i / RATE, RATE, index=k)
    routed = [s for s in answers if s is not None]
    assert len(answers) == len(det.features) and len(routed) >= 5
    assert len(trees) == len(answers) - len(routed)
    got, it_t, it_r = [f.score for f in det.features], iter(trees), iter(routed)
    assert got == [next(it_r) if s is not None else next(it_t) for s in answers]
