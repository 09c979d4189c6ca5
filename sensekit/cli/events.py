"""``sensekit events SOURCE``: run the pipeline on a source and print its events.

    sensekit events SOURCE [--jsonl] [--records] [--realtime] [--loop]
                           [--max-items N] [--stats] [stage options...]

SOURCE is any source spec (``camera:0``, ``mic``, ``file:PATH``, a recording...). Settings:
``--set KEY=VALUE`` (any setting), ``--preset NAME``, ``--profile FILE`` and the options bound
to the table (``sensekit.cli.tuning``); they apply before the first item, and with
``--osc-control`` any of them can change while it runs.
``--jsonl`` prints one JSON line per event (sorted keys, 6-decimal floats), so two
replays of the same recording give byte-identical output; otherwise one readable
line per event. ``--records`` adds ``RecordStage`` (one record per frame and audio
block, with a CRC-32 of the data). Stage options come from the modules listed in
``STAGE_PROVIDERS``: the modules ``sensekit/cli/*_options.py``, in the order of their
``STAGE_ORDER`` (each defines ``add_arguments(parser)``, ``build_stages(args, source,
chosen)`` (``chosen``: the settings the command line chose, ``{key: value}``) and, optionally,
``option_values(args)``: what its own options mean in the settings table); a provider that is
not installed is skipped.
With no stage enabled, ``--records`` is implied so the command always shows
something. ``--stats`` prints a summary to stderr at the end (with the OSC counters:
sent, accepted, rejected, malformed and oversized datagrams). A stage the source can
never feed (``--motion`` on a WAV, ``--clap`` on a silent video) is a warning, once.
"""
from __future__ import annotations

import argparse
import importlib
import inspect
import logging
import sys
from pathlib import Path
from types import ModuleType
from typing import Any, TextIO

from sensekit.cli import Subparsers
from sensekit.cli.attachments import close_attachments, open_attachments
from sensekit.cli.midi_args import add_midi_arguments
from sensekit.cli.osc_args import add_osc_arguments
from sensekit.cli.panel_args import add_panel_arguments, panel_address
from sensekit.cli.tuning import Chosen, add_tuning_arguments, apply_chosen, chosen_values
from sensekit.paths import DEFAULT_PROFILE
from sensekit.settings.live import Tuning
from sensekit.validate import check_positive

log = logging.getLogger(__name__)


