"""The clap benchmarks' common start: the shared data's annotated clap clips and speech clips,
and the two experts' fold options (clap_misses, clap_route, clap_route_misses,
clap_speaker_heldout).

``clap_clips(data)`` reads ``labels.csv`` once: the clips with annotated claps, the speech
clips the noise curve lays under them (``clap_noise.other_speech``), and the audio of both by
file. A folder without ``labels.csv`` is a one-line message and exit status 2.
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np
from _reference import SHARED_DATA


def add_data_option(ap: argparse.ArgumentParser) -> None:
    ap.add_argument("--data", type=Path, default=SHARED_DATA, help="the shared data folder (labels.csv)")


def add_expert_folds_options(ap: argparse.ArgumentParser) -> None:
    """``--clean-folds`` and ``--below-folds``: ``train_clap.py --save-folds`` of each expert."""
    ap.add_argument("--clean-folds", type=Path, required=True,
                    help="train_clap.py --save-folds of the clean expert (the shipped trees)")
    ap.add_argument("--below-folds", type=Path, required=True,
                    help="train_clap.py --save-folds of the noise expert (trees with the low-SNR copies)")


def clap_clips(data: Path) -> tuple[list[Any], list[Any], dict[str, tuple[np.ndarray, int]]]:
    """The clips with annotated claps, the speech clips, and ``{file: (samples, rate)}`` of both."""
    from sensekit.evaluation.audio.evaluate import read_clips, read_wav

    if not (data / "labels.csv").is_file():
        print(f"shared data not found at {data} (use --data)", file=sys.stderr)
        raise SystemExit(2)
    clips = read_clips(data)
    targets = [c for c in clips if c.onsets]
    speech = [c for c in clips if c.label == "speech"]
    return targets, speech, {c.file: read_wav(data / c.file) for c in targets + speech}
