"""What the 8 kHz developer digits lose in PocketSphinx, and two alternatives to keyword spotting.

    python benchmarks/voice_narrowband.py [--front-end] [--margin] [--takes N]

Every take of ../shared/data/words is cut by the real ``VoiceStage`` chain (8 kHz -> soxr 16 kHz
-> WebRTC VAD), as ``benchmarks/voice_eval.py`` does; the longest segment of each take is then
decoded directly with the wheel's model (batch cepstral mean, the model's own mean restored
before each segment, as ``sensekit.audio.words`` does).

``--front-end``: closed-set recognition of the ten digits (a one-of-ten JSGF grammar), per
speaker, for front-end variants aimed at narrowband input: as shipped (noise removal off);
noise removal on; the mel filters ending at 4 kHz instead of 6.8 kHz (``-upperf 4000``, and
with 20 filters); Gaussian noise above 3.9 kHz at a fixed level (the empty band is what the
upsampled audio lacks); and a crude bandwidth extension (``widen``: the 4-8 kHz bins of a
512-point STFT filled with the 3-3.9 kHz band's RMS, random phase, a fixed seed); and the front
end of CMU's 8 kHz model (200-3500 Hz, 31 filters) used with the wheel's 16 kHz model.

``--margin``: keyword detection as a grammar decode of the three command words against an
allphone (phone-loop, with the wheel's phone language model) decode of the same segment; the
score is their log-score difference per frame, the threshold chosen on two speakers (at most
3 % false accepts on their non-target digits) and applied to the third, for five triples of
command digits. Cost: ~10 decodes per take; several minutes on a loaded machine (``nice``).
"""
from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from voice_eval import DIGITS, load_digits, take_segments

TRIPLES = ((1, 5, 9), (0, 2, 7), (3, 6, 8), (2, 4, 6), (0, 5, 8))


def decoder(words: Sequence[str], *, feat: dict[str, float] | None = None,
            remove_noise: str = "no") -> tuple[Any, Path]:
    """A PocketSphinx ``Decoder`` (no type hints: Any) for ``words`` and its model folder."""
    import pocketsphinx as ps

    root = Path(ps.get_model_path()) / "en-us"
    lex: dict[str, list[str]] = {}
    with open(root / "cmudict-en-us.dict", encoding="utf-8") as f:
        for line in f:
            lex.setdefault(line.split(" ", 1)[0].split("(")[0], []).append(line)
    params = (root / "en-us" / "feat.params").read_text().replace("-remove_noise yes", f"-remove_noise {remove_noise}")
    for k, v in (feat or {}).items():
        params = re.sub(rf"-{k} \S+", f"-{k} {v}", params)
    tmp = Path(tempfile.mkdtemp(prefix="sensekit-nb-"))
    (tmp / "feat.params").write_text(params)
    (tmp / "w.dict").write_text("".join(line for w in words for line in lex[w]))
    return ps.Decoder(samprate=16000, lm=None, featparams=str(tmp / "feat.params"), dict=str(tmp / "w.dict"),
                      logfn=os.devnull), root


def decode(d: Any, cmn: Any, pcm: np.ndarray) -> Any:
    """The decoder's hypothesis for ``pcm`` (PocketSphinx's ``Hypothesis`` or None)."""
    d.set_cmn(cmn)
    d.start_utt()
    d.process_raw(pcm.tobytes(), False, True)
    d.end_utt()
    return d.hyp()


def hf_noise(pcm: np.ndarray, rms: float, seed: int = 0) -> np.ndarray:
    n = np.random.default_rng(seed).standard_normal(len(pcm))
    spec = np.fft.rfft(n)
    spec[np.fft.rfftfreq(len(pcm), 1 / 16000) < 3900] = 0
    n = np.fft.irfft(spec, len(pcm))
    n *= rms / (n.std() + 1e-12)
    return np.clip(pcm + n, -32768, 32767).astype(np.int16)


def widen(pcm: np.ndarray, seed: int = 0) -> np.ndarray:
    from scipy.signal import istft, stft

    f, _, z = stft(pcm.astype(np.float64), fs=16000, nperseg=512, noverlap=384)
    src, dst = (f >= 3000) & (f < 3900), f >= 4000
    level = np.sqrt((np.abs(z[src]) ** 2).mean(axis=0))
    phase = np.exp(2j * np.pi * np.random.default_rng(seed).random((int(dst.sum()), z.shape[1])))
    z[dst] = level[None, :] * phase
    _, y = istft(z, fs=16000, nperseg=512, noverlap=384)
    out: np.ndarray = np.clip(y[:len(pcm)], -32768, 32767).astype(np.int16)
    return out