def stage_providers(folder: Path, package: str) -> list[str]:
    """The provider modules in ``folder`` (the package ``package``): every ``*_options.py`` that
    defines ``build_stages``, ordered by its ``STAGE_ORDER = N`` (a literal number, read from the
    source without importing it), which sets the order of their options in ``--help`` and of
    their stages in the run. Adding a stage with options means adding one such file."""
    import ast

    found = []
    for path in sorted(folder.glob("*_options.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        if not any(isinstance(n, ast.FunctionDef) and n.name == "build_stages" for n in tree.body):
            continue
        orders = [n.value.value for n in tree.body if isinstance(n, ast.Assign) and isinstance(n.value, ast.Constant)
                  and any(isinstance(t, ast.Name) and t.id == "STAGE_ORDER" for t in n.targets)]
        if len(orders) != 1 or isinstance(orders[0], bool) or not isinstance(orders[0], (int, float)):
            raise ValueError(f"{path} defines build_stages but no STAGE_ORDER = N (a number, set once): "
                             "the place of its options among the stage providers'")
        found.append((orders[0], path.stem))
    return [f"{package}.{name}" for _, name in sorted(found)]


#: the stage providers, in order (``stage_providers``): this package's ``*_options.py`` modules
STAGE_PROVIDERS: list[str] = stage_providers(Path(__file__).parent, __package__ or "sensekit.cli")


def _providers() -> list[ModuleType]:
    """The provider modules that exist (an ImportError of another module propagates)."""
    found = []
    for name in STAGE_PROVIDERS:
        try:
            found.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:
            if exc.name is not None and (name == exc.name or name.startswith(exc.name + ".")):
                continue
            raise
    return found


def own_values(args: argparse.Namespace, providers: list[ModuleType] | None = None) -> dict[str, Any]:
    """What the command's own options mean in the settings table (each provider's
    ``option_values``: ``--track-color``, ``--track-box``, ``--tolerance``, ``--activity``; the
    provider's checks of them, ``--sounds`` among them): ``chosen_values``'s ``options``. The one
    path of ``events`` and ``run`` (harden29: ``run`` applied ``--track-color`` after the settings,
    so a refusal quoted the app's own colour, not the one typed)."""
    options: dict[str, Any] = {}
    for provider in providers if providers is not None else _providers():
        if hasattr(provider, "option_values"):
            options.update(provider.option_values(args))
    return options


def choose(args: argparse.Namespace, providers: list[ModuleType] | None = None) -> Chosen:
    """The settings the command line chose (preset < profile < options < ``--set``); a
    profile's colour turns tracking on when no ``--track-color``/``--track-box`` is given."""
    chosen = chosen_values(args, options=own_values(args, providers))
    if chosen.values.get("tracker.color") and getattr(args, "track_color", None) is None \
            and getattr(args, "track_box", None) is None and hasattr(args, "track_color"):
        args.track_color = chosen.values["tracker.color"]
    return chosen


def build(args: argparse.Namespace, source: Any, chosen: Chosen | None = None,
          providers: list[ModuleType] | None = None) -> tuple[list[Any], Tuning]:
    """The stages the options ask for, with the chosen settings applied (from their first item)."""
    providers = providers if providers is not None else _providers()
    chosen = chosen if chosen is not None else choose(args, providers)
    stages: list[Any] = []
    for provider in providers:
        if len(inspect.signature(provider.build_stages).parameters) >= 3:
            stages.extend(provider.build_stages(args, source, chosen.values))
        else:                                          # a provider of before the settings table
            stages.extend(provider.build_stages(args, source))
    tuning = Tuning(lambda: stages)
    apply_chosen(tuning, chosen)
    return stages, tuning


def register(subparsers: Subparsers) -> None:
    p = subparsers.add_parser(
        "events", help="run the pipeline on a source and print events",
        description="Run the stages on a source and print the events they emit.")
    p.add_argument("source", metavar="SOURCE",
                   help="camera:N, mic[:NAME], file:PATH, replay:PATH, camera:0+mic, a path, "
                        "or demo (the bundled recording)")
    p.add_argument("--jsonl", action="store_true", help="one JSON line per event")
    p.add_argument("--records", action="store_true",
                   help="one record per frame and audio block with a checksum")
    p.add_argument("--realtime", action="store_true", help="pace files and replays at recorded speed")
    p.add_argument("--loop", action="store_true", help="loop a replay")
    p.add_argument("--max-items", type=int, metavar="N", help="stop after N frames + audio blocks")
    p.add_argument("--stats", action="store_true", help="print a summary to stderr at the end")
    for provider in _providers():
        provider.add_arguments(p)
    add_osc_arguments(p)       # --osc, --osc-bundle, --osc-control (sensekit/cli/osc_args.py)
    add_midi_arguments(p)      # --midi, --midi-virtual (sensekit/cli/midi_args.py)
    add_tuning_arguments(p)    # --set, --preset, --profile (sensekit/cli/tuning.py)
    add_panel_arguments(p)     # --panel, --panel-token (sensekit/cli/panel_args.py)
    p.set_defaults(func=main)


def format_event(event: Any) -> str:
    """One readable line: time, name, then the fields."""
    d = event.to_dict()
    d.pop("event", None)
    t = d.pop("t", 0.0)
    fields = " ".join(f"{k}={v}" for k, v in d.items())
    return f"{t:10.3f}  {event.name:<14} {fields}".rstrip()


def warn_idle_stages(stages: list[Any], source: Any) -> list[str]:
    """Warn (once each) about stages that ``source`` can never feed; returns the warnings."""
    has = {"video": bool(source.has_video), "audio": bool(source.has_audio)}
    lines = []
    for stage in stages:
        kind = getattr(stage, "consumes", "both")
        if kind in has and not has[kind] and stage.emits:
            lines.append(f"{source.description!r} has no {kind}, so there will be no "
                         f"{', '.join(sorted(stage.emits))} events")
            log.warning("%s", lines[-1])
    return lines


def _print_stats(stats: Any, source: Any, out: TextIO, osc: dict[str, int] | None = None) -> None:
    from sensekit.capture.base import drop_counts

    src = source.stats() or {}
    dropped = src.get("dropped_frames", src.get("dropped", 0))
    audio_drops = ""
    if source.has_audio and source.is_live:
        d = drop_counts(src)
        audio_drops = (f", dropped audio blocks {d.get('dropped_blocks', 0)}"
                       f" (input overflows {d.get('overflows', 0)}, underflows {d.get('underflows', 0)})")
    print(f"frames {stats.frames}, audio blocks {stats.blocks}, events {stats.events}, "
          f"dropped frames {dropped}{audio_drops}", file=out)
    for name, count in sorted(stats.event_counts.items()):
        print(f"  {name:<14} {count}", file=out)
    if stats.latency_ms is not None:
        print(f"  latency        {stats.latency_ms:.1f} ms (median)", file=out)
    shown = ("dropped_frames", "dropped") + (("dropped_blocks", "overflows", "underflows")
                                             if audio_drops else ())
    extra = {k: v for k, v in src.items() if k not in shown}
    if extra:
        print("  source         " + ", ".join(f"{k}={v}" for k, v in sorted(extra.items())), file=out)
    if osc:
        print("  osc            " + ", ".join(f"{k}={v}" for k, v in sorted(osc.items())), file=out)


def main(args: argparse.Namespace) -> int:
    from sensekit.capture.spec import open_source
    from sensekit.events import JsonlWriter
    from sensekit.runner import RecordStage, Runner

    if args.max_items is not None:
        check_positive("--max-items", args.max_items)
    providers = _providers()
    chosen = choose(args, providers)             # checked before the source opens
    panel_at = panel_address(args)     # a LAN address without a token: one line, exit 2
    realtime = args.realtime or panel_at is not None
    source = open_source(args.source, realtime=realtime or None, loop=args.loop or None)
    out = sys.stdout
    with source:
        stages, tuning = build(args, source, chosen, providers)
        if args.records or not stages:
            stages.insert(0, RecordStage())
        warn_idle_stages(stages, source)
        runner = Runner(source, stages)
        osc, midi = open_attachments(runner.dispatcher, args, tuning=tuning)   # --midi, --osc
        if args.jsonl:
            runner.dispatcher.on("*", JsonlWriter(out))
        else:
            runner.dispatcher.on("*", lambda e: print(format_event(e), file=out))
        panel = None
        try:
            if panel_at is not None:
                from sensekit.panel.attach import events_panel
                panel = events_panel(runner, panel_at, profile=chosen.profile,
                                     profile_path=Path(args.profile) if args.profile else DEFAULT_PROFILE,
                                     tuning=tuning)
                print(f"panel: {panel.url}", file=sys.stderr, flush=True)
            from sensekit.cli.progress import clip_progress
            from sensekit.cli.signals import stop_signals

            # SIGTERM stops as Ctrl-C does: the events the stages hold, then all closed
            with clip_progress(source, "events", quiet=args.quiet or bool(args.loop)) as progress, stop_signals():
                runner.run(max_items=args.max_items, on_item=progress)
            runner.stop()              # --max-items: what the stages still hold (nothing after the end)
        finally:
            close_attachments(osc, midi, panel)
            out.flush()
            if args.stats:
                _print_stats(runner.stats, source, sys.stderr, osc.stats())
    return 0
