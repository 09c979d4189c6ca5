"""The end of ``sensekit run`` / ``sensekit events``: OSC, MIDI and the panel all closed, in order;
and a start that fails half-way closes what it had opened: the MIDI port when OSC cannot be set
up, the OSC sender when the OSC control port is taken, the app's events file when its panel cannot
listen. Before, each stayed open until the process ended (a virtual MIDI port stayed visible to
other programs; a program calling ``main`` again held one more of each every time)."""
from __future__ import annotations

import os
import socket
from pathlib import Path

import pytest

from sensekit.cli.attachments import close_attachments
from tests.test_midi import VENUE, ListPort


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



def _demo(recordings_dir: Path) -> Path:
    demo = recordings_dir / "demo.skrec"
    if not demo.is_dir():
        pytest.skip("recordings/demo.skrec not generated (python -m sensekit.synth)")
    return demo


def _busy_udp() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    return s


def _open_files_named(path: Path) -> int:
    """How many of this process's descriptors are open on ``path``."""
    n = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            n += os.readlink(f"/proc/self/fd/{fd}") == str(path.resolve())
        except OSError:
            continue
    return n


def _fake_midi(monkeypatch: pytest.MonkeyPatch) -> list[ListPort]:
    from sensekit.cli import midi_args

    ports: list[ListPort] = []

    def fake_open(name: str | None, *, virtual: bool = False) -> ListPort:
        ports.append(ListPort())
        return ports[-1]
    monkeypatch.setattr(midi_args, "open_port", fake_open)
    return ports


@pytest.mark.parametrize("command", ["events", "run"])
def test_the_midi_port_is_closed_when_osc_cannot_be_set_up(command: str, recordings_dir: Path, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str],
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    pytest.importorskip("mido")
    from sensekit.cli import main

    demo = _demo(recordings_dir)
    venue = tmp_path / "venue.toml"
    venue.write_text(VENUE)
    ports = _fake_midi(monkeypatch)
    busy = _busy_udp()
    try:
        port = busy.getsockname()[1]
        args = (["events", str(demo), "--level"] if command == "events"
                else ["run", "clapper", "--source", str(demo), "--headless", "--frames", "5"])
        assert main([*args, "--profile", str(venue), "--midi", "synth", "--osc-control", str(port)]) == 2
    finally:
        busy.close()
    err = capsys.readouterr().err
    assert "OSC" in err and str(port) in err, err
    assert len(ports) == 1 and ports[0].closed


def test_the_osc_sender_is_closed_when_the_control_port_is_taken(recordings_dir: Path,
                                                                 capsys: pytest.CaptureFixture[str],
                                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    from sensekit.cli import main, osc_args
    from sensekit.osc.sender import OscSender

    senders: list[OscSender] = []

    class Kept(OscSender):
        def __init__(self, *a: object, **k: object) -> None:
            super().__init__(*a, **k)  # type: ignore[arg-type]
            senders.append(self)
    monkeypatch.setattr(osc_args, "OscSender", Kept)
    busy, target = _busy_udp(), _busy_udp()
    try:
        assert main(["events", str(_demo(recordings_dir)), "--level",
                     "--osc", f"127.0.0.1:{target.getsockname()[1]}",
                     "--osc-control", str(busy.getsockname()[1])]) == 2
    finally:
        busy.close()
        target.close()
    assert len(senders) == 1 and senders[0].closed


def test_the_apps_events_file_is_closed_when_its_panel_cannot_listen(recordings_dir: Path, tmp_path: Path,
                                                                     capsys: pytest.CaptureFixture[str]) -> None:
    from sensekit.cli import main

    events = tmp_path / "events.jsonl"
    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        assert main(["run", "clapper", "--source", str(_demo(recordings_dir)), "--headless", "--frames", "5",
                     "--events", str(events), "--panel", f"127.0.0.1:{taken.getsockname()[1]}"]) == 2
    finally:
        taken.close()
    assert "--panel: cannot listen" in capsys.readouterr().err
    assert events.exists() and _open_files_named(events) == 0


def test_an_app_whose_setup_fails_closes_its_events_file(tmp_path: Path) -> None:
    """The host opens the events file before the app's ``setup``; a setup that raised left it open."""
    from sensekit.app.host import AppHost, RunOptions
    from tests.apps.synthetic import SyntheticSource
    from tests.apps.test_layer import Probe

    class Broken(Probe):
        def setup(self) -> None:
            raise RuntimeError("the app's own setup failed")

    events = tmp_path / "events.jsonl"
    with pytest.raises(RuntimeError, match="own setup"):
        AppHost(Broken, SyntheticSource(), RunOptions(headless=True, events=events))
    assert events.exists() and _open_files_named(events) == 0
