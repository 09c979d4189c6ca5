"""Command words taught from recorded takes: speech embedding + word classifier, as ``word`` events.

``teach_words({"left": [segments...], ...}, others=[segments...])`` embeds every take's
voiced segment (``sensekit.audio.speech_embedding``) and fits a ``WordClassifier`` on them:
the commands, and ``others`` (any other speech: other words, chatter) as what to refuse.
Takes from several people make it speaker-independent; takes from one person make it that
person's. The result is a ``TaughtWords``; ``to_tables()``/``from_tables()`` keep it in the
venue profile as ``[taught_words.classifier]`` (plain arrays, see ``word_classifier``), so a
replay with the same profile gives the same events.

``teach_words(..., parts_as_other=True)`` (``teach words --refuse-parts``) also teaches the first
and last 40 % of every take (``word_parts``) as other speech. For words taught by one person from
4-5 takes it cut false accepts on that person's other digits from 0.270 to 0.099 and on pieces of
words from 0.574 to 0.018, for 0.017 less recall (``benchmarks/voice_few_takes.py``); with takes
of several people it costs recall (0.960 -> 0.895). By default (``parts_as_other=None``) it is on
when the takes sound like one voice (``sensekit.audio.take_voices``, measured by
``benchmarks/voice_one_voice.py``). It costs two more embeddings per take at teach time.

``teach_words(..., near_takes=True)`` (``teach words --refuse-unlike``) keeps the takes' embeddings
(``sensekit.audio.open_set.NearTakes``, ``[taught_words.near_takes]`` in the profile): a segment
far from every take of the word the classifier heard is refused, so words never said while
teaching stop firing (one person, 5 takes in a row of 3 or 5 digits: 0.343 -> 0.198 of the digits
never said, 15.0 -> 4.7 words a minute on running speech, 0.008 less recall; ``benchmarks/voice_open_set.py``).
By default (``None``) it is on when the takes sound like one voice, as for the parts.

The embedding window (``window_s``, 0.96 s) is kept in the table with the classifier, so a
profile is always heard with the window it was taught with.

``TaughtWords.spot(segment, t, among=..., threshold=...)`` embeds one voiced segment and returns a
``Word`` event (``confidence``: the word's probability) for the most likely of the ``among``
words when its probability reaches ``threshold`` (the voice stage passes its setting
``voice.taught_threshold``, declared there alone: 0.2, for each developer
speaker, the median of the nested thresholds of ``benchmarks/voice_embed_eval.py`` found
without that speaker is 0.195-0.208). The most likely taught word must be listed: a segment
most like a taught word that the run does not list gives nothing.

Cost: the embedding, ~10-20 ms per segment on an idle core (up to ~80 ms on a loaded one),
only when a segment closes; teaching ~0.1 s per take plus ~1 s of fitting. Failure modes:
``ConfigError`` naming the install without the extra, and naming the profile when its table
is damaged.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from sensekit.audio.open_set import NearTakes
from sensekit.audio.sounds import check_taught_name
from sensekit.audio.speech_embedding import MAX_WINDOW_S, MIN_WINDOW_S, WINDOW_S, SpeechEmbedder, embedding_size
from sensekit.audio.take_voices import one_voice, voice_spread
from sensekit.audio.vad import Segment
from sensekit.audio.word_classifier import OTHER, WordClassifier
from sensekit.errors import ConfigError
from sensekit.safe_read import stored_number
from sensekit.events import Word

__all__ = ["TaughtWords", "teach_words", "word_parts", "TAUGHT_WORDS_TABLE", "PART"]

TAUGHT_WORDS_TABLE = "taught_words"
_KEY = "classifier"
_NEAR = "near_takes"
PART = 0.4           # a part of a take: its first or last 40 % (benchmarks/voice_few_takes.py)


class TaughtWords:
    """A fitted word classifier with the embedder that feeds it (see the module docstring)."""

    def __init__(self, classifier: WordClassifier, *, window_s: float = WINDOW_S,
                 embedder: SpeechEmbedder | None = None, near: NearTakes | None = None) -> None:
        self.classifier = classifier
        self.near = near                # the takes: a segment unlike all of its word's is refused
        self.window_s = float(window_s)
        self._embedder = embedder
        self.embedded = 0               # segments embedded (the cost that matters)
        self.parts_as_other = False     # teach_words: were the parts of the takes taught as other speech
        self.voice_spread = float("nan")  # teach_words: the takes' voice_spread (take_voices)

    @property
    def words(self) -> tuple[str, ...]:
        return self.classifier.words

    def embedder(self) -> SpeechEmbedder:
        if self._embedder is None:
            self._embedder = SpeechEmbedder(window_s=self.window_s)
        return self._embedder

    def spot(self, segment: Segment, t: float, *, threshold: float,
             among: Sequence[str] | None = None) -> Word | None:
        """The most likely taught word in ``segment``, if it is one of ``among`` and its probability
        reaches ``threshold``."""
        self.embedded += 1
        embedding = self.embedder().embed(segment)
        found = self.classifier.decide(embedding, threshold=threshold,
                                       among=tuple(among) if among is not None else None)
        if found is None or (self.near is not None and self.near.refuses(embedding, found[0])):
            return None
        return Word(t=t, word=found[0], start=segment.start, end=segment.end, confidence=found[1])

    def to_tables(self) -> dict[str, dict[str, Any]]:
        tables: dict[str, dict[str, Any]] = {_KEY: {"window_s": self.window_s, **self.classifier.to_table()}}
        if self.near is not None:
            tables[_NEAR] = self.near.to_table()
        return tables

    @classmethod
    def from_tables(cls, tables: Mapping[str, Any], *, where: str = "profile") -> TaughtWords:
        table = tables.get(_KEY)
        if not isinstance(table, Mapping):
            raise ConfigError(f"{where}: [{TAUGHT_WORDS_TABLE}] has no `{_KEY}` table (written by "
                              "sensekit teach words); teach the words again")
        try:
            window_s = stored_number(table.get("window_s", WINDOW_S), "window_s")
            size = embedding_size(window_s)        # the rows must fit it: checked now, not at the first word
        except (TypeError, ValueError, ConfigError):
            raise ConfigError(f"{where}: `window_s` of [{TAUGHT_WORDS_TABLE}.{_KEY}] must be a number "
                              f"{MIN_WINDOW_S:g}..{MAX_WINDOW_S:g}") from None
        classifier = WordClassifier.from_table(table, where=where, features=size)
        near = tables.get(_NEAR)
        if near is not None and not isinstance(near, Mapping):
            raise ConfigError(f"{where}: `{_NEAR}` of [{TAUGHT_WORDS_TABLE}] must be a table; teach the words again")
        return cls(classifier, window_s=window_s,
                   near=NearTakes.from_table(near, words=classifier.words, features=size, where=where)
                   if near is not None else None)


def word_parts(segment: Segment, part: float = PART) -> tuple[Segment, Segment]:
    """The first and the last ``part`` of a take's voiced span, as segments of their own: a
    piece of a word (the end of "nine", a breath after "one") that must not be heard as it."""
    if not 0.0 < part < 1.0:
        raise ConfigError(f"a part of a take must be a fraction 0..1 of it, got {part!r}")
    span = segment.end - segment.start
    return (Segment(segment.start, segment.start + part * span, segment.pcm, segment.t0),
            Segment(segment.end - part * span, segment.end, segment.pcm, segment.t0))


def teach_words(takes: Mapping[str, Sequence[Segment]], others: Sequence[Segment], *,
                embedder: SpeechEmbedder | None = None, parts_as_other: bool | None = None,
                near_takes: bool | None = None) -> TaughtWords:
    """Fit the classifier on the takes of each word and on ``others`` (what to refuse).
    ``parts_as_other``: the first and last 40 % of every take (``word_parts``) are other speech
    too (``sensekit teach words --refuse-parts``); ``near_takes``: keep the takes and refuse a
    segment unlike all of its word's (``--refuse-unlike``, ``NearTakes``). ``None`` (the default)
    does each when the takes sound like one voice (``sensekit.audio.take_voices``). The result's
    ``parts_as_other``, ``near`` and ``voice_spread`` say what was done and why."""
    if not takes:
        raise ConfigError("teach at least one word (WORD=FILE,FILE,...)")
    if not others:
        raise ConfigError("the words need takes of other speech to learn what to refuse (--other FILE,...)")
    for word in takes:
        check_taught_name(word, "word")
    spread = voice_spread(takes, others)
    alone = one_voice(spread, max(len(v) for v in takes.values()))
    parts_as_other = alone if parts_as_other is None else parts_as_other
    near_takes = alone if near_takes is None else near_takes
    emb = embedder or SpeechEmbedder()
    x: list[np.ndarray] = []
    y: list[str] = []
    mine: dict[str, list[np.ndarray]] = {}
    for word, segments in takes.items():
        mine[word] = [emb.embed(s) for s in segments]
        x.extend(mine[word])
        y.extend([word] * len(segments))
    pieces = [p for segments in takes.values() for s in segments for p in word_parts(s)] if parts_as_other else []
    x.extend(emb.embed(s) for s in [*others, *pieces])
    y.extend([OTHER] * (len(others) + len(pieces)))
    near = NearTakes({w: np.stack([e.reshape(-1) for e in v]) for w, v in mine.items()}) if near_takes else None
    taught = TaughtWords(WordClassifier().fit(x, y), window_s=emb.window_s, embedder=emb, near=near)
    taught.parts_as_other, taught.voice_spread = parts_as_other, spread
    return taught
