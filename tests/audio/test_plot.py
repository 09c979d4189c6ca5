from __future__ import annotations

import numpy as np
import soundfile as sf

from .helpers import add_at, clap_burst, noise_floor


def test_plot_writes_a_png(tmp_path, capsys):
    from sensekit.cli import main

    rate = 16000
    x = noise_floor(4.0, rate, -60)
    for t in (2.5, 2.8, 3.5):
        add_at(x, clap_burst(rate), t, rate)
    wav = tmp_path / "c.wav"
    sf.write(wav, x, rate, subtype="PCM_16")
    out = tmp_path / "level.png"
    assert main(["plot", str(wav), "--out", str(out), "--activity", "floor+15,500"]) == 0
    assert out.stat().st_size > 10_000
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    msg = capsys.readouterr().out
    assert "3 claps" in msg


def test_plot_errors(tmp_path, capsys):
    from sensekit.cli import main

    empty = tmp_path / "e.wav"
    sf.write(empty, np.zeros(0, np.float32), 16000)
    assert main(["plot", str(empty), "--out", str(tmp_path / "p.png")]) == 2
    assert "empty" in capsys.readouterr().err
    ok = tmp_path / "ok.wav"
    sf.write(ok, np.zeros(1600, np.float32), 16000)
    assert main(["plot", str(ok), "--out", str(tmp_path / "p.txt")]) == 2
    assert "must end in .png" in capsys.readouterr().err
    assert main(["plot", str(ok), "--activity", "250"]) == 2
    assert "got 250" in capsys.readouterr().err
