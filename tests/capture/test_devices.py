"""Device listing and the `sensekit devices` command, on this machine's real (absent) devices
and on the ALSA file microphone."""
from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

from sensekit.capture import devices
from sensekit.errors import DeviceNotFoundError
from tests.capture.alsa_filemic import FileMic, known_samples, unavailable_reason

_reason = unavailable_reason()
needs_alsa = pytest.mark.skipif(_reason is not None, reason=f"ALSA file microphone: {_reason}")


def _py(code: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env,
                          capture_output=True, text=True, timeout=60)


def test_camera_probe_is_quiet_and_returns_infos():
    result = _py("""
        import os
        os.environ.pop("OPENCV_LOG_LEVEL", None)
        from sensekit.capture.devices import list_cameras
        cams = list_cameras(3)
        print(len(cams), all(c.width > 0 and c.height > 0 for c in cams))
    """)
    assert result.returncode == 0, result.stderr
    # OpenCV would print "[ WARN:0@...] ... can't open camera by index" for each missing index
    assert "WARN" not in result.stderr and "VIDEOIO" not in result.stderr, result.stderr
    _n, ok = result.stdout.split()
    assert ok == "True"


def test_quiet_opencv_restores_the_log_level():
    import cv2

    log = getattr(cv2.utils, "logging", None)       # OpenCV 5; 4.x wheels (hands extra): cv2.getLogLevel
    level = log.getLogLevel if log is not None else cv2.getLogLevel
    before = level()
    with devices.quiet_opencv():
        assert level() == 0                          # LOG_LEVEL_SILENT
    assert level() == before


def test_camera_not_found_message_names_index_and_what_was_probed():
    err = devices.camera_not_found(57, max_index=2)
    assert isinstance(err, DeviceNotFoundError)
    msg = str(err)
    assert msg.startswith("no camera at index 57")
    assert "available:" in msg
    cams = devices.list_cameras(2)
    if not cams:
        assert "none (probed indices 0..2)" in msg
    else:
        assert f"[{cams[0].index}]" in msg


