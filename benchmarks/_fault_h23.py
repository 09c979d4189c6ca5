"""The fault matrix's rows for harden23: every public constructor given wrong-typed arguments, and the
values a show loads from its files given the wrong type or an absurd size.

The constructor row runs the sweep of ``tests/test_public_constructors.py`` in this process (every
parameter and every declared setting of the public classes a user builds, derived from the API
reference's module walk). The file rows run ``sensekit events`` in a fresh process (a 120 s limit) on
a damaged copy of a file the script writes: a venue profile whose clap venue model holds 1e308, taught
words whose ``c`` is ``true``, a taught sound whose ``spread`` is ``"3.5"``, a taught gestures model
whose ``k`` is ``"5"``, a recording whose ``meta.json`` switches its audio checksums off (``null``) while
``audio_crc.csv`` lies in the folder and the audio is damaged. No shared data needed. About 35 s.
"""
from __future__ import annotations

import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any, Callable

import numpy as np
from _fault_common import Sweep

Row = Callable[[str, str, str, bool], None]
ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "recordings" / "demo.skrec"


def _names_arg(exc: Exception, owner: str, name: str) -> bool:
    return name in str(exc) and "\n" not in str(exc) and not isinstance(exc, AttributeError)


def _sweep_row(row: Row) -> None:
    sys.path.insert(0, str(ROOT))
    try:                                      # (by name: mypy --strict benchmarks does not read the tests)
        sweep: Any = importlib.import_module("tests.public_classes")
        classes: list[str] = sorted(sweep.SWEPT)
        unlisted = sorted(set(sweep.public_classes()) - set(sweep.SWEPT) - set(sweep.NEEDS) - set(sweep.NOT_SWEPT))
    except ImportError:                       # a checkout without the sweep
        classes, unlisted = [], []
    tally = Sweep()
    here = os.getcwd()
    for qualname in classes:
        cls, base = sweep._load(qualname), sweep.SWEPT[qualname]()
        d = tempfile.mkdtemp()
        os.chdir(d)
        try:
            def call(name: str, cls: Any = cls, base: Any = base) -> Any:
                return sweep._close(cls(**{**base, name: sweep.Wrong()}))
            tally.run(cls.__name__, sweep._params(cls), call, _names_arg)
        finally:
            os.chdir(here)
            shutil.rmtree(d, ignore_errors=True)
    named, total, other = tally.named, tally.total, tally.other
    row("API", f"every parameter and setting of the {len(classes)} public classes a user builds, given a wrong type",
        f"{named} of {total} one line naming the argument; public classes in neither table: {len(unlisted)}"
        + (f"; not: {', '.join(other[:4])}" if other else ""),
        total > 0 and named == total and not unlisted)


def _events(tmp: Path, argv: list[str]) -> tuple[int, list[str]]:
    p = subprocess.run([sys.executable, "-m", "sensekit", "events", *argv], capture_output=True, text=True,
                       timeout=120, cwd=tmp)
    return p.returncode, [ln for ln in p.stderr.strip().splitlines() if ln.strip()]


def _one_line(row: Row, case: str, tmp: Path, argv: list[str], words: str) -> None:
    code, err = _events(tmp, argv)
    said = err[-1][:160] if err else "(nothing on stderr)"
    row("files", case, f"exit {code}, {len(err)} line(s): {said}",
        code == 2 and len(err) == 1 and words in err[0] and "Traceback" not in err[0])


def _taught_words(tmp: Path) -> Path:
    from sensekit.audio.speech_embedding import WINDOW_S, embedding_size
    from sensekit.audio.word_classifier import OTHER, WordClassifier

    rng = np.random.default_rng(5)
    size = embedding_size(WINDOW_S)
    table = WordClassifier().fit(rng.standard_normal((20, 1, size)).astype(np.float32), ["one", OTHER] * 10).to_table()
    lines = ["[taught_words.classifier]", f"window_s = {WINDOW_S}"]
    lines += [f"{k} = {json.dumps(v)}" for k, v in table.items()]
    text = "\n".join(lines).replace("c = 0.05", "c = true") + "\n"
    (tmp / "words.toml").write_text(text)
    return tmp / "words.toml"


def _sounds(tmp: Path) -> Path:
    from sensekit.audio.sounds import SoundBook

    rng = np.random.default_rng(2)
    book = SoundBook()
    book.teach("snap", [rng.standard_normal((12, 13)).astype(np.float32) for _ in range(3)])
    table = book.to_tables()["snap"]
    (tmp / "sounds.toml").write_text(f'[sounds.snap]\nspread = "3.5"\nexamples = {json.dumps(table["examples"])}\n')
    return tmp / "sounds.toml"


def _gestures(tmp: Path) -> Path:
    from sensekit.vision.taught import N_FEATURES, TaughtGestures

    model = TaughtGestures(k=1).fit({"a": [np.zeros(N_FEATURES)], "b": [np.ones(N_FEATURES)]}).to_dict()
    (tmp / "gestures.json").write_text(json.dumps({**model, "k": "5"}))
    return tmp / "gestures.json"


def _hidden_checksums(tmp: Path) -> Path:
    """A copy of the demo whose meta.json says `"checksums": null` for the audio, its samples flipped
    at byte 100,000 of audio.wav: audio_crc.csv still lies in the folder."""
    rec = Path(shutil.copytree(DEMO, tmp / "hidden-crc.skrec"))
    meta = json.loads((rec / "meta.json").read_text())
    meta["audio"]["checksums"] = None
    (rec / "meta.json").write_text(json.dumps(meta))
    data = bytearray((rec / "audio.wav").read_bytes())
    data[100_000] ^= 0xFF
    (rec / "audio.wav").write_bytes(bytes(data))
    return rec


def harden23_rows(tmp: Path, row: Row) -> None:
    _sweep_row(row)
    from sensekit.audio.clap_venue import SIZE

    nums = [float(i % 7 + 1) for i in range(SIZE)]
    nums[0] = 1e308
    (tmp / "venue.toml").write_text(f"[clap]\nvenue_model = {json.dumps(nums)}\n")
    _one_line(row, "events --clap, a profile whose clap.venue_model holds 1e308 (finite, scales > 0)", tmp,
              [str(DEMO), "--clap", "--max-items", "20", "--profile", "venue.toml"], "is not a venue model")
    _one_line(row, "events --words one, taught words whose `c` is true", tmp,
              [str(DEMO), "--words", "one", "--max-items", "20", "--profile", str(_taught_words(tmp))],
              "`c` must be a number, got bool True")
    _one_line(row, "events --sounds, a taught sound whose `spread` is \"3.5\"", tmp,
              [str(DEMO), "--sounds", "--max-items", "20", "--profile", str(_sounds(tmp))],
              "`spread` must be a number, got str '3.5'")
    _one_line(row, "events --hands --gestures, a taught gestures model whose `k` is \"5\"", tmp,
              [str(DEMO), "--hands", "--max-items", "20", "--gestures", str(_gestures(tmp))],
              "taught gestures model is damaged")
    _one_line(row, "events REC, meta.json's audio `checksums` null (audio_crc.csv still there), audio.wav damaged",
              tmp, [str(_hidden_checksums(tmp))], "holds 'audio_crc.csv' but meta.json does not name it")
