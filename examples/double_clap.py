"""Switch something on a double clap: two claps within 0.6 s toggle a light.

    python examples/double_clap.py [SOURCE]     # demo (the bundled recording), mic, a file, ...
"""
from sensekit.audio.clap import ClapDetector, ClapPatternTracker
from sensekit.audio.pipeline import AudioStage
from sensekit.capture.spec import open_source
from sensekit.cli.example_args import example_args
from sensekit.events import Dispatcher, Event
from sensekit.runner import Runner

light = {"on": False}


def on_double_clap(event: Event) -> None:
    light["on"] = not light["on"]          # switch your lamp, GPIO pin or DMX channel here
    print(f"{event.t:6.2f} s  double clap: light {'ON' if light['on'] else 'OFF'}", flush=True)


args, dispatcher = example_args(__doc__), Dispatcher()
dispatcher.on("clap_pattern", on_double_clap)
stage = AudioStage(clap=ClapDetector(), pattern=ClapPatternTracker(count=2, max_gap_ms=600))
with open_source(args.source) as source:
    Runner(source, [stage], dispatcher).run()
