"""``sensekit inspect REC --add-checksums`` (``sensekit.capture.checksums_add``): a
recording made before checksums gets the files it lacks, as the recorder would have written
them, and nothing else; damage is never blessed with fresh checksums."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from sensekit.capture.checksums import AUDIO_CRC_FILE, TIMESTAMPS_CRC_FILE, VIDEO_CRC_FILE, missing_checksums
from sensekit.capture.checksums_add import add_checksums
from sensekit.capture.recording_check import check_recording
from sensekit.cli import main
from sensekit.errors import RecordingError
from tests.capture.test_demo_checksums import strip

FILES = ("meta.json", VIDEO_CRC_FILE, AUDIO_CRC_FILE, TIMESTAMPS_CRC_FILE)


@pytest.fixture(scope="module")
def demo(recordings_dir: Path) -> Path:
    return recordings_dir / "demo.skrec"


def _drop_timestamp_checksums(rec: Path) -> Path:
    """A recording made with frame and audio checksums, before the timestamps had theirs."""
    meta = json.loads((rec / "meta.json").read_text())
    meta["video"].pop("timestamps_checksums")
    (rec / "meta.json").write_text(json.dumps(meta, indent=2, sort_keys=True) + "\n")
    (rec / TIMESTAMPS_CRC_FILE).unlink()
    return rec


def test_an_old_recording_gets_what_is_bundled_and_a_second_run_writes_nothing(demo: Path, tmp_path: Path) -> None:
    rec = strip(demo, tmp_path / "demo.skrec")
    assert missing_checksums(check_recording(rec, decode=False).meta) == [VIDEO_CRC_FILE, TIMESTAMPS_CRC_FILE,
                                                                          AUDIO_CRC_FILE]
    assert add_checksums(rec) == {VIDEO_CRC_FILE: 300, TIMESTAMPS_CRC_FILE: 300, AUDIO_CRC_FILE: 625}
    for name in FILES:
        assert (rec / name).read_bytes() == (demo / name).read_bytes(), name
    assert add_checksums(rec) == {}
    for name in FILES:
        assert (rec / name).read_bytes() == (demo / name).read_bytes(), name


def test_a_recording_with_some_checksums_gets_only_the_missing_ones(demo: Path, tmp_path: Path) -> None:
    """Frame and audio checksums but none for the timestamps (recorded before they existed):
    the timestamps get theirs (the old backfill refused: 'has checksums already')."""
    import shutil

    rec = _drop_timestamp_checksums(Path(shutil.copytree(demo, tmp_path / "mid.skrec")))
    before = {n: (rec / n).read_bytes() for n in (VIDEO_CRC_FILE, AUDIO_CRC_FILE)}
    assert add_checksums(rec) == {TIMESTAMPS_CRC_FILE: 300}
    for name in FILES:
        assert (rec / name).read_bytes() == (demo / name).read_bytes(), name
    assert before == {n: (rec / n).read_bytes() for n in before}


def test_damage_or_a_stray_file_is_refused_and_nothing_is_written(demo: Path, tmp_path: Path) -> None:
    import shutil

    rec = _drop_timestamp_checksums(Path(shutil.copytree(demo, tmp_path / "bad.skrec")))
    rows = (rec / VIDEO_CRC_FILE).read_text().splitlines()
    rows[5] = rows[5][:-1] + ("1" if rows[5][-1] == "0" else "0")   # frame 4's checksum no longer matches
    (rec / VIDEO_CRC_FILE).write_text("\n".join(rows) + "\n")
    meta = (rec / "meta.json").read_bytes()
    with pytest.raises(RecordingError, match=r"'bad.skrec' is damaged, so no checksums are written: .*frame\(s\) 4 "):
        add_checksums(rec)
    assert not (rec / TIMESTAMPS_CRC_FILE).exists() and (rec / "meta.json").read_bytes() == meta

    rec = _drop_timestamp_checksums(Path(shutil.copytree(demo, tmp_path / "stray.skrec")))
    (rec / TIMESTAMPS_CRC_FILE).write_text("row,crc32\n")
    with pytest.raises(RecordingError, match="holds 'video_ts_crc.csv' but meta.json does not name it"):
        add_checksums(rec)

    rec = strip(demo, tmp_path / "cut.skrec")
    meta_d = json.loads((rec / "meta.json").read_text())
    meta_d["complete"] = False
    (rec / "meta.json").write_text(json.dumps(meta_d))
    with pytest.raises(RecordingError, match="'cut.skrec' is incomplete"):
        add_checksums(rec)
    assert not any((rec / n).exists() for n in FILES[1:])


def test_inspect_points_to_the_option_and_the_option_writes_them(demo: Path, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture) -> None:
    rec = strip(demo, tmp_path / "old.skrec")
    assert main(["inspect", str(rec), "--quick"]) == 0
    out = capsys.readouterr().out
    assert "frames are not verified" in " ".join(out.split())
    hint = " ".join(out.split("\nchecksums ", 1)[1].split())
    assert hint.startswith(f"video_crc.csv, video_ts_crc.csv, audio_crc.csv missing: `sensekit inspect {rec} "
                           "--add-checksums` writes them"), out
    assert main(["inspect", str(rec), "--add-checksums"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("wrote video_crc.csv (300 rows), video_ts_crc.csv (300 rows), audio_crc.csv (625 rows)")
    assert "not verified" not in out and "--add-checksums" not in out
    assert main(["inspect", str(rec), "--add-checksums", "--quick"]) == 0
    assert "has every checksum file already; nothing written" in capsys.readouterr().out


def test_a_version_2_recording_gets_the_recorder_s_own_checksums(tmp_path: Path) -> None:
    """Segments, its own block size: what add_checksums writes is what the recorder wrote."""
    from tests.capture.test_inspect import make

    made = make(tmp_path / "made.skrec")
    rec = strip(made, tmp_path / "old.skrec")
    assert add_checksums(rec) == {VIDEO_CRC_FILE: 25, TIMESTAMPS_CRC_FILE: 25, AUDIO_CRC_FILE: 12}
    for name in FILES[1:]:
        assert (rec / name).read_bytes() == (made / name).read_bytes(), name
    assert json.loads((rec / "meta.json").read_text()) == json.loads((made / "meta.json").read_text())
