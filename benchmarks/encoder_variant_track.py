#!/usr/bin/env python3
"""``track_eval.py`` with MobileSAM's encoder run as one of ``_encoder_variants``'s variants (branch ``click26``).

``track_eval.py --point-prompt SAM_ROOT`` builds ``_point_prompt.MobileSam(SAM_ROOT, side=S)`` and has
no flag for another encoder (and was not to be edited this session); this wrapper takes
``--encoder-variant V`` (and ``--encoder-work DIR``, where the ONNX files are kept), replaces
``_point_prompt.MobileSam`` by ``_encoder_variants.VariantSam`` with that variant and runs
``track_eval.main`` with every other argument, so that ``--point-prompt``, ``--point-prompt-late D``,
``--catch-up`` and ``--point-prompt-side S`` take the variant's box.

    PYTHONPATH=/path/to/torch-cpu:/path/to/onnx .venv/bin/python benchmarks/encoder_variant_track.py
        --encoder-variant ort-int8 --no-mil --held-out --point-prompt DIR --point-prompt-late 15 [--catch-up]
"""
from __future__ import annotations

import argparse
import functools
import sys
from pathlib import Path

import _point_prompt
from _encoder_variants import VariantSam, check_variant


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0], add_help=False)
    ap.add_argument("--encoder-variant", required=True)
    ap.add_argument("--encoder-work", type=Path, default=Path("/tmp/click26/onnx"))
    args, rest = ap.parse_known_args(argv)
    try:
        variant = check_variant(args.encoder_variant)
    except ValueError as e:
        print(e, file=sys.stderr)
        return 2
    import track_eval

    # track_eval imports MobileSam from _point_prompt when it builds the model: this is what it gets
    _point_prompt.__dict__["MobileSam"] = functools.partial(VariantSam, variant=variant, work=args.encoder_work)
    return track_eval.main(rest)


if __name__ == "__main__":
    raise SystemExit(main())
