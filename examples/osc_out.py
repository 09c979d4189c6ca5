"""Events to TouchDesigner or Max over OSC: claps, the sound level and motion, as they happen.

    python examples/osc_out.py [SOURCE] [HOST:PORT]     # default: demo 127.0.0.1:9000
TouchDesigner: an OSC In CHOP (or DAT) on port 9000. Max: [udpreceive 9000] -> [route /sensekit/clap].
Messages: /sensekit/clap t strength, /sensekit/level t level, /sensekit/motion t x y w h amount ...
(docs/OSC.md has them all). Add --fast to play a recording as fast as possible.
"""
import sys

from sensekit.audio.clap import ClapDetector
from sensekit.audio.pipeline import AudioStage
from sensekit.capture.spec import open_source
from sensekit.events import Dispatcher
from sensekit.osc import OscSender, parse_target
from sensekit.runner import Runner, Stage
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

args = [a for a in sys.argv[1:] if a != "--fast"]
sender = OscSender(*parse_target(args[1] if len(args) > 1 else "127.0.0.1:9000"))
dispatcher = Dispatcher()
for name in ("clap", "level", "motion"):
    dispatcher.on(name, sender)
stages: list[Stage] = [AudioStage(clap=ClapDetector()), VisionStage(mirror=True, motion=MotionDetector())]
with open_source(args[0] if args else "demo", realtime="--fast" not in sys.argv) as source:
    Runner(source, stages, dispatcher).run()    # a replay plays at its recorded speed
print(f"sent {sender.sent} OSC messages to {sender.host}:{sender.port}")
