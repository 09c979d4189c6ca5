"""The default of ``teach words``: the parts of the takes taught as other speech when the takes
sound like one voice (``sensekit.audio.take_voices``), measured on one person's and on several
people's takes.

    python benchmarks/voice_one_voice.py [--cache FILE] [--seeds 3]

- **One person** (``voice_few_takes.py``'s folds): a developer speaker teaches 2-3 digits from
  4-5 takes each and 4-5 other digits once each, and is tested on all their other takes.
- **Several people** (``voice_embed_eval.py``'s split): the five triples of command digits taught
  from two speakers and heard on the third; the takes are all 50 of each speaker ("all"), or 2 or
  3 takes of each command and one of each other digit per speaker ("2 each", "3 each", drawn
  with ``--seeds`` seeds).

Every fold is taught plainly and with the parts (``voice_few_takes.fold_scores``), and heard at
the fixed 0.2. "auto" takes the parts when the takes' ``voice_spread`` is under a limit and no
word has more than ``MAX_ONE_VOICE_TAKES`` (20) takes, as ``teach_words`` does by default. The
limit is chosen leaving one speaker out: for speaker X it is the lowest spread of the
several-people folds taught without X (those that hold X out). One person's folds of X are
reported with X's limit; a several-people fold is reported once with the limit of each of its
two teachers. The last rows use the shipped ``ONE_VOICE_BELOW`` on every fold (in-sample).
"""
from __future__ import annotations

import argparse
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from voice_embed_eval import TRIPLES
from voice_eval import load_digits, all_segments
from voice_few_takes import SETS, Fold, Taught, embed_all, fold_scores, folds, measure
from sensekit.audio.take_voices import MAX_ONE_VOICE_TAKES, ONE_VOICE_BELOW, spread_of, voice_vector

SEVERAL = {"all": None, "2 each": 2, "3 each": 3}


class VoiceFold(Taught, total=False):
    """A fold of one person (``folds``: k, seed) or of several (``several_folds``: teachers), and
    its result: (plain, parts) as ``measure`` gives them."""
    k: int
    seed: int
    teachers: list[str]
    result: tuple[dict[str, Any], dict[str, Any]]


def with_voices(cache: Path | None) -> dict[str, np.ndarray]:
    data = embed_all(cache)
    if "voice" not in data:
        per_take = all_segments(load_digits(50))
        data["voice"] = np.stack([voice_vector(per_take[i][0]) for i in data["take"]])
        if cache is not None:
            arrays: dict[str, Any] = data      # numpy's stub: savez(**kwds) meets allow_pickle: bool
            np.savez(cache, **arrays)
    return data


def several_folds(data: dict[str, np.ndarray], takes: int | None, seeds: int) -> Iterator[VoiceFold]:
    """Each triple taught from two speakers' takes, tested on every take of the third."""
    digit, speaker = data["digit"], data["speaker"]
    names = sorted(set(speaker.tolist()))
    for words, held, seed in ((tuple(int(v) for v in t.split(",")), held, seed) for t in TRIPLES
                              for held in names for seed in range(1 if takes is None else seeds)):
        rng = np.random.default_rng([seed, *words, sum(map(ord, held))])
        used: list[int] = []
        for who in (n for n in names if n != held):
            for d in range(10):
                mine = np.nonzero((speaker == who) & (digit == d))[0]
                if takes is None:
                    used.extend(mine)
                else:
                    used.extend(rng.choice(mine, min(len(mine), takes if d in words else 1), replace=False))
        rows = np.array(used)
        yield {"speaker": held, "teachers": [n for n in names if n != held], "words": words,
               "taught": {d: rows[digit[rows] == d] for d in words},
               "other": rows[~np.isin(digit[rows], words)],
               "seen": set(range(10)) - set(words), "test": np.nonzero(speaker == held)[0]}


def one_person(f: Fold) -> VoiceFold:
    """``folds``' fold as a ``VoiceFold`` (a copy, with room for its result)."""
    return VoiceFold(speaker=f["speaker"], words=f["words"], taught=f["taught"], other=f["other"], seen=f["seen"],
                     test=f["test"], k=f["k"], seed=f["seed"])


