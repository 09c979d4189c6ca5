"""Values a show loads from its files, of the wrong type or absurd size, are refused where they load
(harden23; docs/reliability.md, the thirteenth pass).

Found by damaging each value of a taught-words, a taught-sounds and a venue-model profile (a string,
a table, a list, ``true``, 10 GB as an integer, 1e308, NaN, -inf, -1, ``[]``) and running
``sensekit events`` on it: every case was one line and exit 2 but these, which ran as if the value
were right. ``float()`` took ``true`` as 1.0 and ``"0.96"`` as 0.96; a venue model of 1e308s passed
the scale check and made every log-odds NaN or -inf (a model that never vetoes, silently).
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from sensekit.audio.clap import ClapDetector
from sensekit.audio.clap_venue import SIZE, check_venue_model
from sensekit.audio.open_set import NearTakes
from sensekit.audio.sounds import SoundBook
from sensekit.audio.word_classifier import OTHER, WordClassifier
from sensekit.cli import main
from sensekit.errors import ConfigError
from sensekit.safe_read import stored_number
from sensekit.vision.taught import N_FEATURES, TaughtGestures

from .test_arg_types import DEMO


def _classifier_table(**changes: Any) -> dict[str, Any]:
    rng = np.random.default_rng(5)
    x = rng.standard_normal((20, 3, 8)).astype(np.float32)
    table = WordClassifier().fit(x, ["one", OTHER] * 10).to_table()
    return json.loads(json.dumps({**table, **changes}))


def _sound_table(**changes: Any) -> dict[str, Any]:
    rng = np.random.default_rng(2)
    book = SoundBook()
    book.teach("snap", [rng.standard_normal((12, 13)).astype(np.float32) for _ in range(3)])
    return {"snap": dict(book.to_tables()["snap"], **changes)}


def test_a_stored_number_is_a_number_as_stored() -> None:
    assert stored_number(3, "x") == 3.0 and stored_number(0.5, "x") == 0.5
    for value in (True, "0.96", None, [1.0], {"a": 1}):
        with pytest.raises(TypeError, match="`x` must be a number, got "):
            stored_number(value, "x")


@pytest.mark.parametrize(("changes", "words"), [
    ({"c": True}, "`c` must be a number, got bool True"),
    ({"c": "0.05"}, "`c` must be a number, got str '0.05'"),
    ({"c": 1e308}, "`c` of 1e+308 is more than 1e+06"),
    ({"bias": ["0.5", 0.0]}, "`bias` must be a number, got str '0.5'"),
])
def test_taught_words_refuse_a_number_of_the_wrong_type_or_size(changes: dict[str, Any], words: str) -> None:
    WordClassifier.from_table(_classifier_table())                    # the table as written loads
    with pytest.raises(ConfigError, match="the taught words are damaged") as err:
        WordClassifier.from_table(_classifier_table(**changes), where="v.toml")
    assert words in str(err.value) and "\n" not in str(err.value)


@pytest.mark.parametrize("spread", [True, "3.5"])
def test_a_taught_sound_refuses_a_spread_that_is_not_a_number(spread: Any) -> None:
    SoundBook.from_tables(_sound_table(), where="v.toml")
    with pytest.raises(ConfigError, match=r"v.toml: \[sounds.snap\] is damaged \(`spread` must be a number"):
        SoundBook.from_tables(_sound_table(spread=spread), where="v.toml")


def test_the_taught_words_takes_refuse_a_limit_that_is_not_a_number() -> None:
    with pytest.raises(ConfigError, match="takes are damaged \\(`limit` must be a number, got bool True"):
        NearTakes.from_table({"limit": True, "words": [], "rows": []}, words=(), features=8)


@pytest.mark.parametrize(("key", "value"), [("k", "5"), ("k", True), ("k", 5.0), ("min_confidence", "0.6"),
                                            ("min_confidence", True)])
def test_taught_gestures_refuse_a_setting_of_the_wrong_type(key: str, value: Any) -> None:
    model = TaughtGestures(k=1).fit({"a": [np.zeros(N_FEATURES)], "b": [np.ones(N_FEATURES)]}).to_dict()
    TaughtGestures.from_dict(model)
    with pytest.raises(ConfigError, match=f"taught gestures model is damaged \\(.*{key}"):
        TaughtGestures.from_dict({**model, key: value})


@pytest.mark.parametrize(("where", "value"), [(0, 1e308), (20, 1e308), (35, -1e308), (49, 1e7), (16, 1e-300)])
def test_a_venue_model_of_absurd_numbers_is_refused(where: int, value: float) -> None:
    nums = [float(i % 7 + 1) for i in range(SIZE)]
    check_venue_model({"venue_model": nums})
    nums[where] = value
    with pytest.raises(ConfigError, match="`clap.venue_model` is not a venue model"):
        check_venue_model({"venue_model": nums})
    with pytest.raises(ConfigError, match="`clap.venue_model` is not a venue model"):
        ClapDetector(venue_model=nums)


def test_the_events_command_refuses_the_venue_model_in_one_line(tmp_path: Path, capsys: Any) -> None:
    nums = [float(i % 7 + 1) for i in range(SIZE)]
    nums[0] = 1e308
    profile = tmp_path / "venue.toml"
    profile.write_text(f"[clap]\nvenue_model = {json.dumps(nums)}\n")
    assert main(["events", str(DEMO), "--clap", "--max-items", "20", "--profile", str(profile)]) == 2
    err = capsys.readouterr().err.strip()
    assert "`clap.venue_model` is not a venue model" in err and len(err.splitlines()) == 1
