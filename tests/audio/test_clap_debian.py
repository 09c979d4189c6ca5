"""Debian packages' recordings as training-only clap negatives (clap_debian; thirty-third pass):
decoding, the files of a source, the clips built from them, and the errors. Synthetic files only."""
from __future__ import annotations

import io
import zipfile
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import soundfile as sf

from sensekit.evaluation.audio import clap_debian as cd


def wav_bytes(x: np.ndarray, rate: int, fmt: str = "WAV") -> bytes:
    buf = io.BytesIO()
    sf.write(buf, x, rate, format=fmt, subtype="PCM_16")
    return buf.getvalue()


def click(rate: int, ms: float = 40.0, seed: int = 0) -> np.ndarray:
    """A decaying noise burst (a key or a step)."""
    n = round(rate * ms / 1000)
    rng = np.random.default_rng(seed)
    return np.asarray(0.2 * rng.standard_normal(n) * np.exp(-np.arange(n) / (0.005 * rate)), np.float32)


def test_decode_gives_mono_float32_and_the_rate_from_bytes_and_paths(tmp_path: Path) -> None:
    st = np.stack([np.full(800, 0.5), np.full(800, -0.25)], axis=1)
    x, r = cd.decode(wav_bytes(st, 8000))
    assert r == 8000 and x.dtype == np.float32 and x.shape == (800,)
    assert np.allclose(x, 0.125, atol=1e-4)
    p = tmp_path / "a.flac"
    p.write_bytes(wav_bytes(click(22050), 22050, "FLAC"))
    y, r2 = cd.decode(p)
    assert r2 == 22050 and np.allclose(y, click(22050), atol=1e-4)


def test_decode_refuses_what_is_no_audio_or_empty() -> None:
    with pytest.raises(cd.DebianSourceError, match="cannot decode"):
        cd.decode(b"not a sound file at all")
    with pytest.raises(cd.DebianSourceError, match="empty"):
        cd.decode(wav_bytes(np.zeros(0, np.float32), 8000))


def test_read_files_takes_the_globs_sorted_less_the_excluded(tmp_path: Path) -> None:
    d = tmp_path / "usr" / "share" / "kit"
    d.mkdir(parents=True)
    for name in ("b.wav", "a.wav", "HandClap.wav"):
        (d / name).write_bytes(wav_bytes(click(44100), 44100))
    (d / "notes.txt").write_text("x")
    src = cd.DebSource("deb_t", "pkg", "drum_hit", ("usr/share/kit/*.wav",), "hits", exclude=("HandClap.wav",))
    got = cd.read_files(tmp_path, src)
    assert [n for n, _, _ in got] == ["usr/share/kit/a.wav", "usr/share/kit/b.wav"]
    assert all(r == 44100 for _, _, r in got)


def test_read_files_reads_members_of_a_zip_archive(tmp_path: Path) -> None:
    with zipfile.ZipFile(tmp_path / "pak.pk3", "w") as z:
        z.writestr("sound/steps/boot1.wav", wav_bytes(click(22050, seed=1), 22050))
        z.writestr("sound/steps/splash1.wav", wav_bytes(click(22050, seed=2), 22050))
        z.writestr("sound/other/x.wav", wav_bytes(click(22050, seed=3), 22050))
    src = cd.DebSource("deb_s", "pkg", "footsteps", ("sound/steps/boot*.wav",), "steps", archive="pak.pk3")
    got = cd.read_files(tmp_path, src)
    assert [n for n, _, _ in got] == ["sound/steps/boot1.wav"]
    assert np.allclose(got[0][1], click(22050, seed=1), atol=1e-4)


def test_read_files_refuses_a_source_with_no_file(tmp_path: Path) -> None:
    src = cd.DebSource("deb_none", "pkg", "speech", ("nothing/*.wav",), "prompts")
    with pytest.raises(cd.DebianSourceError, match="no files of deb_none"):
        cd.read_files(tmp_path, src)


