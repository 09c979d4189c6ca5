"""``sensekit run APP``: play a mini-app on a live device, a file or a recording.

    sensekit run APP|FILE.py [--source SPEC] [--headless] [--frames N]
                     [--screenshot PATH] [--video PATH] [--events PATH] [--hands] [--silhouette]
                     [--words WORD,WORD,...] [--sounds]
                     [--track-color X,Y|#RRGGBB | --track-box X,Y,W,H]
                     [--pick X,Y] [--mode NAME] [--keys "c@2.0,space@5"]
                     [--set KEY=VALUE ...] [--preset NAME] [--profile FILE]
                     [--loop] [--realtime] [--panel [HOST:]PORT [--panel-token TOKEN]]

APP is a name from ``sensekit apps``, or the path of an app file of your own
(``sensekit run path/to/my_app.py``). ``--pick``, ``--mode`` and ``--keys``
script the mouse and keys (``sensekit.app.script``). ``--preset``, ``--profile`` and
``--set`` (later wins) set any setting of the app and its stages before the first frame
(``sensekit.cli.tuning``); keys, OSC and Shift+S work on the same table while it runs.
Without ``--source`` the app uses the live camera/microphone it needs when they exist,
otherwise its bundled recording, and prints one line saying so. An
unknown APP lists the apps (exit status 2). A source without an input the app
needs (e.g. a video-only file for the clapper) is a one-line error naming it.
``--silhouette`` adds a person mask per frame (the hands extra; one line naming the install
without it): ``edge_snow`` piles its snow on it, and every app's overlays and panel can draw it.
``--words`` (or a profile's ``[voice] words``) and ``--sounds`` add the voice stage
(``sensekit.cli.voice_options``): its ``word``/``sound`` events reach the app's handlers, the
``--events`` file, OSC and the panel like any other (``sound_flier`` steers by "up"/"down").
A replay or file plays at recorded speed in a window; headless it runs as fast as it can,
unless ``--realtime`` (or ``--panel``) paces it. ``--panel`` serves the browser tuning panel
(``sensekit.panel``) while the app runs, and ``--loop`` repeats the recording.
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sensekit.capture.base import drop_counts, drops_text
from sensekit.cli import Subparsers, voice_options
from sensekit.cli.attachments import close_attachments, open_attachments
from sensekit.cli.midi_args import add_midi_arguments
from sensekit.cli.osc_args import add_osc_arguments
from sensekit.cli.panel_args import add_panel_arguments, panel_address
from sensekit.cli.paths import OutputPath
from sensekit.cli.script_args import add_script_arguments
from sensekit.cli.events import own_values
from sensekit.cli.tuning import add_tuning_arguments, apply_chosen, chosen_values
from sensekit.errors import ConfigError
from sensekit.paths import DEFAULT_PROFILE
from sensekit.validate import check_output_path
from sensekit.cli.signals import stop_signals

if TYPE_CHECKING:
    from sensekit.app.host import RunResult
    from sensekit.capture.base import Source

SCREENSHOT_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp")
EVENTS_SUFFIXES = (".jsonl", ".ndjson", ".json", ".txt", ".log")


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "run", help="play a mini-app (see `sensekit apps`)",
        description="Play a mini-app on a live device, a media file or a recording.")
    p.add_argument("app", metavar="APP", help="app name, as listed by `sensekit apps`, or an app file (my_app.py)")
    p.add_argument("--source", metavar="SPEC",
                   help="camera:N, mic:NAME, file:PATH, replay:PATH, a path or demo "
                        "(default: live devices if present, else the bundled recording, demo)")
    p.add_argument("--headless", action="store_true",
                   help="no window (SDL dummy driver); replays run as fast as possible, "
                        "live sources at their own pace")
    p.add_argument("--frames", type=_positive_int, metavar="N",
                   help="stop after N frames: simulation steps on a replay or file, "
                        "frames that arrived on a live source")
    p.add_argument("--screenshot", type=OutputPath(*SCREENSHOT_SUFFIXES, replaced=True), metavar="PATH",
                   help="save a picture of the last frame (.png/.jpg/.bmp), Ctrl-C included")
    p.add_argument("--video", type=OutputPath(".avi", ".mkv", ".mp4", replaced=True), metavar="PATH",
                   help="write the window to a video (.avi/.mkv/.mp4)")
    p.add_argument("--events", type=OutputPath(*EVENTS_SUFFIXES), metavar="PATH",
                   help="write the dispatched events as JSON lines (.jsonl)")
    p.add_argument("--hands", action="store_true",
                   help="hand input: follow the index fingertip, pinch to click (needs the hands extra)")
    p.add_argument("--track-color", metavar="X,Y|#RRGGBB",
                   help="track the object under this point of the (mirrored) first frame, or a colour")
    p.add_argument("--track-box", metavar="X,Y,W,H", help="track the object inside this box of the first frame")
    p.add_argument("--silhouette", action="store_true",
                   help="a person mask per frame (selfie segmentation; edge_snow piles snow on it; "
                        "needs the hands extra)")
    voice_options.add_arguments(p)   # --words, --sounds (sensekit/cli/voice_options.py)
    add_osc_arguments(p)       # --osc, --osc-bundle, --osc-control (sensekit/cli/osc_args.py)
    add_midi_arguments(p)      # --midi, --midi-virtual (sensekit/cli/midi_args.py)
    add_tuning_arguments(p, app_file=True)    # --set, --preset, --profile (sensekit/cli/tuning.py)
    add_script_arguments(p)    # --pick, --mode, --keys (sensekit/cli/script_args.py)
    p.add_argument("--loop", action="store_true",
                   help="repeat a recording when it ends (headless; a window always repeats one)")
    p.add_argument("--realtime", action="store_true",
                   help="play a recording or file at recorded speed, also headless (a window and --panel always do)")
    add_panel_arguments(p)     # --panel, --panel-token (sensekit/cli/panel_args.py)
    p.set_defaults(func=main)


def _check_hands(app_name: str, app_cls: type) -> None:
    """``--hands``: the app must take hand input and the extra must be installed (else one line)."""
    if getattr(app_cls, "hands", "no") == "no":
        from sensekit.app.registry import discover, load
        takes = [n for n in discover() if getattr(load(n), "hands", "no") != "no"]
        raise ConfigError(f"{app_name} has no hand input; --hands works with: {', '.join(takes)}")
    from sensekit.vision.hands import load_mediapipe
    load_mediapipe()                                  # ConfigError naming the install command


def _positive_int(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}") from None
    if n <= 0:
        raise argparse.ArgumentTypeError(f"must be a positive integer, got {text!r}")
    return n


def _check_extras(args: argparse.Namespace, app_cls: type) -> None:
    """``--hands`` and ``--silhouette`` need the hands extra: a ``ConfigError`` naming the install."""
    if getattr(args, "hands", False):
        _check_hands(args.app, app_cls)
    if getattr(args, "silhouette", False):
        from sensekit.vision.silhouette import load_segmentation
        load_segmentation()


def _add_silhouette(stages: list[Any]) -> None:
    """A silhouette stage for the overlays and the panel, unless the app made its own."""
    from sensekit.vision.silhouette import SilhouetteStage

    if not any(isinstance(s, SilhouetteStage) for s in stages):
        stages.append(SilhouetteStage())


def main(args: argparse.Namespace) -> int:
    from sensekit.app.registry import resolve
    from sensekit.cli.script_args import script_from_args

    app_cls = resolve(args.app)        # a name, or a file: path/to/my_app.py
    args.app = app_cls.name
    script = script_from_args(args, app_cls)
    # preset < profile < --track-color/--track-box < --set, checked before anything opens, as in
    # events (own_values: the providers' option_values; --sounds needs a profile with taught sounds)
    chosen = chosen_values(args, options=own_values(args))
    panel_at = panel_address(args)     # a LAN address without a token: one line, exit 2
    _check_extras(args, app_cls)

    from sensekit.app.host import AppHost, RunOptions
    from sensekit.app.picking import start_tracking
    from sensekit.app.sources import open_for_app

    headless_note = _choose_display(args)   # said once the piece starts: not before a source that fails
    source, note = open_for_app(app_cls, args.source, loop=args.loop or not args.headless,
                                headless=args.headless)
    options = RunOptions(headless=args.headless, frames=args.frames, screenshot=args.screenshot,
                         video=args.video, events=args.events, profile=chosen.profile, script=script,
                         hands=bool(getattr(args, "hands", False)),
                         silhouette=bool(getattr(args, "silhouette", False)),
                         realtime=args.realtime or panel_at is not None,
                         profile_path=Path(args.profile) if args.profile else DEFAULT_PROFILE)
    try:
        host = AppHost(app_cls, source, options)
        ran = False              # host.run() closes the host; a start that fails before it, here
        try:
            # --words / [voice] words / --sounds: the voice stage feeds the app's word and sound handlers
            host.runner.stages[0:0] = voice_options.build_stages(args, source, chosen.values)
            if options.silhouette:
                _add_silhouette(host.runner.stages)
            # the target first, then the settings (its colour among them), as events builds and applies:
            # an app that tracks nothing is refused before a warning that its [tracker] is unused
            start_tracking(host.runner.stages, track_color=args.track_color, track_box=args.track_box,
                           frame_size=getattr(source, "frame_size", None), app_name=args.app)
            apply_chosen(host.tuning, chosen, app=args.app)
            osc, midi = open_attachments(host.dispatcher, args, tuning=host.tuning,     # --midi, --osc
                                         pause=lambda on: setattr(host, "paused", on))
            for said in (headless_note, note):   # once the app has set up: an error comes alone
                if said:
                    print(said, flush=True)
            panel = None
            try:
                if panel_at is not None:
                    from sensekit.panel.attach import app_panel
                    panel = app_panel(host, panel_at)
                    print(f"panel: {panel.url}" + ("  (add #token=TOKEN)" if panel_at.token else ""),
                          flush=True)
                ran = True
                with stop_signals() as stopped:
                    result = host.run()
            finally:
                close_attachments(osc, midi, panel)
        finally:
            if not ran:          # the events file, the --video writer: closed, not left to exit
                host.close()
    finally:
        source.close()
    if result.interrupted:
        print(f"{args.app}: stopped by {stopped.why}")
    if args.headless or result.interrupted:
        _report(args, source, result)
    for line in _written(args):       # however the run ended, a window's included
        print(line)
    return 0


def _report(args: argparse.Namespace, source: Source, result: RunResult) -> None:
    """The closing line of a headless or interrupted run: what arrived or ran."""
    if source.is_live:
        cpu = 100.0 * result.cpu_s / result.wall_s if result.wall_s > 0 else 0.0
        what = "frames" if source.has_video else "audio blocks"
        print(f"{args.app}: {result.arrived} {what} arrived in {result.wall_s:.1f} s, "
              f"{result.sim_t:.1f} s simulated, {result.events} events, CPU {cpu:.0f} %"
              f"{drops_text(drop_counts(source.stats() or {}))}")
    else:
        print(f"{args.app}: {result.frames} frames, {result.sim_t:.1f} s simulated, "
              f"{result.fps:.0f} fps, {result.events} events")


def _written(args: argparse.Namespace) -> list[str]:
    """One line per file the run wrote (screenshot, video, events), each with its full path."""
    lines = []
    for what, path in (("screenshot", args.screenshot), ("video", args.video),
                       ("events", args.events)):
        if path is not None and Path(path).exists():
            lines.append(f"{what}: {Path(path).absolute()}")
    return lines


def _choose_display(args: argparse.Namespace) -> str | None:
    """Headless when asked or when there is no display (the last frame then goes to a
    screenshot); SDL's dummy drivers for a headless run, before pygame starts. Returns what to
    say about it (the run prints it when the piece starts), or None."""
    said = None
    if not args.headless and (why := _no_display()) is not None:
        args.headless = True
        if args.screenshot is None:
            args.screenshot = _default_screenshot(args.app)
        said = f"{why}: running headless; the last frame goes to {args.screenshot}"
    if args.headless:
        use_headless_drivers()
    return said


def use_headless_drivers() -> None:
    """SDL's dummy video and audio drivers for a run without a window; called before the app
    host initialises pygame's display (the host itself never writes the environment)."""
    os.environ["SDL_VIDEODRIVER"] = "dummy"
    os.environ.setdefault("SDL_AUDIODRIVER", "dummy")


