"""The status line of a live run names what the microphone lost, during the show.

What a microphone lost (blocks its queue dropped, PortAudio's overflow and underflow flags) was
said only when the run ended (`sensekit run`'s last line, `sensekit events`, `meta.json`): a
piece that runs for weeks never ends, so the HUD and the panel, which shows the HUD's line,
showed nothing. A real ``MicrophoneSource`` on ALSA's file plugin (not paced: it floods a
2-block queue in milliseconds, so blocks are dropped) runs the clapper headless; its status
line ends with exactly the counts its ``stats()`` gives.
"""
from __future__ import annotations

import json

import pytest

from tests.capture.alsa_filemic import FileMic, known_samples, unavailable_reason

_reason = unavailable_reason()


@pytest.mark.skipif(_reason is not None, reason=f"ALSA file microphone: {_reason}")
def test_the_status_line_names_the_blocks_a_live_microphone_dropped(tmp_path):
    mic = FileMic(tmp_path, known_samples(48000), 48000)
    result = mic.run("""
        import json, os
        os.environ["SDL_VIDEODRIVER"] = os.environ["SDL_AUDIODRIVER"] = "dummy"
        from sensekit.app.host import AppHost, RunOptions
        from sensekit.app.registry import load
        from sensekit.capture.base import drop_counts, drops_text
        from sensekit.capture.microphone import MicrophoneSource
        src = MicrophoneSource(sample_rate=48000, max_queued_blocks=2, drop="newest")
        src.open()
        while src.stats()["dropped_blocks"] == 0:      # the unpaced device floods the queue
            src.read(timeout=5)
        src.close()                                     # the counts are final
        host = AppHost(load("clapper"), src, RunOptions(headless=True))
        print(json.dumps({"line": host.hud.line(), "lost": drops_text(drop_counts(src.stats())),
                          "stats": src.stats()}))
    """, timeout=60)
    assert result.returncode == 0, result.stderr[-3000:]
    out = json.loads(result.stdout.strip().splitlines()[-1])
    assert out["stats"]["dropped_blocks"] > 0
    assert out["lost"].startswith("; lost: ") and f"{out['stats']['dropped_blocks']} dropped audio block" in out["lost"]
    assert "| mic:default | " in out["line"] and f"| {out['lost'][2:]}" in out["line"], out["line"]
