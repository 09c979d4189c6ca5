"""The end of ``sensekit run`` / ``sensekit events``: OSC, MIDI and the panel all closed, in order."""
from __future__ import annotations

from pathlib import Path

import pytest

from sensekit.cli.attachments import close_attachments


class Closer:
    def __init__(self, name: str, closed: list[str], error: Exception | None = None) -> None:
        self.name, self.closed, self.error = name, closed, error

    def close(self) -> None:
        self.closed.append(self.name)
        if self.error is not None:
            raise self.error


def test_osc_then_midi_then_panel():
    closed: list[str] = []
    close_attachments(Closer("osc", closed), Closer("midi", closed), Closer("panel", closed))  # type: ignore[arg-type]
    assert closed == ["osc", "midi", "panel"]
    closed.clear()
    close_attachments(Closer("osc", closed), None, None)  # type: ignore[arg-type]
    assert closed == ["osc"]


def test_a_close_that_fails_does_not_keep_the_others_open():
    closed: list[str] = []
    with pytest.raises(OSError, match="osc socket"):
        close_attachments(Closer("osc", closed, OSError("osc socket")), Closer("midi", closed),  # type: ignore[arg-type]
                          Closer("panel", closed))
    assert closed == ["osc", "midi", "panel"]
    closed.clear()
    with pytest.raises(RuntimeError, match="panel") as raised:
        close_attachments(Closer("osc", closed, OSError("osc socket")),  # type: ignore[arg-type]
                          Closer("midi", closed), Closer("panel", closed, RuntimeError("panel")))
    assert closed == ["osc", "midi", "panel"]
    assert isinstance(raised.value.__context__, OSError)      # neither error is lost


@pytest.mark.parametrize("command", [["events", "--level"], ["run", "clapper", "--headless", "--frames", "5"]])
def test_both_commands_close_midi_when_closing_osc_fails(command, recordings_dir: Path, tmp_path: Path,
                                                         capsys, monkeypatch):
    pytest.importorskip("mido")
    from sensekit.cli import main, midi_args, osc_args
    from sensekit.osc.sender import free_udp_port

    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    venue = tmp_path / "venue.toml"
    venue.write_text('[midi.map]\nclap = "note 60"\n')
    ports: list[Closer] = []
    closed: list[str] = []
    monkeypatch.setattr(midi_args, "open_port", lambda name, *, virtual=False: ports.append(
        Closer("midi", closed)) or ports[-1])

    def failing_close(self: osc_args.OscAttachment) -> None:
        closed.append("osc")
        raise OSError("the OSC socket went away")

    monkeypatch.setattr(osc_args.OscAttachment, "close", failing_close)
    source = [str(demo)] if command[0] == "events" else ["--source", str(demo)]
    argv = [*command[:2], *source, *command[2:], "--profile", str(venue), "--midi", "synth",
            "--osc", f"127.0.0.1:{free_udp_port()}"]
    assert main(argv) == 2
    assert closed == ["osc", "midi"]
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1] == "sensekit: error: the OSC socket went away"
