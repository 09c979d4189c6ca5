"""``sensekit run APP``: play a mini-app on a live device, a file or a recording.

    sensekit run APP [--source SPEC] [--headless] [--frames N]
                     [--screenshot PATH] [--video PATH] [--events PATH]
                     [--track-color X,Y|#RRGGBB | --track-box X,Y,W,H]

Without ``--source`` the app uses the live camera/microphone it needs when they
exist, otherwise its bundled recording, and prints one line saying so. An
unknown APP lists the apps (exit status 2). A source without an input the app
needs (e.g. a video-only file for the clapper) is a one-line error naming it.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from sensekit.errors import ConfigError
from sensekit.osc import add_osc_arguments, attach_osc
from sensekit.profile import add_profile_argument, apply_profile_to_stages, load_profile


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "run", help="play a mini-app (see `sensekit apps`)",
        description="Play a mini-app on a live device, a media file or a recording.")
    p.add_argument("app", metavar="APP", help="app name, as listed by `sensekit apps`")
    p.add_argument("--source", metavar="SPEC",
                   help="camera:N, mic:NAME, file:PATH, replay:PATH or a path "
                        "(default: live devices if present, else the bundled recording)")
    p.add_argument("--headless", action="store_true", help="no window (SDL dummy driver), as fast as possible")
    p.add_argument("--frames", type=_positive_int, metavar="N", help="stop after N simulation steps")
    p.add_argument("--screenshot", type=Path, metavar="PATH", help="save a PNG of the last frame")
    p.add_argument("--video", type=Path, metavar="PATH", help="write the window to a video (.avi/.mkv/.mp4)")
    p.add_argument("--events", type=Path, metavar="PATH", help="write the dispatched events as JSON lines")
    p.add_argument("--track-color", metavar="X,Y|#RRGGBB",
                   help="track the object under this point of the (mirrored) first frame, or a colour")
    p.add_argument("--track-box", metavar="X,Y,W,H", help="track the object inside this box of the first frame")
    add_osc_arguments(p)       # --osc, --osc-bundle, --osc-control (sensekit/osc.py)
    add_profile_argument(p)    # --profile (sensekit/profile.py)
    p.set_defaults(func=main)


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return n


def main(args: argparse.Namespace) -> int:
    from sensekit.app.registry import discover, load, unknown_app_message

    apps = discover()
    if args.app not in apps:
        print(unknown_app_message(args.app, apps), file=sys.stderr)
        return 2
    app_cls = load(args.app)
    if args.video is not None and args.video.suffix.lower() not in (".avi", ".mkv", ".mp4"):
        raise ConfigError(f"--video {str(args.video)!r} must end in .avi, .mkv or .mp4")

    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.picking import start_tracking
    from sensekit.app.sources import open_for_app

    if not args.headless and not _display_available():
        args.headless = True
        if args.screenshot is None:
            args.screenshot = Path("out") / f"{args.app}.png"
        print(f"No display found: running headless; the last frame goes to {args.screenshot}")

    source, note = open_for_app(app_cls, args.source, loop=not args.headless)
    if note:
        print(note)
    profile = load_profile(args.profile) if args.profile else None
    options = RunOptions(headless=args.headless, frames=args.frames, screenshot=args.screenshot,
                         video=args.video, events=args.events, profile=profile,
                         profile_path=Path(args.profile) if args.profile else Path("venue.toml"))
    try:
        host = AppHost(app_cls, source, options)
        apply_profile_to_stages(profile, host.runner.stages, override=True)
        start_tracking(host.runner.stages, track_color=args.track_color, track_box=args.track_box)
        osc = attach_osc(host.dispatcher, args, stages=host.runner.stages,
                         pause=lambda on: setattr(host, "paused", on))
        try:
            result = host.run()
        finally:
            osc.close()
    finally:
        source.close()
    if args.headless:
        print(f"{args.app}: {result.frames} frames, {result.sim_t:.1f} s simulated, "
              f"{result.fps:.0f} fps, {result.events} events")
        if args.screenshot is not None:
            print(f"screenshot: {args.screenshot}")
    return 0


def _display_available() -> bool:
    """False on a Linux/BSD machine with no X11 or Wayland display (a server, CI, ssh)."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return os.environ["SDL_VIDEODRIVER"] not in ("dummy", "offscreen")
    if sys.platform.startswith(("linux", "freebsd", "openbsd")):
        return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))
    return True
