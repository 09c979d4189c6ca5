"""The clap stream benchmarks' shared reports (``benchmarks/_clap_tables.py``): each table and each
noise curve is preceded by clearing that mode's detectors, so the decision-delay line speaks only of
the detectors it made; the lines are exactly the ones clap_ring_stream and clap_shipped_curve print.
The evaluation is replaced by a stand-in that makes two detectors a source."""
from __future__ import annotations

import argparse
import sys
import types
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))

from _clap_tables import add_stream_options, noise_curves, per_source_tables

import sensekit.evaluation.audio.clap_noise as clap_noise
import sensekit.evaluation.audio.evaluate as evaluate_module


def _made_by(made: dict[str, list[Any]]) -> Any:
    def make_for(mode: str) -> Any:
        def for_source(s: str) -> Any:
            def make() -> str:
                made[mode].append(f"{mode}:{s}")
                return made[mode][-1]
            return make
        return for_source
    return make_for


def test_each_table_reports_the_delays_of_its_own_detectors(monkeypatch, capsys) -> None:
    def evaluate(data, block, offset, book, only_sources, make):
        make(), make()
        return types.SimpleNamespace(sources={only_sources[0]: f"{offset}/{block}"})

    monkeypatch.setattr(evaluate_module, "evaluate", evaluate)
    monkeypatch.setattr(evaluate_module, "format_sources", lambda per, title: f"[{title}] {sorted(per.items())}")
    made: dict[str, list[Any]] = {"today": ["left over"], "wait": []}
    per_source_tables(argparse.Namespace(block=512), [0, 256], ["today", "wait"], ["a", "b"], _made_by(made),
                      made, lambda dets: f"{len(dets)} made", title="{mode} off {off}", tag="{mode}, off {off}")
    lines = [line for line in capsys.readouterr().out.splitlines() if line]
    assert lines == [
        "[today off 0] [('a', '0/512'), ('b', '0/512')]", "decision delay (today, off 0): 4 made",
        "[wait off 0] [('a', '0/512'), ('b', '0/512')]", "decision delay (wait, off 0): 4 made",
        "[today off 256] [('a', '256/512'), ('b', '256/512')]", "decision delay (today, off 256): 4 made",
        "[wait off 256] [('a', '256/512'), ('b', '256/512')]", "decision delay (wait, off 256): 4 made"]


def test_each_noise_curve_reports_its_own_detectors_then_hands_its_points_on(monkeypatch, capsys) -> None:
    def noise_curve(data, offsets, block, make_for, only_sources, kinds, snrs_db):
        for s in only_sources:
            make_for(s)()
        return [(k, x) for k in kinds for x in snrs_db]

    monkeypatch.setattr(clap_noise, "noise_curve", noise_curve)
    monkeypatch.setattr(clap_noise, "format_curve", repr)
    made: dict[str, list[Any]] = {"route": ["left over"], "route+wait": []}
    handed: list[tuple[str, Any]] = []
    args = argparse.Namespace(block=512, curve_offsets="0,517", kinds="white,babble", snrs="0,10")
    noise_curves(args, ["route", "route+wait"], ["a", "b", "c"], _made_by(made), made,
                 lambda dets: f"{len(dets)} made", then=lambda mode, points: handed.append((mode, points)))
    lines = [line for line in capsys.readouterr().out.splitlines() if line]
    points = [("white", 0.0), ("white", 10.0), ("babble", 0.0), ("babble", 10.0)]
    assert lines == [
        "noise curve: route, leave-one-source-out (nested); offsets [0, 517]", repr(points),
        "decision delay (route, noise curve): 3 made",
        "noise curve: route+wait, leave-one-source-out (nested); offsets [0, 517]", repr(points),
        "decision delay (route+wait, noise curve): 3 made"]
    assert handed == [("route", points), ("route+wait", points)]


def test_the_stream_options_are_the_ones_the_tables_read() -> None:
    """``add_stream_options``: what ``per_source_tables`` and ``noise_curves`` read, each benchmark's own
    defaults; without ``curve_offsets`` (clap_false_claps: its curve takes --offsets) no --curve-offsets."""
    ap = argparse.ArgumentParser()
    add_stream_options(ap, offsets="0", curve_offsets="0")
    assert vars(ap.parse_args([])) == {"block": 512, "offsets": "0", "curve_offsets": "0",
                                       "kinds": "white,pink,babble,speech", "snrs": "0,5,10", "no_curve": False}
    ap = argparse.ArgumentParser()
    add_stream_options(ap, curve_offsets=None, kinds="hum", snrs="20")
    assert vars(ap.parse_args(["--block", "64", "--no-curve"])) == {
        "block": 64, "offsets": "0,517", "kinds": "hum", "snrs": "20", "no_curve": True}
