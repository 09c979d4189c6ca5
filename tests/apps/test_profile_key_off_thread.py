"""Shift+S writes the venue profile off the run's thread (``app/profile_saver.py``): editing a
large profile (tomlkit, pure Python) took seconds, all of them inside the key press, so the piece
stood still for the whole save (the panel's save was moved off the run's thread before)."""
from __future__ import annotations

import threading

import pygame

from sensekit.app.outputs import RunOutputs
from sensekit.profile import load_profile
from tests.apps.hosts import demo_host
from tests.panel.test_save_off_thread import _big_profile

SHIFT = pygame.KMOD_LSHIFT


def _host(venue):
    host = demo_host("clapper", profile_path=venue, profile=load_profile(venue))
    for _ in range(5):
        host.step()
    return host, host.source


def _hold_writes(monkeypatch) -> tuple[threading.Event, list[threading.Thread]]:
    """Hold every profile write until the event is set (10 s at most); the list gets the thread
    of each write."""
    write, release = RunOutputs.write_values, threading.Event()
    writers: list[threading.Thread] = []

    def held_write(values, path):
        writers.append(threading.current_thread())
        release.wait(10)
        return write(values, path)
    monkeypatch.setattr(RunOutputs, "write_values", staticmethod(held_write))
    return release, writers


def _said(host) -> str:
    return host.toast[0] if host.toast else ""


def test_shift_s_with_a_large_profile_does_not_stop_the_piece(tmp_path, monkeypatch):
    """The file is written off the run's thread, and the app steps on while it is: the write is
    held until the test has stepped 10 times. Written inside the key press (before), the press
    itself held the run's thread. No wall-clock bound: the machine's load changes nothing here."""
    venue = tmp_path / "venue.toml"
    _big_profile(venue)
    release, writers = _hold_writes(monkeypatch)
    host, source = _host(venue)
    try:
        host.tuning.apply_now({"audio.gain": 31.0})
        host.press(pygame.K_s, SHIFT)                       # what the loop does on the key
        assert _said(host) == f"saving venue profile {venue} ..."
        for _ in range(10):                                 # the run steps while the file is held
            host.step()
        assert _said(host) == f"saving venue profile {venue} ..."
        assert writers and writers[0] is not threading.current_thread()
        release.set()
        assert host.wait_for_save(timeout=60) == venue
        assert _said(host) == f"saved venue profile {venue}"
        saved = load_profile(venue)
        text = venue.read_text()
        assert saved["audio.gain"] == 31.0 and "threshold" in text and len(text) > 140_000     # kept
        host.close()
    finally:
        release.set()
        source.close()


def test_a_second_shift_s_waits_its_turn_and_closing_finishes_the_save(tmp_path):
    venue = tmp_path / "venue.toml"
    _big_profile(venue)
    host, source = _host(venue)
    try:
        host.tuning.apply_now({"audio.gain": 33.0})
        host.press(pygame.K_s, SHIFT)
        assert _said(host) == f"saving venue profile {venue} ..."   # said at once
        host.press(pygame.K_s, SHIFT)                       # while the first is being written
        assert _said(host) == "the venue profile is being saved; try again when that is done"
        host.close()                                        # the app exits: the save is done first
        assert _said(host) == f"saved venue profile {venue}"
        assert load_profile(venue)["audio.gain"] == 33.0
        assert host.wait_for_save() is None                 # handed back once
    finally:
        source.close()


def test_a_shift_s_written_after_a_newer_panel_save_does_not_undo_it(tmp_path, monkeypatch):
    """Shift+S reads gain 31 and its file is held; the gain goes to 35 and the panel saves it.
    When the key's save is written, last, it wrote 31 over the panel's 35: the newer settings
    were lost. Each key keeps the value read last."""
    from sensekit.panel.control import AppControl

    venue = tmp_path / "venue.toml"
    venue.write_text("[audio]\ngain = 20.0  # the venue's\n")
    release, _ = _hold_writes(monkeypatch)
    host, source = _host(venue)
    try:
        host.tuning.apply_now({"audio.gain": 31.0})
        host.press(pygame.K_s, SHIFT)                       # reads 31; the write is held
        host.tuning.apply_now({"audio.gain": 35.0})
        AppControl(host).save()                             # the panel's save: reads 35, writes it
        assert load_profile(venue)["audio.gain"] == 35.0
        release.set()
        assert host.wait_for_save(timeout=60) == venue
        assert load_profile(venue)["audio.gain"] == 35.0
        assert "# the venue's" in venue.read_text()
        host.close()
    finally:
        release.set()
        source.close()


def test_a_panel_save_written_after_a_newer_shift_s_does_not_undo_it(tmp_path):
    """The other order: the panel reads gain 31 (its file written on a server thread, later),
    the gain goes to 35 and Shift+S saves it; the panel's write, last, kept 31."""
    from sensekit.panel.control import AppControl

    venue = tmp_path / "venue.toml"
    venue.write_text("[audio]\ngain = 20.0\n")
    host, source = _host(venue)
    try:
        control = AppControl(host)
        host.tuning.apply_now({"audio.gain": 31.0})
        values, path = control.save_values()                # on the run's thread
        host.tuning.apply_now({"audio.gain": 35.0})
        host.press(pygame.K_s, SHIFT)
        assert host.wait_for_save(timeout=60) == venue
        assert control.write_profile(values, path) == venue  # what the server's thread does next
        assert load_profile(venue)["audio.gain"] == 35.0
        host.close()
    finally:
        source.close()
