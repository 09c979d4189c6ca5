#!/usr/bin/env python3
"""The README's picture of the browser panel, made the way a user sees it.

    .venv/bin/python docs/panel_screenshot.py [--out docs/screenshots/panel.png]
                                              [--phone docs/screenshots/panel_phone.png]
                                              [--at 13.2] [--overlays mask]

Starts ``sensekit events demo --motion --clap --track-color '#eb2d14' --panel 127.0.0.1:PORT``
(the bundled demo recording, played at recorded speed), opens the page in headless Chromium
(the system's ``chromium``, driven by Playwright), switches on ``--overlays``, waits until
the recording reaches ``--at`` seconds (13.2 s: the hand waving on the right, just after the
double clap at 12.25 s, so the level graph shows the clap marks) and saves a full-page
screenshot at 1280 px wide; ``--phone`` also saves what a phone's 390x844 screen shows
when the page opens (its first screen, not the whole page: at one column the settings run
to some 9,000 px, a picture nobody could read in the docs).
``tests/panel/test_browser.py`` runs this script (with a short ``--at``) so it keeps working.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--disable-dev-shm-usage"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _start_piece() -> tuple[subprocess.Popen[str], str]:
    cmd = [sys.executable, "-m", "sensekit", "events", "demo", "--motion", "--clap",
           "--track-color", "#eb2d14", "--panel", f"127.0.0.1:{_free_port()}"]
    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "SDL_VIDEODRIVER": "dummy", "SDL_AUDIODRIVER": "dummy"})
    assert proc.stderr is not None
    for line in proc.stderr:
        m = re.search(r"panel: (http://\S+)", line)
        if m:
            return proc, m.group(1)
    proc.wait()
    raise SystemExit(f"the piece did not start its panel (exit {proc.returncode})")


def _shoot(browser, url: str, out: Path, *, at_s: float, overlays: list[str],  # type: ignore[no-untyped-def]
           phone: bool) -> None:
    if phone:
        context = browser.new_context(viewport={"width": 390, "height": 844}, device_scale_factor=2,
                                      is_mobile=True, has_touch=True)
    else:
        context = browser.new_context(viewport={"width": 1280, "height": 860})
    page = context.new_page()
    page.goto(url)
    for name in overlays:
        page.check(f"#overlay-toggles input[value={name}]")
    page.wait_for_function(f"() => sensekitPanel.frame && sensekitPanel.frame.meta.t >= {at_s}",
                           timeout=int((at_s + 30) * 1000), polling=20)
    out.parent.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(out), full_page=not phone)
    context.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots" / "panel.png")
    parser.add_argument("--phone", type=Path, help="also a phone-sized screenshot here")
    parser.add_argument("--at", type=float, default=13.2, help="recording time to shoot at, seconds")
    parser.add_argument("--overlays", default="mask", help="comma-separated: mask,edges,palette,region")
    args = parser.parse_args(argv)
    chromium = shutil.which("chromium")
    if chromium is None:
        raise SystemExit("needs chromium: apt-get install chromium")
    from playwright.sync_api import sync_playwright

    overlays = [o for o in args.overlays.split(",") if o]
    proc, url = _start_piece()
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
            started = time.monotonic()
            _shoot(browser, url, args.out, at_s=args.at, overlays=overlays, phone=False)
            print(f"{args.out} ({time.monotonic() - started:.1f} s)")
            if args.phone is not None:
                # the recording plays on: the phone shot shows a later moment of it
                _shoot(browser, url, args.phone, at_s=0.0, overlays=overlays, phone=True)
                print(args.phone)
            browser.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(20)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
