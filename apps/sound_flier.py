"""Sound flier: your voice lifts a little plane through a cave; touch a rock and the run ends.

Loudness (the 0..100 activity level) pushes up against gravity: at the hover
level the two cancel, louder climbs, quieter sinks (lift grows with level^1.5,
so a shout climbs briskly and a murmur slowly sinks). Velocity loses 20% a step
(the book's friction, tuned for 30 steps a second), which gives the floaty feel. The cave scrolls at a steady speed and
gets tighter the further you go. Score = distance in metres. After a crash,
shout (or press r) to fly again. ``--preset book`` flies by the book's numbers: gravity 0.4,
lift = level x 0.02, friction 0.9. Voice steering: ``sensekit run sound_flier --words up,down``
(the voice extra) - once a word is heard, loudness no longer lifts and gravity is off; each "up"
or "down" gives the plane a kick (``word_kick``), and any word flies again after a crash.
Every constant is a setting (``sensekit settings sound_flier``).
"""
from __future__ import annotations

import math
from typing import Any, Literal

import numpy as np
import pygame

from sensekit.app import App, draw as D
from sensekit.audio.noise_floor import NoiseFloor
from sensekit.audio.pipeline import AudioStage
from sensekit.events import Level, Word
from sensekit.settings import Setting, setting

PX_PER_M = 20.0
FLIER_X = 140
RESTART_DELAY_S = 1.0
ROCK = (92, 78, 70)
ROCK_EDGE = (150, 130, 112)