def spread(data: dict[str, np.ndarray], f: Taught) -> float:
    v = data["voice"]
    return spread_of({str(d): v[i] for d, i in f["taught"].items()}, v[f["other"]])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cache", type=Path, help="keep the embeddings in this .npz between runs")
    ap.add_argument("--seeds", type=int, default=3, help="seeds of one person's folds and of several people's "
                                                         "2 or 3 each")
    args = ap.parse_args()
    warnings.filterwarnings("ignore", "Mean of empty slice")     # several people: no unseen digits
    warnings.filterwarnings("ignore", "invalid value encountered")
    data = with_voices(args.cache)
    sets = [tuple(int(v) for v in s.split(",")) for s in SETS]
    one = [(one_person(f), spread(data, f)) for f in folds(data, sets, [4, 5], args.seeds)]
    several = {name: [(f, spread(data, f)) for f in several_folds(data, k, args.seeds)] for name, k in SEVERAL.items()}
    speakers = sorted({f["speaker"] for f, _ in one})
    limit = {x: min(s for rows in several.values() for f, s in rows if f["speaker"] == x) for x in speakers}
    print("spread of the takes (min, median, max): " + "; ".join(
        f"{n}: {min(s for _, s in r):.3f} {np.median([s for _, s in r]):.3f} {max(s for _, s in r):.3f}"
        for n, r in [("one person", one), *((f"several people, {k}", v) for k, v in several.items())]))
    print("limit chosen without each speaker: " + ", ".join(f"{x} {limit[x]:.3f}" for x in speakers)
          + f"; shipped {ONE_VOICE_BELOW:g}")
    for f, _ in [*one, *(r for rows in several.values() for r in rows)]:
        sc = fold_scores(data, f)
        f["result"] = measure(data, f, sc, "plain", 0.2), measure(data, f, sc, "parts", 0.2)
    print("\ntakes          speaker / teacher  folds  parts taught  recall plain/parts/auto   false accepts "
          "plain/parts/auto   parts heard plain/parts/auto")
    table(data, "one person", [(f, s, f["speaker"]) for f, s in one], limit)
    for name, rows in several.items():
        table(data, f"several, {name}", [(f, s, t) for f, s in rows for t in f["teachers"]], limit)
    print(f"\nthe shipped limit {ONE_VOICE_BELOW:g} on every fold")
    shipped = {x: ONE_VOICE_BELOW for x in speakers}
    table(data, "one person", [(f, s, f["speaker"]) for f, s in one], shipped, only_all=True)
    for name, rows in several.items():
        table(data, f"several, {name}", [(f, s, f["teachers"][0]) for f, s in rows], shipped, only_all=True)
    return 0


def table(data: dict[str, np.ndarray], what: str, rows: list[tuple[VoiceFold, float, str]], limit: dict[str, float],
          only_all: bool = False) -> None:
    """One line per speaker (the one taught or one of the two teachers) and for all: plain, parts, auto."""
    scored: list[tuple[str, tuple[dict[str, Any], dict[str, Any], dict[str, Any]], bool]] = []   # plain, parts, auto
    for f, s, who in rows:
        plain, parts = f["result"]
        auto = s < limit[who] and max(len(t) for t in f["taught"].values()) <= MAX_ONE_VOICE_TAKES
        scored.append((who, (plain, parts, parts if auto else plain), auto))
    for who in ([] if only_all else sorted(limit)) + ["all"]:
        mine = [r for r in scored if who in ("all", r[0])]
        if not mine:
            continue
        cells = [" ".join(f"{np.mean([r[1][j][key] for r in mine]):.3f}" for j in (0, 1, 2))
                 for key in ("recall", "fa", "parts")]
        print(f"{what:<14} {who:<18} {len(mine):5d}  {np.mean([r[2] for r in mine]):12.2f}  {cells[0]:>23}  "
              f"{cells[1]:>30}  {cells[2]:>28}")


if __name__ == "__main__":
    raise SystemExit(main())
