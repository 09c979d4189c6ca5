"""Damaged entries of ``audio_gaps``, ``audio_jumps``, ``source_drops`` are named, and a start from
a clock never set is not shown as a true date (harden26; ``capture/meta_reported.py``).

``inspect`` left out an entry that was not a pair of whole numbers (or a count) without a word, and
showed one beyond the audio as if true; replay said nothing. Now ``inspect`` says under ``also`` how
many entries of which key it left out and why (exit 1, as for harden25's damaged values), replay's
log says it once, and replay plays the same events. A ``start_unix`` before 2000 (a machine whose
clock was never set records 1970) or more than a day ahead of the clock is shown as implausible,
with its value, not as the date it says (exit 0: the recording is whole)."""
from __future__ import annotations

import json
import logging
import shutil
from pathlib import Path
from typing import Any

import pytest

from sensekit.capture.meta_reported import dropped_entries, implausible_start, kept_entries
from sensekit.cli import main

from ..test_arg_types import DEMO

GOOD_GAP = [100, 1600]
CASES: list[tuple[str, Any, str]] = [       # key, damaged value, what inspect must say about it
    ("audio_gaps", [GOOD_GAP, [1, "x"], "junk"], "2 of 3 entries left out: 2 not a pair of whole numbers"),
    ("audio_gaps", [GOOD_GAP, [10 ** 12, 5]], "1 of 2 entries left out: 1 beyond the 320000 samples"),
    ("audio_gaps", {"a": 1}, "its value left out: not a list"),
    ("audio_jumps", [[2000, 16000], [-1, 3], [1, True]], "2 of 3 entries left out: 2 not a pair of whole"),
    ("audio_jumps", [[320001, 16000]], "1 of 1 entries left out: 1 beyond the 320000 samples"),
    ("source_drops", {"dropped_blocks": 3, "overflows": "2", "underflows": -1},
     "2 of 3 entries left out: 2 not a whole number of losses"),
    ("source_drops", [3], "its value left out: not a table of counts"),
]


def _copy(tmp_path: Path, **values: Any) -> Path:
    rec = Path(shutil.copytree(DEMO, tmp_path / "copy.skrec"))
    meta = json.loads((rec / "meta.json").read_text())
    meta.update(values)
    (rec / "meta.json").write_text(json.dumps(meta))
    return rec


def _needs_demo() -> None:
    if not (DEMO / "meta.json").is_file():
        pytest.skip("bundled recording not generated yet")


@pytest.mark.parametrize(("key", "value", "said"), CASES)
def test_damaged_entries_are_counted_and_named_by_inspect_and_once_by_replay(
        key: str, value: Any, said: str, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        caplog: pytest.LogCaptureFixture) -> None:
    _needs_demo()
    assert main(["events", str(DEMO), "--max-items", "40"]) == 0
    events = capsys.readouterr().out
    rec = _copy(tmp_path, **{key: value})
    assert main(["inspect", str(rec), "--quick"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "meta.json is DAMAGED" in out and f"meta.json is damaged: `{key}`: {said}" in out, out
    caplog.clear()
    with caplog.at_level(logging.WARNING):
        assert main(["events", str(rec), "--max-items", "40"]) == 0          # replay: unaffected
    assert capsys.readouterr().out == events
    told = [r.getMessage() for r in caplog.records if "meta.json' is damaged" in r.getMessage()]
    assert len(told) == 1 and f"`{key}`: {said}" in told[0], told


def test_the_whole_entries_are_still_shown(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _needs_demo()
    rec = _copy(tmp_path, audio_padded_samples=1600, audio_gaps=[GOOD_GAP, "junk"],
                audio_jumps=[[2000, 16000]], source_drops={"dropped_blocks": 3, "overflows": "2"})
    assert main(["inspect", str(rec), "--quick"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert "0.100 s of silence fills 1 gap the source left (the longest 0.100 s at 0.006 s)" in out, out
    assert "1.000 s of audio not kept at 0.125 s" in out and "the devices counted 3 dropped audio blocks" in out


def test_the_demo_has_nothing_dropped() -> None:
    _needs_demo()
    meta = json.loads((DEMO / "meta.json").read_text())
    assert dropped_entries(meta, meta["audio_samples"]) == {}
    ok = {"audio_gaps": [[0, 10], [5, 5]], "audio_jumps": [[10, 99999]], "source_drops": {"overflows": 0}}
    assert dropped_entries(ok, 10) == {}
    assert kept_entries(ok, "audio_gaps", 10) == [(0, 10), (5, 5)]
    assert dropped_entries(ok, 9).keys() == {"audio_gaps", "audio_jumps"}
    assert dropped_entries(ok, None) == {}                # an incomplete recording: no bound known


NOW = 1_764_288_000.0          # 2025-11-28 00:00 UTC


@pytest.mark.parametrize(("start", "why"), [
    (0.0, "clock not set?"), (946_684_799.0, "clock not set?"), (946_684_800.0, None), (NOW, None),
    (NOW + 3600.0, None), (NOW + 2 * 86_400.0, "clock set wrong?"), (1e10, None), (None, None)])
def test_which_starts_are_implausible(start: Any, why: str | None) -> None:
    got = implausible_start(start, NOW)
    assert got == why if why is None else (got is not None and why in got)


@pytest.mark.parametrize(("start", "shown"), [
    (0.0, "started implausible: start_unix 0.0 says 1970-01-01 00:00:00 UTC (clock not set?)"),
    (900_000_000.0, "started implausible: start_unix 900000000.0 says 1998-07-09 16:00:00 UTC (clock not set?)"),
    (4.0e9, "started implausible: start_unix 4000000000.0 says 2096-10-02 07:06:40 UTC (more than a day"),
    (1e9, "started 2001-09-09 01:46:40 UTC duration")])
def test_inspect_shows_an_implausible_start_as_such(start: float, shown: str, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    _needs_demo()
    rec = _copy(tmp_path, start_unix=start)
    assert main(["inspect", str(rec), "--quick"]) == 0          # whole: an odd clock is no damage
    out = " ".join(capsys.readouterr().out.split())
    assert shown in out, out
