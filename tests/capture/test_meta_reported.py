"""``inspect`` does not print a damaged value of ``meta.json`` as if it were true (harden25).

``start_unix``, ``video.codec``, ``audio_padded_samples`` and ``duration_s`` are read by nothing but
``inspect`` (replay ignores them), so any value was accepted: a start of 1e10 was printed as
2286-11-20, a codec of terminal escapes as the codec, 1e12 padded samples as 62,500,000 s of
silence fill. Now each damaged one is named under ``also`` (``meta.json is damaged: ...``), left
out of the lines it fed (``duration_s`` feeds none: inspect measures the duration), and the exit
status is 1; replay plays the same events as before.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from sensekit.capture.meta_reported import damaged_values
from sensekit.cli import main

from ..test_arg_types import DEMO

CASES: list[tuple[str, Any, str]] = [      # key, damaged value, what the report must not print
    ("start_unix", 1e10, "2286-11-20"),
    ("start_unix", -1e9, "1938-"),
    ("start_unix", 4.2e9, "2103-"),
    ("video.codec", "\x1b[31mH264", "H264, 300 frames"),
    ("video.codec", 42, "42, 300 frames"),
    ("video.codec", "x" * 500, "x" * 40),
    ("audio_padded_samples", 10 ** 12, "62500000.000 s of silence"),
    ("audio_padded_samples", -3, "-0.000 s"),
    ("audio_padded_samples", 2.5, "s of silence"),
    ("duration_s", -5.0, "-5"),                 # not shown before either: now named as damaged
    ("duration_s", "20", "'20'"),
]


def _damaged(tmp_path: Path, key: str, value: Any) -> Path:
    rec = Path(shutil.copytree(DEMO, tmp_path / "copy.skrec"))
    meta = json.loads((rec / "meta.json").read_text())
    if key.startswith("video."):
        meta["video"][key.split(".")[1]] = value
    else:
        meta[key] = value
    (rec / "meta.json").write_text(json.dumps(meta))
    return rec


@pytest.mark.parametrize(("key", "value", "wrong"), CASES)
def test_inspect_names_a_damaged_reported_value_and_does_not_print_it_as_true(
        key: str, value: Any, wrong: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    assert main(["events", str(DEMO), "--max-items", "40"]) == 0
    events = capsys.readouterr().out
    rec = _damaged(tmp_path, key, value)
    assert main(["inspect", str(rec)]) == 1
    out = capsys.readouterr().out
    assert wrong not in out.split("\nalso ")[0], out       # the lines above the notes
    assert "meta.json is DAMAGED" in out.splitlines()[0]
    assert f"meta.json is damaged: `{key}`" in " ".join(out.split()), out
    assert main(["events", str(rec), "--max-items", "40"]) == 0           # replay: unaffected
    assert capsys.readouterr().out == events


def test_the_demo_values_are_reported_as_before(capsys: pytest.CaptureFixture[str]) -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")
    assert main(["inspect", str(DEMO)]) == 0
    out = capsys.readouterr().out
    assert "started    2026-01-01 00:00:00 UTC" in out and ", FFV1, 300 frames" in out and "damaged" not in out


def test_the_ranges() -> None:
    good = {"start_unix": 1767225600.0, "video": {"codec": "FFV1"}, "audio_padded_samples": 320000,
            "duration_s": 0.0}
    assert damaged_values(good, 320000) == {}
    assert damaged_values({**good, "audio_padded_samples": 320001}, 320000).keys() == {"audio_padded_samples"}
    assert damaged_values({**good, "audio_padded_samples": 10 ** 9}, None) == {}      # nothing to compare
    assert damaged_values({"start_unix": None, "video": None, "audio_padded_samples": None}, 0) == {}
    assert damaged_values({**good, "duration_s": float("inf")}, 320000).keys() == {"duration_s"}
    assert damaged_values({**good, "start_unix": 4102444800.0}, 320000).keys() == {"start_unix"}
    assert damaged_values({**good, "start_unix": -0.5}, 320000).keys() == {"start_unix"}
    assert damaged_values({**good, "start_unix": 0.0}, 320000) == {}          # a clock not set: as it is
