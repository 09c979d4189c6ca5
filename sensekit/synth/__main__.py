"""``python -m sensekit.synth``: an entry script on the top floor, like ``sensekit/__main__.py``.

The generator (``sensekit.synth``) never imports the command line; its options are parsed in
``sensekit.cli._synth``.
"""
from sensekit.cli._synth import main

raise SystemExit(main())
