"""The generated tree modules are what ``clap_training.format_module`` writes from their own
arrays: both end in one ``clap_trees.model_dict`` call, so a regenerated module is the file."""
from __future__ import annotations

from pathlib import Path

import sensekit.audio.clap_model as shipped
import sensekit.audio.clap_noise_model as noise
from sensekit.evaluation.audio.clap_training import format_module
from sensekit.audio.clap_trees import model_dict

_CALL = "MODEL: dict[str, Any] = model_dict(DEPTH, BASE, TREES)\n"


def test_the_shipped_model_module_is_its_own_arrays_regenerated_byte_for_byte():
    text = Path(shipped.__file__).read_text()
    note = text.splitlines()[3]                    # the training line the generator was given
    assert format_module(shipped.MODEL, shipped.THRESHOLD, note) == text
    assert text.endswith(_CALL)


def test_the_noise_experts_trees_and_model_are_what_the_generator_writes():
    # its docstring and split constants were written by hand (copied from the claps8 branch);
    # from the trees down it is the generator's text for its own arrays
    text = Path(noise.__file__).read_text()
    regenerated = format_module(noise.MODEL, 0.0, "")
    assert text[text.index("TREES = ("):] == regenerated[regenerated.index("TREES = ("):]
    assert text.endswith(_CALL)


def test_model_dict_lays_the_trees_out_by_field():
    trees = (((0,), (1.5,), (-1.0, 2.0)), ((3,), (float("inf"),), (0.5, 0.25)))
    assert model_dict(1, 0.1, trees) == {"depth": 1, "base": 0.1, "feature": [(0,), (3,)],
                                         "threshold": [(1.5,), (float("inf"),)],
                                         "leaf": [(-1.0, 2.0), (0.5, 0.25)]}
