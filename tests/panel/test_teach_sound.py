"""The panel's sound card on real speech (the voice extra and ../shared/data/words; no hands extra).

A stream of theo's spoken digits (8 kHz, half a second between takes) goes through a running
``VoiceStage`` block by block; the requests the page sends are made between blocks, as the card
would while the sound plays: record "one" before three ones, "nine" before three nines, learn.
The stage then names the held-out takes that follow, and the sounds are in the venue profile.
"""
from __future__ import annotations

from sensekit.installed import install_hint
import asyncio
import json
from pathlib import Path

import numpy as np
import pytest

from sensekit.capture.base import AudioBlock
from sensekit.errors import ConfigError
from sensekit.events import Sound

pytest.importorskip("webrtcvad", reason=f"needs the voice extra: {install_hint('voice')}")
pytest.importorskip("soxr", reason=f"needs the voice extra: {install_hint('voice')}")

RATE = 8000
GAP = np.zeros(RATE // 2, np.float32)


def _takes(shared_data: Path, takes: list[tuple[int, int]]) -> list[np.ndarray]:
    import soundfile as sf

    return [sf.read(str(shared_data / "words" / f"{d}_theo_{k}.wav"), dtype="float32")[0] for d, k in takes]


def _blocks(x: np.ndarray, t0: float, n: int = 800) -> list[AudioBlock]:
    return [AudioBlock(i, t0 + i * n / RATE, x[i:i + n], RATE) for i in range(0, len(x), n)]


def test_record_learn_save_and_the_running_stage_hears_the_sounds(shared_data, tmp_path):
    from sensekit.audio.voice import VoiceStage
    from sensekit.panel.teach_sound import SoundTeachControl
    from sensekit.profile.load import read_table

    venue = tmp_path / "venue.toml"
    venue.write_text("# the hall\n[audio]\ngain = 55.0\n")
    stage = VoiceStage({"words": ("left",)})              # a run with words only: no sounds yet
    card = SoundTeachControl(lambda: [stage], venue)
    assert card.act("status") == {"recording": None, "profile": str(venue), "examples": {}, "taught": [],
                                  "message": ""}
    with pytest.raises(ConfigError, match="nothing to learn"):
        card.act("learn")
    with pytest.raises(ConfigError, match="nothing learned yet"):
        card.save()
    plan = [("one", [(1, k) for k in range(4)]), ("nine", [(9, k) for k in range(4)])]
    heard = [e for b in _blocks(GAP, 0.0) for e in stage.process(b)]     # quiet first, as a room is
    t = len(GAP) / RATE
    for name, takes in plan:
        assert card.act("record", f" {name} ")["recording"] == name
        for x in _takes(shared_data, takes):
            for b in _blocks(np.concatenate([x, GAP]), t):
                heard += stage.process(b)
            t += (len(x) + len(GAP)) / RATE
        assert len(card.act("status")["examples"][name]) == 4
    card.act("stop")
    done = card.act("learn")
    assert done["message"] == "taught nine (4 examples), one (4 examples)" and done["taught"] == ["nine", "one"]
    assert card.save() == venue
    said = [(d, k) for k in range(20, 30) for d in (1, 9)]               # held-out takes
    for x in _takes(shared_data, said):
        for b in _blocks(np.concatenate([x, GAP]), t):
            heard += stage.process(b)
        t += (len(x) + len(GAP)) / RATE
    sounds = [e.sound for e in heard if isinstance(e, Sound)]
    truth = ["one" if d == 1 else "nine" for d, _ in said]
    assert card.act("status")["examples"]["one"] and len(card.act("status")["examples"]["one"]) == 4   # not recording
    right = sum(a == b for a, b in zip(sounds, truth))
    assert len(sounds) >= 18 and right >= 14, (sounds, truth)            # measured 17 of 20
    tables = read_table(venue, "sounds")
    assert sorted(tables) == ["nine", "one"] and "# the hall" in venue.read_text()


def test_recording_stops_by_itself_after_five(shared_data):
    from sensekit.audio.voice import VoiceStage
    from sensekit.panel.teach_sound import SoundTeachControl

    stage = VoiceStage({"words": ("left",)})
    card = SoundTeachControl(lambda: [stage], Path("unused.toml"))
    card.act("record", "one")
    for b in _blocks(GAP, 0.0):
        stage.process(b)
    t = len(GAP) / RATE
    for x in _takes(shared_data, [(1, k) for k in range(7)]):
        for b in _blocks(np.concatenate([x, GAP]), t):
            stage.process(b)
        t += (len(x) + len(GAP)) / RATE
    status = card.act("status")
    assert status["recording"] is None and len(status["examples"]["one"]) == 5


@pytest.mark.parametrize("name,message", [
    ("", "needs a name"), ("two words", "one word"), ("x" * 65, "at most 64"), ("a\nb", "one word"),
    (7, "needs a name"),
])
def test_names_are_checked_as_the_gesture_card_does(name, message):
    from sensekit.audio.voice import VoiceStage
    from sensekit.panel.teach_sound import SoundTeachControl

    card = SoundTeachControl(lambda: [VoiceStage({"words": ("left",)})], Path("unused.toml"))
    with pytest.raises(ConfigError, match=message):
        card.act("record", name)


def test_a_run_without_voice_has_nothing_to_teach():
    from sensekit.panel.teach_sound import SoundTeachControl

    with pytest.raises(ConfigError, match="no voice stage.*--sounds"):
        SoundTeachControl(lambda: [], Path("v.toml")).act("status")


def test_the_card_through_the_panel_of_a_running_piece(shared_data, tmp_path, process_piece):
    """``sensekit events FILE --sounds --profile P --panel``: a profile with no sounds yet is
    fine with a panel; the card is offered, records, learns and saves through HTTP."""
    import aiohttp
    import soundfile as sf

    stream = tmp_path / "ones.wav"
    sf.write(str(stream), np.concatenate([GAP, *[np.concatenate([x, GAP, GAP])
                                                for x in _takes(shared_data, [(1, k) for k in range(12)])]]), RATE)
    venue = tmp_path / "venue.toml"
    venue.write_text("[audio]\ngain = 55.0\n")                      # no sounds in it yet
    piece = process_piece("events", str(stream), "--sounds", "--profile", str(venue), "--realtime", "--jsonl")

    async def go() -> None:
        async with aiohttp.ClientSession() as s:
            async def teach(**body: object) -> tuple[int, dict]:
                async with s.post(piece.url + "api/teach-sound", json=body) as r:
                    return r.status, json.loads(await r.text())
            async with s.get(piece.url + "api/info") as r:
                assert (await r.json())["teach_sound"] is True
            status, bad = await teach(action="record", name="two words")
            assert status == 400 and "one word" in bad["error"] and "\n" not in bad["error"]
            status, bad = await teach(action=7)
            assert status == 400 and "`action` must be status, record, stop, forget or learn, got 7" in bad["error"]
            async with s.post(piece.url + "api/teach", json={"action": 7}) as r:       # the gesture card's door
                assert r.status == 400 and "must be status, record, forget or learn, got 7" in (await r.json())["error"]
            async with s.post(piece.url + "api/teach", json={"action": "record", "name": "a", "seconds": "x"}) as r:
                assert r.status == 400 and "`seconds` must be a number" in (await r.json())["error"]
            async with s.post(piece.url + "api/teach", json={"action": "status"}) as r:
                assert r.status == 400 and "no hand stage" in (await r.json())["error"]
            status, _ = await teach(action="record", name="one")
            assert status == 200
            for _ in range(200):
                status, now = await teach(action="status")
                if len(now["examples"]["one"]) >= 3:
                    break
                await asyncio.sleep(0.1)
            assert len(now["examples"]["one"]) >= 3, now
            status, done = await teach(action="learn")
            assert status == 200 and done["message"].startswith("taught one") and str(venue) in done["message"]
    asyncio.run(go())
    assert "[sounds.one]" in venue.read_text()


def test_hostile_card_requests_are_one_sentence_and_bounded():
    """Found by a hostile sweep: 20,000 `record` requests with new names took 197 s on the run's
    thread (each answer listed every name), `forget` of a name never recorded answered "forgot",
    and an unknown action was quoted whole (100,000 characters)."""
    from sensekit.audio.voice import VoiceStage
    from sensekit.panel.teach_sound import MAX_SOUNDS, SoundTeachControl

    card = SoundTeachControl(lambda: [VoiceStage({"words": ("left",)})], Path("unused.toml"))
    for i in range(MAX_SOUNDS):
        card.act("record", f"n{i}")
    with pytest.raises(ConfigError, match="at most 32 sounds are recorded at once; forget one first"):
        card.act("record", "one-more")
    assert card.act("record", "n3")["recording"] == "n3"           # again: an old name is fine
    assert card.act("forget", "n3")["recording"] is None            # forgetting it stops recording it
    assert card.act("record", "one-more")["recording"] == "one-more"
    with pytest.raises(ConfigError, match="nothing recorded for 'never' to forget"):
        card.act("forget", "never")
    with pytest.raises(ConfigError) as err:
        card.act("x" * 100_000)
    assert len(str(err.value)) < 200 and "\n" not in str(err.value)
    assert card.act("stop")["recording"] is None and card.act("stop")["recording"] is None
    with pytest.raises(ConfigError, match="nothing to learn"):
        card.act("learn")
    with pytest.raises(ConfigError, match="nothing learned yet"):
        card.save()