def _default_screenshot(app: str) -> Path:
    """``out/APP.png`` for a run without a display, checked like --screenshot. A missing ``out``
    is only checked to be makeable (made and removed again): the picture's save makes it, so a
    run that fails before its first frame leaves no empty ``out/`` behind."""
    folder = Path("out")
    if not folder.is_dir():
        try:
            check_output_path(None, folder, folder=True)
        except ConfigError as exc:
            raise ConfigError(f"no display, and cannot make '{folder}' for the screenshot: {exc}") from None
        return folder / f"{app}.png"
    return check_output_path("--screenshot", folder / f"{app}.png", replaced=True)


def _no_display() -> str | None:
    """Why there is no display to open a window on (a Linux/BSD machine with no X11 or Wayland
    display: a server, CI, ssh), or None when there is one.

    A ``DISPLAY`` that names no server that answers (a stale ssh forwarding, a container) is
    tried: SDL would fall back to its invisible ``offscreen`` driver there, and a replay looping
    in a window nobody sees would never end."""
    if os.environ.get("SDL_VIDEODRIVER"):
        return None if os.environ["SDL_VIDEODRIVER"] not in ("dummy", "offscreen") else "no display found"
    if not sys.platform.startswith(("linux", "freebsd", "openbsd")):
        return None
    named = {k: os.environ[k] for k in ("DISPLAY", "WAYLAND_DISPLAY") if os.environ.get(k)}
    if not named:
        return "no display found"
    if any(_opens({"DISPLAY": "x11", "WAYLAND_DISPLAY": "wayland"}[k]) for k in named):
        return None
    return "no display opens (" + ", ".join(f"{k}={v!r}" for k, v in named.items()) + ")"


def _opens(driver: str) -> bool:
    """Whether SDL's video ``driver`` starts (tried alone: no fallback to another driver)."""
    import pygame

    os.environ["SDL_VIDEODRIVER"] = driver
    try:
        pygame.display.init()
        return True
    except pygame.error:
        return False
    finally:
        pygame.display.quit()
        del os.environ["SDL_VIDEODRIVER"]
