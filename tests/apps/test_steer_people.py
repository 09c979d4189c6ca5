"""Steer's "flock flees people" on real footage: several people at once, each a blob with an id."""
from __future__ import annotations

import numpy as np

from sensekit.app.host import AppHost, RunOptions
from sensekit.app.registry import load
from sensekit.app.script import Script
from sensekit.capture.spec import open_source


def test_the_flock_flees_every_person_on_the_plaza(shared_data):
    clip = shared_data / "video" / "people" / "pets2009_vtest_part1.mp4"
    source = open_source(str(clip))
    source.open()
    try:
        host = AppHost(load("steer"), source, RunOptions(headless=True, script=Script(mode="flock flees people")))
        most, ids, gaps = 0, set(), []
        rng = np.random.default_rng(0)
        for step in range(450):                       # 15 s of run time, 150 frames of the 10 fps clip
            host.step()
            people = host.app.state()["people"]
            most = max(most, len(people))
            ids |= {i for i, _ in people}
            if step >= 300 and people:
                v = host.app.camera_view
                at = np.array([p for _, p in people]) - v.topleft
                boids = host.app.flock.positions
                near = np.hypot(*(boids[:, None, :] - at[None]).transpose(2, 0, 1)).min(axis=1)
                anywhere = rng.uniform((0, 0), (v.w, v.h), boids.shape)
                chance = np.hypot(*(anywhere[:, None, :] - at[None]).transpose(2, 0, 1)).min(axis=1)
                gaps.append(np.median(near) / np.median(chance))
        host.close()
    finally:
        source.close()
    assert host.app.state()["mode"] == "flock flees people"
    assert most >= 4, most                            # several walkers at once, each its own blob
    assert len(ids) >= 5 and all(isinstance(i, int) and i > 0 for i in ids)
    assert np.median(gaps) > 1.2, np.median(gaps)     # the boids keep further from people than chance
