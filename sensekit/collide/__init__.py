"""Collision detection: pixel-perfect hit tests, a grid broad phase, contacts.

- ``hit``: ``to_mask``, ``hit_test``, ``hit_test_point``, ``overlap_area``, bounding boxes
  (``pygame.mask``, alpha thresholds).
- ``grid``: ``circle_pairs``, ``box_pairs``, ``pairs_within`` (uniform grid, exact).
- ``neighbours``: ``neighbour_pairs`` (pairs within a distance, with offsets) and
  ``NeighbourGrid`` (stream candidate pairs block by block): the neighbour search
  ``sensekit.steer.Flock`` uses.
- ``contact``: contact points and normals for circle pairs and circle-box, ``resolve``.
"""
from sensekit.collide.contact import box_contacts, circle_contacts, resolve, resolve_box
from sensekit.collide.grid import auto_cell, box_pairs, circle_pairs, pairs_within
from sensekit.collide.hit import (bounding_box, boxes_overlap, hit_test, hit_test_point,
                                  overlap_area, to_mask)
from sensekit.collide.neighbours import NeighbourGrid, NeighbourPairs, neighbour_pairs

__all__ = ["box_contacts", "circle_contacts", "resolve", "resolve_box", "auto_cell", "box_pairs", "circle_pairs",
           "pairs_within", "bounding_box", "boxes_overlap", "hit_test", "hit_test_point", "overlap_area", "to_mask",
           "NeighbourGrid", "NeighbourPairs", "neighbour_pairs"]
