"""Helpers for the panel tests: a piece running on the demo replay with a panel, in a thread or
as a real ``sensekit`` process, and headless Chromium (skipped, saying what to install, when
the system's chromium or the playwright package is missing)."""
from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from sensekit.audio.clap import ClapDetector
from sensekit.audio.pipeline import AudioStage
from sensekit.capture.replay import ReplaySource
from sensekit.clock import ScaledClock
from sensekit.events import to_jsonl
from sensekit.panel import Panel, parse_panel_address
from sensekit.panel.frames import FrameHub
from sensekit.panel.control import StagesControl
from sensekit.paths import recordings_dir
from sensekit.runner import Runner
from sensekit.settings.live import Tuning
from sensekit.vision.color_tracker import ColorTracker
from sensekit.vision.motion import MotionDetector
from sensekit.vision.pipeline import VisionStage

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Chromium on a closed network, as root: no sandbox, no GPU, no phoning home
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def demo() -> Path:
    path = recordings_dir() / "demo.skrec"
    if not (path / "meta.json").is_file():
        pytest.skip("bundled recording recordings/demo.skrec not generated (python -m sensekit.synth)")
    return path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def demo_stages() -> list[Any]:
    """What `sensekit events demo --motion --clap --track-color #...` builds, by hand."""
    return [VisionStage(tracker=ColorTracker("#eb2d14"), motion=MotionDetector()),
            AudioStage(clap=ClapDetector())]


class ThreadPiece:
    """A runner on the demo replay (paced by ``clock``) with optional panel, in a thread.

    ``events`` collects every event as a JSON line. ``stop()`` ends the run at the next item.
    ``on_item`` is called on the run's thread after each item is processed (a test that drives
    the run by hand holds it there); ``max_fps`` is the panel's cap on published frames.
    """

    def __init__(self, *, panel: str | None = "127.0.0.1:0", token: str | None = None,
                 speed: float = 4.0, loop: bool = True, max_items: int | None = None,
                 profile_path: Path | None = None, profile: Any = None,
                 on_item: Callable[[Any], None] | None = None, max_fps: float | None = None) -> None:
        self.source = ReplaySource(demo(), realtime=speed > 0, loop=loop,
                                   clock=ScaledClock(speed) if speed > 0 else None)
        self.source.open()
        self.runner = Runner(self.source, demo_stages())
        self.events: list[str] = []
        self.runner.dispatcher.on("*", lambda e: self.events.append(to_jsonl(e)))
        self.panel: Panel | None = None
        self.tuning = Tuning(lambda: self.runner.stages)
        if panel is not None:
            control = StagesControl(self.runner, self.tuning, profile,
                                    profile_path or Path("venue.toml"))
            self.panel = Panel(parse_panel_address(panel, token), self.runner, control,
                               info={"title": "test piece", "source": "demo",
                                     "inputs": ["video", "audio"]},
                               hub=FrameHub(max_fps=max_fps) if max_fps is not None else None)
            self.panel.start()
        self.max_items = max_items
        self.on_item = on_item
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @property
    def url(self) -> str:
        assert self.panel is not None
        return self.panel.url

    def _run(self) -> None:
        def check(item: object) -> None:
            if self._stop.is_set():
                raise _Stop
            if self.on_item is not None:
                self.on_item(item)
        try:
            self.runner.run(max_items=self.max_items, on_item=check)
        except _Stop:
            pass
        except BaseException as exc:  # noqa: BLE001 - reported by the test
            self.error = exc

    def join(self, timeout: float = 60.0) -> None:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "the piece did not finish"

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(10.0)
        if self.panel is not None:
            self.panel.close()
        self.source.close()


class _Stop(Exception):
    pass


@pytest.fixture
def thread_piece() -> Iterator[Callable[..., ThreadPiece]]:
    made: list[ThreadPiece] = []

    def make(**kwargs: Any) -> ThreadPiece:
        piece = ThreadPiece(**kwargs)
        made.append(piece)
        return piece

    yield make
    for piece in made:
        piece.stop()


class ProcessPiece:
    """``sensekit ARGS --panel 127.0.0.1:PORT`` as a real process; ``url`` once it serves."""

    def __init__(self, args: list[str], cwd: Path, *, env: dict[str, str] | None = None) -> None:
        self.port = free_port()
        cmd = [sys.executable, "-m", "sensekit", *args, "--panel", f"127.0.0.1:{self.port}"]
        full_env = {**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy",
                    **(env or {})}
        self.proc = subprocess.Popen(cmd, cwd=cwd, env=full_env, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT, text=True)
        self.output: list[str] = []
        self.url = ""
        deadline = time.monotonic() + 60
        assert self.proc.stdout is not None
        while time.monotonic() < deadline:
            line = self.proc.stdout.readline()
            if not line:
                break
            self.output.append(line)
            m = re.search(r"panel: (http://\S+)", line)
            if m:
                self.url = m.group(1)
                break
        if not self.url:
            self.proc.kill()
            raise AssertionError("the piece did not start its panel:\n" + "".join(self.output))
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.output.append(line)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def stop(self) -> int:
        if self.alive():
            self.proc.send_signal(signal.SIGINT)
            try:
                return self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
        return self.proc.wait(5)


@pytest.fixture
def process_piece(tmp_path: Path) -> Iterator[Callable[..., ProcessPiece]]:
    made: list[ProcessPiece] = []

    def make(*args: str, env: dict[str, str] | None = None) -> ProcessPiece:
        demo()
        piece = ProcessPiece(list(args), tmp_path, env=env)
        made.append(piece)
        return piece

    yield make
    for piece in made:
        piece.stop()


# -- headless Chromium --------------------------------------------------------------------------

@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Headless Chromium from the system's package, driven by Playwright (a fresh profile per
    launch; Playwright makes it). Skips, naming what to install, if either is missing."""
    if CHROMIUM is None:
        pytest.skip("no chromium on PATH: apt-get install chromium (.ci/run installs it)")
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        pytest.skip("the playwright package is missing: pip install playwright "
                    "(it is in the test extra; no `playwright install` needed)")
    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=60_000)
        yield chromium
        chromium.close()


#: the widths the layout tests check: a phone's and a desktop's
VIEWPORTS = {"phone": {"width": 390, "height": 844}, "desktop": {"width": 1280, "height": 900}}


def _open_page(browser: Any, viewport: dict[str, int]) -> Iterator[Any]:
    """A page in a fresh context; the page's uncaught script errors collect in ``page.errors``."""
    context = browser.new_context(viewport=viewport)
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.errors = errors
    yield pg
    context.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A page at a desktop's size."""
    yield from _open_page(browser, VIEWPORTS["desktop"])


@pytest.fixture
def viewport_page(browser: Any, viewport: str) -> Iterator[Any]:
    """A page at ``VIEWPORTS[viewport]``, the test's ``viewport`` parameter
    (``@pytest.mark.parametrize("viewport", sorted(VIEWPORTS))``)."""
    yield from _open_page(browser, VIEWPORTS[viewport])
