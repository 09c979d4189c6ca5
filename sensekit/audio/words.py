"""Command words in a speech segment: PocketSphinx keyword spotting with the wheel's English model.

``WordSpotter(words)`` builds one PocketSphinx decoder (the ``voice`` extra: ``pocketsphinx``
5.x ships its US-English acoustic model and 134k-word dictionary inside the wheel; nothing is
downloaded) in keyword-spotting mode over the listed words. ``spot(segment)`` decodes one
voiced segment (``sensekit.audio.vad``) and returns the best listed word as a ``Word`` event,
or ``None``:

- every listed word is scored against a free phone loop over the frames it spans (the
  decoder's own garbage model): ``score`` is that log-likelihood ratio per 10 ms frame
  (PocketSphinx log units / 100; about -0.4 for a clear word), so a short word and a long one are judged alike;
- the word must cover ``min_coverage`` (0.6) of the segment's voiced part: a command is said
  on its own, and "one" heard inside "seven one nine" or inside a song is not a command;
- the best word is reported when its score reaches ``threshold``; ``confidence`` is a
  logistic of the margin (0.5 at the threshold, ~0.9 one ``CONF_SCALE`` above).

The default threshold (-0.8) is the median of the thresholds that ``benchmarks/voice_eval.py``
chose on pairs of developer speakers (3 % false accepts on the non-target digits). The wheel's model
is trained on 16 kHz speech; audio at 8 kHz (telephone band) is upsampled (its empty top band
filled by ``sensekit.audio.narrowband.widen_band`` when ``band_hz`` is set: the
``voice.widen_band`` setting) and recognised less well. Speaker independence is the model's:
accents far from US English score lower. The front end's noise removal is off (it is tuned
for long utterances and costs recall on words).

Cost: decoding ~0.02-0.05 s per second of speech on one core; nothing for silence (the
segmenter does not call it). Fails with ``ConfigError`` naming a word that is not in the
dictionary, and with ``ConfigError`` naming the install when the extra is missing.
"""
from __future__ import annotations

import math
import os
import tempfile
from pathlib import Path
from typing import Any

from sensekit.arg_types import checked
from sensekit.audio.narrowband import widen_band
from sensekit.audio.vad import RATE, Segment
from sensekit.errors import ConfigError
from sensekit.safe_read import clip
from sensekit.events import Word
from sensekit.installed import install_hint

__all__ = ["WordSpotter", "check_in_dictionary", "require_voice", "INSTALL_HINT", "CONF_SCALE"]

INSTALL_HINT = f"voice commands need the voice extra: {install_hint('voice')}"
CONF_SCALE = 0.1          # score units: confidence 0.5 at the threshold, 0.92 at +2.5 scales
_KWS_THRESHOLD = "1e-60"  # the decoder reports every candidate; ``threshold`` decides


def require_voice() -> Any:
    """The ``pocketsphinx`` module, or ``ConfigError`` saying what to install."""
    try:
        import pocketsphinx
        import webrtcvad  # noqa: F401 - checked here so the message names the extra once
    except ImportError:
        raise ConfigError(INSTALL_HINT) from None
    return pocketsphinx


_LEXICONS: dict[Path, dict[str, list[str]]] = {}


def _lexicon(path: Path) -> dict[str, list[str]]:
    """The wheel's pronouncing dictionary: word -> its lines (alternates ``word(2)`` included),
    read once per process (~0.3 s for 134k words)."""
    found = _LEXICONS.get(path)
    if found is None:
        found = {}
        with open(path, encoding="utf-8") as f:
            for line in f:
                head = line.split(" ", 1)[0]
                found.setdefault(head.split("(", 1)[0], []).append(line if line.endswith("\n") else line + "\n")
        _LEXICONS[path] = found
    return found


