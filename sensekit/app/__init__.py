"""The pygame app layer: what every mini-app in ``apps/`` is built on.

- ``base.App``: the class an app subclasses (title, needs, stages, update, draw).
- ``host.AppHost`` / ``host.run_app``: the fixed-step loop, HUD, keys, headless
  mode, screenshots, video and event logs, the mirror, the source-lost banner.
- ``convert``: BGR/RGB, NumPy/pygame surfaces, normalized/pixel coordinates.
- ``draw``: cached text, title bar, instruction line, banners, meters.
- ``registry``: finds the apps in the repository's ``apps/`` folder by path.
- ``sources``: picks live devices or the bundled recording; names missing inputs.
- ``hand_input.HandInput``: the index fingertip as a pointer, a pinch as a click (hands extra).

Writing a new app (e.g. ``apps/steer.py``): one file in ``apps/`` with a module
docstring (its first line is what ``sensekit apps`` prints) and one ``App``
subclass. Set ``title``, ``instructions``, ``needs`` (``{"video"}``,
``{"audio"}`` or both), optionally ``window_size`` and ``mirror``; return the
stages you need from ``stages()``; subscribe to events in ``setup()`` with
``self.on(name, handler)``; advance the game in ``update(dt)`` (a fixed step,
never wall-clock time) using ``self.rng`` for randomness; draw everything in
``draw(screen)`` and finish with ``self.draw_frame(screen, score)``. Set
``self.camera_view`` to the rectangle where you draw ``self.camera_surface(size)``
so that clicks pick colours there. ``sensekit run NAME --headless --frames 300
--screenshot out.png`` then runs it on the bundled recording.
"""
import os

os.environ.setdefault("PYGAME_HIDE_SUPPORT_PROMPT", "1")   # no banner: `sensekit run` prints one line

from sensekit.app.base import App  # noqa: E402

__all__ = ["App"]