def front_end(pcms: Sequence[np.ndarray], labels: np.ndarray, speakers: np.ndarray) -> None:
    variants: list[tuple[str, dict[str, float], str, Callable[[np.ndarray], np.ndarray] | None]] = [
                ("as shipped", {}, "no", None), ("noise removal on", {}, "yes", None),
                ("upperf 4000", {"upperf": 4000}, "no", None),
                ("upperf 3800, 20 filters", {"upperf": 3800, "nfilt": 20}, "no", None),
                ("noise > 3.9 kHz, rms 10", {}, "no", lambda p: hf_noise(p, 10.0)),
                ("noise > 3.9 kHz, rms 30", {}, "no", lambda p: hf_noise(p, 30.0)),
                ("widen (3-3.9 kHz level to 4-8 kHz)", {}, "no", widen),
                ("CMU's 8 kHz settings: 200-3500 Hz, 31 filters", {"lowerf": 200, "upperf": 3500, "nfilt": 31},
                 "no", None)]
    grammar = "#JSGF V1.0;\ngrammar g;\npublic <s> = " + " | ".join(DIGITS) + ";\n"
    truth = np.array([DIGITS[v] for v in labels])
    print("closed-set ten-digit accuracy    all  " + "  ".join(sorted(set(speakers))))
    for name, feat, rn, prep in variants:
        d, _ = decoder(DIGITS, feat=feat, remove_noise=rn)
        d.add_jsgf_string("g", grammar)
        d.activate_search("g")
        cmn = d.get_cmn()
        hyp: list[str] = []
        for p in pcms:
            h = decode(d, cmn, prep(p) if prep else p)
            hyp.append(h.hypstr.strip() if h else "")
        ok = np.array(hyp) == truth
        per = "  ".join(f"{ok[speakers == s].mean():.3f}" for s in sorted(set(speakers)))
        print(f"{name:<34} {ok.mean():.3f}  {per}", flush=True)


def margin(pcms: Sequence[np.ndarray], labels: np.ndarray, speakers: np.ndarray, fa: float = 0.03) -> None:
    d, root = decoder(DIGITS)
    for t in TRIPLES:
        d.add_jsgf_string(str(t), "#JSGF V1.0;\ngrammar g;\npublic <s> = " + " | ".join(DIGITS[v] for v in t) + ";\n")
    d.add_allphone_file("loop", str(root / "en-us-phone.lm.bin"))
    log, cmn = d.get_logmath(), d.get_cmn()
    n = len(pcms)
    loop, frames = np.full(n, np.nan), np.ones(n)
    cmd, best = np.full((n, len(TRIPLES)), np.nan), np.full((n, len(TRIPLES)), -1)
    for i, p in enumerate(pcms):
        d.activate_search("loop")
        h = decode(d, cmn, p)
        loop[i], frames[i] = (log.log(h.score) if h else np.nan), max(d.n_frames(), 1)
        for j, t in enumerate(TRIPLES):
            d.activate_search(str(t))
            h = decode(d, cmn, p)
            if h is not None and h.hypstr.strip() in DIGITS:
                cmd[i, j], best[i, j] = log.log(h.score), DIGITS.index(h.hypstr.strip())
    print("\ncommands grammar vs phone loop, leave one speaker out")
    print("commands            held out   recall  false accepts")
    rows: list[tuple[float, float]] = []
    for j, t in enumerate(TRIPLES):
        m = np.where(np.isnan(cmd[:, j] - loop), -np.inf, (cmd[:, j] - loop) / frames)
        target, right = np.isin(labels, t), best[:, j] == labels
        for held in sorted(set(speakers)):
            train, test = speakers != held, speakers == held
            neg = np.sort(m[train & ~target])[::-1]
            thr = neg[int(np.floor(fa * len(neg)))] + 1e-9
            acc = m >= thr
            rows.append(((acc & right)[test & target].mean(), acc[test & ~target].mean()))
            words = ",".join(DIGITS[v] for v in t)
            print(f"{words:<19} {held:<10} {rows[-1][0]:6.3f}  {rows[-1][1]:13.3f}", flush=True)
    r = np.array(rows)
    print(f"mean recall {r[:, 0].mean():.3f}, mean false accepts {r[:, 1].mean():.3f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--takes", type=int, default=50)
    ap.add_argument("--front-end", action="store_true")
    ap.add_argument("--margin", action="store_true")
    args = ap.parse_args()
    digits = load_digits(args.takes)
    labels = np.array([c[0] for c in digits])
    speakers = np.array([c[1] for c in digits])
    pcms = [s.pcm if s is not None else np.zeros(1600, np.int16) for s in take_segments(digits)]
    if args.front_end or not args.margin:
        front_end(pcms, labels, speakers)
    if args.margin or not args.front_end:
        margin(pcms, labels, speakers)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
