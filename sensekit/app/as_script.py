"""An app file that Python runs itself (``python my_app.py ARGS``) runs as ``sensekit run my_app.py ARGS``.

A class opts in with ``class MyApp(App, main=__name__)``: when its file is the main program
(``__name__ == "__main__"``), creating the class hands the process to the command line, a child
``python -m sensekit run FILE ARGS`` (its ``--help``, its options, its errors and exit status), and
the rest of the file does not run. Imported (``sensekit run`` loads the file by path under another
name, ``registry.load_path``), nothing happens. Without it ``python my_app.py --help`` defined the
class, printed nothing and ended. A child process, not a call: the command line stands above the
app package (tests/test_house.py's floors)."""
from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Sequence

__all__ = ["run_file_as_command"]


def run_file_as_command(path: str, argv: Sequence[str]) -> int:
    """``sensekit run PATH ARGV...`` in a child Python; its exit status. Ctrl+C reaches the child
    too (one process group): it ends its run as it does in a terminal, and this waits for it."""
    env = {**os.environ, "PYGAME_HIDE_SUPPORT_PROMPT": "1"}    # pygame greeted once, in this process
    child = subprocess.Popen([sys.executable, "-m", "sensekit", "run", path, *argv], env=env)
    while True:
        try:
            return child.wait()
        except KeyboardInterrupt:
            continue
