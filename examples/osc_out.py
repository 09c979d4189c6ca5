"""Events to TouchDesigner or Max over OSC: claps, the sound level and motion, as they happen.

    python examples/osc_out.py [SOURCE] [HOST:PORT]     # default: demo 127.0.0.1:9000
TouchDesigner: an OSC In CHOP (or DAT) on port 9000. Max: [udpreceive 9000] -> [route /sensekit/clap].
Messages: /sensekit/clap t strength, /sensekit/level t level, /sensekit/motion t x y w h amount ...
(docs/OSC.md has them all). Add --fast to play a recording as fast as possible.
"""
from sensekit.audio.clap import ClapDetector
from sensekit.audio.pipeline import AudioStage
from sensekit.capture.spec import open_source
from sensekit.cli.example_args import example_args
from sensekit.events import Dispatcher
from sensekit.osc import OscSender
from sensekit.runner import Runner, Stage
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

args = example_args(__doc__, target=True, fast=True)
sender = OscSender(*args.target)
dispatcher = Dispatcher()
for name in ("clap", "level", "motion"):
    dispatcher.on(name, sender)
stages: list[Stage] = [AudioStage(clap=ClapDetector()), VisionStage(mirror=True, motion=MotionDetector())]
with open_source(args.source, realtime=not args.fast) as source:
    Runner(source, stages, dispatcher).run()    # a replay plays at its recorded speed
print(f"sent {sender.sent} OSC messages to {sender.host}:{sender.port}")
