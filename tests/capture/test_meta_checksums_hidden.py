"""A damaged ``meta.json`` cannot switch off a track's checksums either (harden23).

``"checksums": null`` (or ``"timestamps_checksums": null``) in a recording whose folder holds the
checksum file read as a recording made before checksums: damaged audio replayed as if it were right,
exit 0, and ``inspect`` said the file was missing while it lay there. Now it is one line naming the file,
as a null track that the folder holds is (``test_meta_faults.py``).
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from sensekit.capture.checksums import CHECKSUM_FILES
from sensekit.capture.recording import ReplaySource
from sensekit.capture.recording_check import check_recording
from sensekit.cli import main
from sensekit.errors import RecordingError

from ..test_arg_types import DEMO


@pytest.mark.parametrize(("track", "key", "name"), CHECKSUM_FILES)
def test_a_null_checksum_file_that_the_folder_holds_is_an_error(track: str, key: str, name: str, tmp_path: Path,
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    rec = Path(shutil.copytree(DEMO, tmp_path / "copy.skrec"))
    meta = json.loads((rec / "meta.json").read_text())
    assert meta[track][key] == name
    meta[track][key] = None
    (rec / "meta.json").write_text(json.dumps(meta))
    words = f"the recording holds '{name}' but meta.json does not name it (`{track}.{key}` is null)"
    with pytest.raises(RecordingError, match=words.replace("(", r"\(").replace(")", r"\)")):
        ReplaySource(rec)
    with pytest.raises(RecordingError, match="does not name it"):
        check_recording(rec)
    for argv in (["events", str(rec), "--max-items", "10"], ["inspect", str(rec)]):
        assert main(argv) == 2
        err = capsys.readouterr().err.strip()
        assert words in err and len(err.splitlines()) == 1, err
    (rec / name).unlink()                                  # a recording made before them: plays unverified
    assert sum(1 for _ in ReplaySource(rec)) > 0
