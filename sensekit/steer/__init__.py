"""Steering: a vehicle, behaviours that return forces, named mixing, a vectorised flock.

- ``vehicle``: ``Vehicle`` (mass, max_speed, max_force, edges wrap/bounce; ``update`` is the
  one integrator).
- ``behaviours``: seek, flee, arrive, pursue, evade, wander, avoid, follow_path,
  separation/alignment/cohesion/flock, leader_follow, follow_flow, non_penetration.
- ``mix``: ``Mix`` -- named weights.
- ``flock``: ``Flock`` -- thousands of agents on a neighbour grid.
- ``flowfield``: ``FlowField`` -- from optical flow or motion masks.
- ``keep_up``: ``TargetSpeed``, ``keep_up_speed`` -- a pursuer's top speed that follows its target's.
"""
# The Flock module is imported first: importing a submodule binds its name on the package,
# and ``sensekit.steer.flock`` must end up as the single-agent ``flock`` behaviour below.
from sensekit.steer.flock import Flock  # isort: skip
from sensekit.steer.behaviours import (alignment, arrive, avoid, cohesion, evade, flee, flock,
                                       follow_flow, follow_path, leader_follow,
                                       non_penetration, pursue, seek, separation, wander)
from sensekit.steer.flowfield import FlowField
from sensekit.steer.keep_up import TargetSpeed, keep_up_speed
from sensekit.steer.mix import Mix, mix
from sensekit.steer.vehicle import Vehicle

__all__ = ["Vehicle", "Flock", "FlowField", "Mix", "mix", "seek", "flee", "arrive", "pursue",
           "evade", "wander", "avoid", "follow_path", "separation", "alignment", "cohesion",
           "flock", "leader_follow", "follow_flow", "non_penetration", "TargetSpeed", "keep_up_speed"]