class SoundFlier(App, section="sound_flier",
                 title="sound flier: your voice lifts a plane through a cave"):
    title = "Sound Flier"
    instructions = "make noise to climb, go quiet to sink - dodge the rocks!   r restart  c calibrate  +/- lift"
    needs = frozenset({"audio"})
    mirror = False
    sensitivity = setting(5, "lift sensitivity (keys +/-): each step lowers the hover level by 10 %",
                          lo=1, hi=9, step=1)
    gravity = setting(1.2, "pull down per step (the book: 0.4)", unit="px/step²", lo=0, hi=20)
    lift: Setting[Literal["power", "linear"]] = setting(
        "power", "power: lift = gravity x (level / hover level)^lift_power; linear: lift = "
        "level x lift_per_level (the book)", choices=("power", "linear"))
    lift_power = setting(1.5, "how steeply lift grows with loudness (power lift)", lo=0.25, hi=4)
    hover_level = setting(62.0, "activity level that holds the flier still at sensitivity 5 (power lift)",
                          unit="level", lo=1, hi=100)
    lift_per_level = setting(0.02, "lift per activity level per step (linear lift; the book: 0.02)",
                             unit="px/step² per level", lo=0, hi=1)
    friction = setting(0.8, "velocity kept each step (the book: 0.9)", unit="fraction", lo=0, hi=1)
    speed = setting(4.0, "cave scroll speed", unit="px/step", lo=0.5, hi=30)
    restart_level = setting(45.0, "a shout this loud restarts after a crash", unit="level", lo=0, hi=100)
    word_kick = setting(14.0, "voice steering (--words up,down): the speed a spoken up/down gives",
                        unit="px/step", lo=0, hi=60)
    plus_minus = ("sound_flier.sensitivity", 1)

    def stages(self) -> list[AudioStage]:
        self.audio = AudioStage(smoothing_ms=100.0, noise_floor=NoiseFloor(learn_ms=1000.0))
        return [self.audio]

    def setup(self) -> None:
        self.level = 0.0
        self.best_m = 0.0
        self.runs = 0
        self.history: list[tuple[float, float, float, float, bool]] = []
        self.on("level", self._on_level)
        self.on("word", self._on_word)          # voice steering, with --words up,down
        self.voice_steering = False
        w, h = self.window_size
        self.cave = pygame.Rect(0, D.TITLE_H, w, h - D.TITLE_H - D.FOOTER_H)
        self.top, self.bottom = self.cave.top + 18, self.cave.bottom - 18
        self.background = self._make_background()
        self.restart()

    def _on_level(self, event: Level) -> None:
        self.level = event.level

    def _on_word(self, event: Word) -> None:
        self.voice_steering = True
        if self.crashed_at is not None:
            if self.t - self.crashed_at >= RESTART_DELAY_S:
                self.restart()
            return
        if event.word in ("up", "down"):
            self.vy += -self.word_kick if event.word == "up" else self.word_kick

    def restart(self) -> str:
        self.y = (self.top + self.bottom) / 2
        self.vy = 0.0
        self.world_x = 0.0
        self.crashed_at: float | None = None
        self.trail: list[tuple[float, float]] = []
        # rocks: world x of the left side, width, height, hanging from the top?
        self.rocks = np.zeros((0, 4))
        self.next_rock_x = 500.0
        self.runs += 1
        return "go!"

    # -- the world -----------------------------------------------------------
    def _spawn_rocks(self) -> None:
        cave_h = self.bottom - self.top
        while self.next_rock_x < self.world_x + self.cave.w + 80:
            hardness = min(1.0, self.world_x / 6000.0)
            width = self.rng.uniform(34, 64)
            height = self.rng.uniform(60, 120 + 110 * hardness)
            from_top = bool(self.rng.random() < 0.5)
            near = self.rocks[self.rocks[:, 0] > self.next_rock_x - 140] if len(self.rocks) else self.rocks
            opposite = near[near[:, 3] != from_top]
            if len(opposite):                          # always leave a passage
                height = min(height, cave_h - opposite[:, 2].max() - 150)
            self.rocks = np.vstack([self.rocks, [self.next_rock_x, width, max(30.0, height), from_top]])
            self.next_rock_x += self.rng.uniform(150 - 50 * hardness, 240 - 70 * hardness)
        self.rocks = self.rocks[self.rocks[:, 0] + self.rocks[:, 1] > self.world_x - 20]

    def _flier_points(self) -> np.ndarray:
        return np.array([[FLIER_X + 26, self.y], [FLIER_X - 22, self.y + 3],
                         [FLIER_X - 22, self.y - 15], [FLIER_X, self.y + 7]])

    def _hits_rock(self) -> bool:
        if not len(self.rocks):
            return False
        pts = self._flier_points()
        px = pts[:, 0][None, :] + self.world_x           # (1, points) in world x
        py = pts[:, 1][None, :]
        x0, w, h, top = (self.rocks[:, i][:, None] for i in range(4))
        cx = x0 + w / 2
        reach = h * np.clip(1 - np.abs(px - cx) / (w / 2), 0, 1)   # triangle height at px
        inside_x = (px >= x0) & (px <= x0 + w)
        hit = np.where(top > 0, py <= self.top + reach, py >= self.bottom - reach)
        return bool((inside_x & hit & (reach > 0)).any())

    # -- the simulation ------------------------------------------------------
    def update(self, dt: float) -> None:
        if self.crashed_at is not None:
            if self.t - self.crashed_at >= RESTART_DELAY_S and self.level >= self.restart_level:
                self.restart()
            return
        self.vy += self.acceleration()
        y_before = self.y
        self.y = min(max(self.y + self.vy, self.top + 12), self.bottom - 8)
        self.vy *= self.friction
        self.world_x += self.speed
        free = self.top + 12 < self.y < self.bottom - 8
        self.history.append((self.t, self.level, self.bottom - self.y, y_before - self.y, free))
        self.trail.append((self.world_x + FLIER_X - 22, self.y + 1))
        del self.trail[:-24]
        self._spawn_rocks()
        if self._hits_rock():
            self.crashed_at = self.t
            self.best_m = max(self.best_m, self.distance_m)

    def acceleration(self) -> float:
        """This step's pull (px/step², down): gravity minus the lift of the current level."""
        if self.voice_steering:                # words steer: no gravity, no loudness lift
            return 0.0
        if self.lift == "linear":              # the book: level x 0.02, sensitivity scales it
            return self.gravity - self.level * self.lift_per_level * 1.1 ** (self.sensitivity - 5)
        return self.gravity * (1.0 - float((self.level / self.hover_level_now) ** self.lift_power))

    @property
    def hover_level_now(self) -> float:
        """The level that holds the flier still: lower with more sensitivity, higher in a noisy room."""
        if self.lift == "linear":
            per = self.lift_per_level * 1.1 ** (self.sensitivity - 5)
            return min(100.0, self.gravity / per) if per > 0 else 100.0
        floor = self.audio.noise_floor.level_in_use if self.audio.noise_floor.ready else 0.0
        return self.hover_level * 1.1 ** (5 - self.sensitivity) + max(0.0, floor - 20.0)

    @property
    def distance_m(self) -> float:
        return self.world_x / PX_PER_M

    @property
    def best_so_far_m(self) -> float:
        """The best distance of any run, this one included (the HUD never shows a best below the score)."""
        return max(self.best_m, self.distance_m)

    # -- keys ----------------------------------------------------------------
    def recalibrate(self) -> str:
        self.audio.noise_floor.recalibrate()
        return "measuring the room's noise - stay quiet for a second"

    def levels(self) -> dict[str, float]:
        """The status line's numbers, named for a player: the voice level now and the level
        above which the plane climbs (below it, it sinks); words steering: the level only."""
        if self.voice_steering:
            return {"voice level": self.level}
        return {"voice level": self.level, "climbs above": self.hover_level_now}

    def level_lines(self) -> dict[str, float]:
        """The panel's level graph draws the level the plane climbs above (what the HUD says)."""
        return {} if self.voice_steering else {"climbs above": self.hover_level_now}

    def state(self) -> dict[str, Any]:
        return {"altitude": self.bottom - self.y, "distance_m": self.distance_m,
                "crashed": self.crashed_at is not None, "runs": self.runs, "best_m": self.best_so_far_m}

    # -- drawing -------------------------------------------------------------
    def _make_background(self) -> pygame.Surface:
        w, h = self.cave.size
        y = np.linspace(0, 1, h)[None, :, None]
        rgb = (np.array([18, 30, 48]) * (1 - y) + np.array([8, 12, 22]) * y)
        rgb = np.broadcast_to(rgb, (w * 2, h, 3)).copy()
        bg = pygame.surfarray.make_surface(rgb.astype(np.uint8))
        for _ in range(26):                               # distant rocks, drawn once
            x, r = self.rng.uniform(0, 2 * w), self.rng.uniform(20, 70)
            yy = self.rng.choice([0, h])
            pygame.draw.circle(bg, (28, 40, 58), (int(x), int(yy)), int(r))
            pygame.draw.circle(bg, (28, 40, 58), (int(x - 2 * w), int(yy)), int(r))
        return bg

    def _draw_flier(self, screen: pygame.Surface) -> None:
        angle = math.atan2(self.vy, self.speed * 2)
        ca, sa = math.cos(angle), math.sin(angle)
        body = [(-24, 0), (-24, -16), (-15, -7), (27, 0), (-9, 7)]
        pts = [(FLIER_X + x * ca - y * sa, self.y + x * sa + y * ca) for x, y in body]
        color = (255, 90, 60) if self.crashed_at is not None else (255, 206, 64)
        pygame.draw.polygon(screen, color, pts)
        pygame.draw.polygon(screen, (40, 30, 20), pts, 2)

    def draw(self, screen: pygame.Surface) -> None:
        cave = self.cave
        off = int(self.world_x / 2) % cave.w                   # parallax
        screen.blit(self.background, cave.topleft, pygame.Rect(off, 0, cave.w, cave.h))
        for tx, ty in self.trail[::2]:
            pygame.draw.circle(screen, (255, 230, 150), (int(tx - self.world_x), int(ty)), 3)
        screen.fill(ROCK, (0, cave.top, cave.w, self.top - cave.top))
        screen.fill(ROCK, (0, self.bottom, cave.w, cave.bottom - self.bottom))
        for x0, w, h, top in self.rocks:
            x = x0 - self.world_x
            base, tip = (self.top, self.top + h) if top else (self.bottom, self.bottom - h)
            pts = [(x, base), (x + w, base), (x + w / 2, tip)]
            pygame.draw.polygon(screen, ROCK, pts)
            pygame.draw.polygon(screen, ROCK_EDGE, pts, 2)
        self._draw_flier(screen)
        hover = self.hover_level_now
        D.meter(screen, pygame.Rect(cave.right - 26, cave.top + 40, 14, cave.h - 80), self.level,
                color=D.GREEN if self.level >= hover else D.CYAN, mark=hover)
        D.label(screen, "voice", (cave.right - 19, cave.top + 38), size=16, color=D.GREY,
                anchor="midbottom", pad_px=(3, 2))
        if self.crashed_at is not None:
            D.banner(screen, f"CRASH!  {self.distance_m:.0f} m - shout to fly again",
                     color=(170, 40, 40))
        elif self.t < 2.5 and self.runs == 1:
            D.banner(screen, "Make noise to fly!", color=(40, 110, 170), y=cave.top + 60)
        self.draw_frame(screen, f"{self.distance_m:5.0f} m   best {self.best_so_far_m:.0f} m")