def check_in_dictionary(words: tuple[str, ...] | list[str]) -> dict[str, list[str]]:
    """``ConfigError`` naming the ``words`` (lower case) the recogniser's dictionary lacks;
    else the dictionary (read once per process)."""
    root = Path(require_voice().get_model_path()) / "en-us"
    lexicon = _lexicon(root / "cmudict-en-us.dict")
    missing = [w for w in words if w not in lexicon]
    if missing:
        raise ConfigError(f"not in the recogniser's English dictionary: {clip(', '.join(missing))} "
                          "(use common English spellings, or teach them from takes: sensekit teach "
                          "words --profile FILE, and run with that --profile)")
    return lexicon


class WordSpotter:
    """Keyword spotting over a list of English words (see the module docstring)."""

    @checked
    def __init__(self, words: tuple[str, ...] | list[str], *, threshold: float = -0.8,
                 min_coverage: float = 0.6) -> None:
        ps = require_voice()
        if not words:
            raise ConfigError("give at least one command word (--words left,right,jump)")
        self.words = tuple(w.lower() for w in words)
        self.threshold = float(threshold)
        self.min_coverage = float(min_coverage)
        root = Path(ps.get_model_path()) / "en-us"
        lexicon = check_in_dictionary(self.words)
        params = (root / "en-us" / "feat.params").read_text().replace("-remove_noise yes", "-remove_noise no")
        with tempfile.TemporaryDirectory(prefix="sensekit-voice-") as tmp:
            feat = Path(tmp) / "feat.params"
            feat.write_text(params)
            small = Path(tmp) / "words.dict"             # only the listed words: loads in ms
            small.write_text("".join(line for w in self.words for line in lexicon[w]))
            self._decoder = ps.Decoder(samprate=RATE, lm=None, featparams=str(feat), dict=str(small),
                                       logfn=os.devnull)
            keys = Path(tmp) / "words.kws"
            keys.write_text("".join(f"{w} /{_KWS_THRESHOLD}/\n" for w in self.words))
            self._decoder.add_kws("words", str(keys))
        self._decoder.activate_search("words")
        self._log = self._decoder.get_logmath()
        # the decoder carries its cepstral mean from one utterance to the next; every segment
        # starts from the model's own, so a word is heard the same whatever came before it
        self._cmn = self._decoder.get_cmn()
        self.decoded_s = 0.0          # seconds of audio decoded (the cost that matters)
        # the source's band (half its sample rate; VoiceStage sets it): a narrow band is widened
        self.band_hz: float | None = None

    def scores(self, segment: Segment) -> list[tuple[str, float, float, float]]:
        """Every candidate ``(word, score, start, end)`` that covers enough of ``segment``."""
        d = self._decoder
        pcm = segment.pcm
        if self.band_hz is not None:
            pcm = widen_band(pcm, band_hz=self.band_hz)
        self.decoded_s += len(pcm) / RATE
        d.set_cmn(self._cmn)
        d.start_utt()
        d.process_raw(pcm.tobytes(), False, True)     # the whole segment: batch cepstral mean
        d.end_utt()
        t0 = segment.t0                           # the decoder's frames are 10 ms from pcm[0]
        voiced = max(segment.end - segment.start, 0.01)
        out = []
        for s in d.seg() or ():
            word = s.word.strip()
            if word not in self.words:
                continue
            start, end = t0 + s.start_frame / 100.0, t0 + (s.end_frame + 1) / 100.0
            overlap = min(end, segment.end) - max(start, segment.start)
            if overlap / voiced < self.min_coverage:
                continue
            frames = s.end_frame - s.start_frame + 1
            out.append((word, self._log.log(s.prob) / frames / 100.0, start, end))
        return out

    def spot(self, segment: Segment, t: float) -> Word | None:
        """The best listed word in ``segment`` if it reaches the threshold (event time ``t``)."""
        best = max(self.scores(segment), key=lambda c: c[1], default=None)
        if best is None or best[1] < self.threshold:
            return None
        word, score, start, end = best
        conf = 1.0 / (1.0 + math.exp(-(score - self.threshold) / CONF_SCALE))
        return Word(t=t, word=word, start=start, end=end, confidence=conf)