@needs_alsa
def test_devices_command_lists_the_file_microphone(tmp_path):
    mic = FileMic(tmp_path, known_samples(1024), 48000)
    result = subprocess.run([sys.executable, "-m", "sensekit", "devices", "--max-camera-index", "1"],
                            env=mic.env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.startswith("Cameras:\n")
    assert "Microphones:" in out
    mic_lines = out.split("Microphones:\n", 1)[1].splitlines()
    assert any("filemic" in line for line in mic_lines)
    assert any(line.strip().startswith("mic:") and " default " in line and "(default)" in line
               for line in mic_lines)
    assert "Traceback" not in result.stderr


def test_devices_command_without_portaudio_says_what_to_install():
    result = _py("""
        import ctypes.util, sys
        ctypes.util.find_library = lambda name: None
        from sensekit.cli import main
        sys.exit(main(["devices", "--max-camera-index", "1"]))
    """)
    assert result.returncode == 0
    assert "Traceback" not in result.stderr and "Traceback" not in result.stdout
    mics = result.stdout.split("Microphones:\n", 1)[1]
    assert mics.startswith("  none: PortAudio not found: install it with `apt-get install libportaudio2`")
    assert "brew install portaudio" in mics


def _has_sound_card() -> bool:
    import os

    return os.path.isdir("/dev/snd") and bool(os.listdir("/dev/snd"))


def _no_card_env(tmp_path) -> dict[str, str]:
    """An environment whose default PCM points at a card that does not exist: PortAudio finds
    no input (the test is skipped on a machine with a sound card: PortAudio lists real devices)."""
    if _has_sound_card():
        pytest.skip("this machine has a sound card, so PortAudio lists real devices")
    conf = tmp_path / "nocard.conf"
    conf.write_text("pcm.!default { type hw card 99 }\nctl.!default { type hw card 99 }\n")
    return {**__import__("os").environ, "ALSA_CONFIG_PATH": f"/usr/share/alsa/alsa.conf:{conf}"}


@needs_alsa
def test_devices_command_with_no_devices_at_all_says_so(tmp_path):
    env = _no_card_env(tmp_path)
    result = _py("""
        import sys
        from sensekit.cli import main
        sys.exit(main(["devices", "--max-camera-index", "0"]))
    """, env=env)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    if "camera:0" in result.stdout:
        pytest.skip("this machine has a camera at index 0")
    assert "none found (probed indices 0..0" in result.stdout
    assert "Microphones:\n  none found (PortAudio lists no input devices" in result.stdout
    assert "No camera or microphone found." in result.stdout


def test_import_sounddevice_maps_missing_portaudio():
    result = _py("""
        import ctypes.util
        ctypes.util.find_library = lambda name: None
        from sensekit.capture.devices import import_sounddevice, PORTAUDIO_MISSING
        from sensekit.errors import SourceError
        try:
            import_sounddevice()
        except SourceError as exc:
            print(str(exc) == PORTAUDIO_MISSING)
    """)
    assert result.stdout.strip() == "True", result.stderr


@needs_alsa
def test_no_microphone_at_all_says_what_was_tried(tmp_path):
    env = _no_card_env(tmp_path)
    result = _py("""
        from sensekit.capture.microphone import MicrophoneSource
        from sensekit.errors import DeviceNotFoundError
        try:
            MicrophoneSource("usb").open()
        except DeviceNotFoundError as exc:
            print(exc)
    """, env=env)
    assert result.stdout.startswith("no microphone matching 'usb'; available: none"), result.stderr


def test_no_microphone_errors_are_lower_case_after_sensekit_error(monkeypatch):
    """Every other error reads "sensekit: error: no ..."; the microphone's began "No microphone"."""
    fake = [devices.MicrophoneInfo(3, "USB Mic", 1, 16000.0, "ALSA", is_default=True)]
    for mics, spec in (([], None), ([], "usb"), (fake, True), (fake, 97), (fake, "hdmi")):
        monkeypatch.setattr(devices, "list_microphones", lambda mics=mics: list(mics))
        with pytest.raises(DeviceNotFoundError, match=r"^no microphone"):
            devices.find_microphone(spec)


def test_quiet_blocks_that_overlap_on_two_threads_restore_the_log_level():
    """A video frame written (quiet) while another thread opens a camera (quiet): each block
    saved and restored the level on its own, so the one that left last restored the other's
    silence and OpenCV stayed silent for the rest of the run."""
    import threading

    import cv2

    log = getattr(cv2.utils, "logging", None)
    level = log.getLogLevel if log is not None else cv2.getLogLevel
    before = level()
    assert before != 0
    inside, first_left, done = threading.Event(), threading.Event(), threading.Event()

    def other() -> None:             # enters second, leaves last
        with devices.quiet_opencv():
            inside.set()
            assert first_left.wait(10), "the main thread never left its quiet block"
            assert level() == 0      # still silent: one block is open
        done.set()

    with devices.quiet_opencv():
        worker = threading.Thread(target=other)
        worker.start()
        assert inside.wait(10), "the other thread never entered its quiet block"
    first_left.set()
    worker.join(10)
    assert done.is_set(), "the other thread did not finish its quiet block"
    assert level() == before


@needs_alsa
def test_a_name_that_matches_two_microphones_is_one_line_naming_both(tmp_path):
    """``mic:sensekitmic`` matched both paced fake microphones and silently took the first: after
    a reboot or a re-plug the order of the list can change, and the show listens to the other
    microphone. Now it is one line naming both and what to pass instead; the whole name and a
    part only one name holds still choose."""
    from tests.capture.alsa_pacedmic import PacedMics

    with PacedMics(tmp_path, 2) as mics:       # fed: PortAudio opens each device while listing
        result = _py("""
        from sensekit.capture.devices import find_microphone
        from sensekit.errors import DeviceNotFoundError
        try:
            find_microphone("sensekitmic")
            print("chose one")
        except DeviceNotFoundError as exc:
            print("error:", exc)
        print(find_microphone("SENSEKITMIC1").name, find_microphone("kitmic0").name)
        """, env=mics.env)
    assert result.returncode == 0, result.stderr[-2000:]
    first, second = result.stdout.strip().splitlines()
    assert first.startswith("error: microphone name 'sensekitmic' matches 2 devices: ["), first
    assert "] sensekitmic0, [" in first and "] sensekitmic1;" in first and "pass the index (mic:" in first
    assert second == "sensekitmic1 sensekitmic0"
