"""One code path: the clapper app and ``sensekit events --clap`` find the same claps.

The app builds its AudioStage before it subscribes (``stages()`` runs before ``setup()``);
the runner tells the stage who listens before the first block, so nothing is missed at the
start: the app hears the same first clap as the CLI (the 256-sample stream that starts 5 ms
before a clap is found by both).
"""
from __future__ import annotations

import json

import pytest

from sensekit.cli import main
from tests.audio.helpers import clapper_claps

CLIPS = ["clap_j_clipped_start.wav", "clap_j_double.wav", "clap_k_triple.wav",
         "clap_k_pairs8.wav", "clap_sparse_eldar-sample2.wav", "typing_ibm_part1.wav"]


def cli_claps(path, capsys) -> list[float]:
    capsys.readouterr()
    assert main(["events", str(path), "--clap", "--jsonl"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return [e["t"] for e in lines if e["event"] == "clap"]


@pytest.mark.parametrize("name", CLIPS)
def test_clapper_app_and_events_cli_agree(shared_data, capsys, name):
    path = shared_data / "audio" / name
    from_app = clapper_claps(path)
    from_cli = cli_claps(path, capsys)
    assert len(from_app) == len(from_cli), (from_app, from_cli)
    assert all(abs(a - b) <= 0.001 for a, b in zip(from_app, from_cli)), (from_app, from_cli)
    if name.startswith("clap_"):
        assert from_cli, name
    if name == "typing_ibm_part1.wav":
        assert from_cli == []


def test_a_clap_5_ms_into_the_stream_reaches_the_app(shared_data, capsys, tmp_path):
    import soundfile as sf

    from sensekit.evaluation.audio.evaluate import read_wav

    x, rate = read_wav(shared_data / "audio" / "clap_k_triple.wav")
    start = int((1.265 - 0.005) * rate)                  # 5 ms before the first clap
    path = tmp_path / "late_start.wav"
    sf.write(path, x[start:], rate, subtype="FLOAT")
    from_app, from_cli = clapper_claps(path), cli_claps(path, capsys)
    assert from_app == pytest.approx(from_cli, abs=0.001)
    assert len(from_cli) == 3 and from_cli[0] < 0.02, from_cli