def test_keys_are_pressed_then_released_at_the_lowest_rate_within_the_clip_caps() -> None:
    files = [(f"{k:02x}-{i}.wav", click(44100, seed=2 * k + i), 44100) for k in range(60) for i in (0, 1)]
    files.append(("ff-0.wav", click(22050, seed=999), 22050))
    clips, rate = cd.sequences(files, "keys", "deb_t")
    assert rate == 22050                                   # down to the lowest, never up
    assert all(len(c) <= (cd.CLIP_S + 0.3) * rate for c in clips)
    assert sum(len(c) for c in clips) <= cd.MAX_S * rate
    assert all(c.dtype == np.float32 and np.abs(c).max() <= 0.95 for c in clips)
    again, _ = cd.sequences(files, "keys", "deb_t")
    assert all(np.array_equal(a, b) for a, b in zip(clips, again))      # seeded
    # every key's press and release are there: 121 sounds, one burst each, over a -70 dB floor
    from sensekit.evaluation.audio.clap_training import judged_bursts

    n = sum(len(judged_bursts(c, rate)) for c in clips)
    assert 100 <= n <= 121 + len(clips)
    quiet = clips[0][: round(0.05 * rate)]
    assert 0 < float(np.sqrt(np.mean(quiet.astype(np.float64) ** 2))) < 10 ** (-60 / 20)


def test_music_is_cut_into_clips_and_capped() -> None:
    rng = np.random.default_rng(0)
    files = [(f"t{i}.wav", np.asarray(0.1 * rng.standard_normal(8000 * 40), np.float32), 8000) for i in range(6)]
    clips, rate = cd.sequences(files, "music", "deb_m")
    assert rate == 8000
    assert sum(len(c) for c in clips) == cd.MAX_S * rate            # 6 x 24 s > 120 s: capped
    assert max(len(c) for c in clips) == cd.CLIP_S * rate


def test_a_package_not_in_the_cache_is_named_with_how_to_fetch_it(tmp_path: Path) -> None:
    with pytest.raises(cd.DebianSourceError, match="'bucklespring-data' is not in the cache.*--fetch"):
        cd.unpacked(tmp_path, "bucklespring-data")
    with pytest.raises(cd.DebianSourceError, match="bucklespring-data"):
        cd.debian_clips(tmp_path)


def test_fetch_reports_a_failed_download_and_leaves_no_package(tmp_path: Path,
                                                               monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    monkeypatch.setattr(cd.shutil, "which", lambda tool: "/usr/bin/" + tool)

    def fails(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        return subprocess.CompletedProcess(cmd, 100, "", "E: Unable to locate package nope-data")

    with pytest.raises(cd.DebianSourceError, match="apt-get download nope-data failed.*Unable to locate"):
        cd.fetch(tmp_path, "nope-data", run=fails)
    assert not (tmp_path / "x" / "nope-data").exists()


def test_fetch_needs_apt(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cd.shutil, "which", lambda tool: None)
    with pytest.raises(cd.DebianSourceError, match="apt-get not found"):
        cd.fetch(tmp_path, "bucklespring-data")


def test_fetch_unpacks_once_and_then_uses_the_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import subprocess

    monkeypatch.setattr(cd.shutil, "which", lambda tool: "/usr/bin/" + tool)
    calls: list[list[str]] = []

    def fake(cmd: list[str], **kw: Any) -> subprocess.CompletedProcess[str]:
        calls.append(cmd)
        if cmd[:2] == ["apt-get", "download"]:
            (Path(kw["cwd"]) / f"{cmd[2]}_1.0-1_all.deb").write_bytes(b"")
        else:
            (Path(cmd[3]) / "usr").mkdir()
        return subprocess.CompletedProcess(cmd, 0, "", "")

    root = cd.fetch(tmp_path, "pkg-data", run=fake)
    assert root == tmp_path / "x" / "pkg-data" and (root / "usr").is_dir()
    assert cd.fetch(tmp_path, "pkg-data", run=fake) == root and len(calls) == 2
