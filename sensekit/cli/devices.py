"""``sensekit devices``: the cameras and microphones found, or why there are none.

Cameras are probed at indices ``0..--max-camera-index`` (default 4); microphones
are PortAudio's input devices. When a list is empty the output says what was
tried and why (e.g. PortAudio is not installed). Never a traceback: any failure
to list one kind of device is printed as a line and the other kind is still
listed. Exit status 0 either way: having no devices is information, not an error.
"""
from __future__ import annotations

import argparse

from sensekit.capture import devices
from sensekit.cli import Subparsers
from sensekit.validate import check_int_range

MAX_INDEX = 63       # probing is ~instant per missing index, but not free
#: the highest camera index probed when ``--max-camera-index`` is not given
DEFAULT_MAX_INDEX = 4


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser("devices", help="list cameras and microphones",
                              description="List the cameras and microphones sensekit can open.")
    p.add_argument("--max-camera-index", type=int, default=DEFAULT_MAX_INDEX, metavar="N",
                   help=f"probe camera indices 0..N, N at most {MAX_INDEX} (default {DEFAULT_MAX_INDEX})")
    p.set_defaults(func=main)


def main(args: argparse.Namespace) -> int:
    max_index = check_int_range("--max-camera-index", getattr(args, "max_camera_index", DEFAULT_MAX_INDEX),
                                0, MAX_INDEX)
    found = 0

    try:
        cams = devices.list_cameras(max_index)
        cam_error = None
    except Exception as exc:  # noqa: BLE001 - report, never a traceback
        cams, cam_error = [], f"{type(exc).__name__}: {exc}"
    print("Cameras:")
    if cams:
        for cam in cams:
            print(f"  camera:{cam.index}  {cam.width}x{cam.height} ({cam.backend})")
        found += len(cams)
    elif cam_error:
        print(f"  none: cannot probe cameras ({cam_error})")
    else:
        print(f"  none found (probed indices 0..{max_index}; "
              "a stream works too: camera:http://HOST:PORT/PATH)")

    try:
        mics = devices.list_microphones()
        mic_error = None
    except Exception as exc:  # noqa: BLE001 - SourceError (no PortAudio) or anything else
        mics, mic_error = [], str(exc)
    print("Microphones:")
    if mics:
        for mic in mics:
            mark = "  (default)" if mic.is_default else ""
            print(f"  mic:{mic.index}  {mic.name}  {mic.channels} ch, "
                  f"{mic.default_samplerate:g} Hz, {mic.hostapi}{mark}")
        found += len(mics)
    elif mic_error:
        print(f"  none: {mic_error}")
    else:
        print("  none found (PortAudio lists no input devices: no sound card, "
              "or ALSA/PulseAudio not set up?)")

    if not found:
        print("\nNo camera or microphone found. Files and recordings still work: "
              "sensekit events file:PATH or replay:PATH")
    return 0
