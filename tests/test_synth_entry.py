"""``python -m sensekit.synth``: the documented command, through its ``__main__`` entry."""
import subprocess
import sys
from pathlib import Path


def test_python_m_sensekit_synth_writes_a_clip_and_its_truth(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "sensekit.synth", "--out", str(tmp_path),
                           "--seconds", "0.5"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "demo.skrec" / "meta.json").is_file()
    assert (tmp_path / "demo.truth.json").is_file()
    assert done.stdout.startswith(f"wrote {tmp_path / 'demo.skrec'} and demo.truth.json")   # as sensekit's
    assert "wrote" not in done.stderr


def test_python_m_sensekit_synth_names_where_it_wrote_not_the_path_as_typed(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "sensekit.synth", "--out", "clips", "--seconds", "0.5"],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    where = tmp_path.resolve() / "clips"
    assert (where / "demo.skrec" / "meta.json").is_file()
    assert done.stdout.startswith(f"wrote {where / 'demo.skrec'} and demo.truth.json"), done.stdout
    assert done.stdout.rstrip().endswith(f"in {where})"), done.stdout


def test_python_m_sensekit_synth_counts_the_clip_and_its_truth_not_the_whole_folder(tmp_path: Path) -> None:
    (tmp_path / "other.bin").write_bytes(bytes(3_000_000))          # a user's file already in --out
    done = subprocess.run([sys.executable, "-m", "sensekit.synth", "--out", str(tmp_path), "--seconds", "0.5"],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    written = (tmp_path / "demo.truth.json").stat().st_size + sum(
        p.stat().st_size for p in (tmp_path / "demo.skrec").rglob("*") if p.is_file())
    assert f"({written / 1e6:.2f} MB in {tmp_path})" in done.stdout, done.stdout


def test_python_m_sensekit_synth_refuses_a_bad_length_in_one_line(tmp_path: Path) -> None:
    done = subprocess.run([sys.executable, "-m", "sensekit.synth", "--out", str(tmp_path),
                           "--seconds", "-1"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2
    assert "Traceback" not in done.stderr
    assert "--seconds" in done.stderr.splitlines()[-1]
    assert not (tmp_path / "demo.skrec").exists()


def test_the_generator_never_imports_the_command_line() -> None:
    code = "import sys, sensekit.synth; print(any(m.startswith('sensekit.cli') for m in sys.modules))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*")) if p.is_file()}


def _synth(args: list[str], bundled: Path, cwd: Path) -> subprocess.CompletedProcess[str]:
    import os

    return subprocess.run([sys.executable, "-m", "sensekit.synth", *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={**os.environ, "SENSEKIT_RECORDINGS": str(bundled)})


def test_python_m_sensekit_synth_never_rewrites_the_bundled_demo_unasked(tmp_path: Path) -> None:
    """Without --out it rewrote the bundled version 1 demo in place as version 2 (the checkout
    showed changes). A copy of the bundle stands in for it here."""
    import shutil

    from sensekit.paths import recordings_dir

    bundled = tmp_path / "recordings"
    shutil.copytree(recordings_dir() / "demo.skrec", bundled / "demo.skrec")
    shutil.copy2(recordings_dir() / "demo.truth.json", bundled / "demo.truth.json")
    before = _files(bundled)
    for args in ([], ["--out", str(bundled)], ["--out", "recordings/."]):
        done = _synth([*args, "--seconds", "0.5"], bundled, tmp_path)
        assert done.returncode == 2, (args, done.stdout)
        last = done.stderr.strip().splitlines()[-1]
        assert "is the bundled demo" in last and "--out DIR" in last and "--replace-bundled" in last, last
        assert "Traceback" not in done.stderr
        assert _files(bundled) == before
    done = _synth(["--replace-bundled", "--seconds", "0.5"], bundled, tmp_path)     # on purpose
    assert done.returncode == 0, done.stderr
    assert _files(bundled) != before


def test_python_m_sensekit_synth_makes_a_missing_bundled_demo_and_says_its_default(tmp_path: Path) -> None:
    bundled = tmp_path / "recordings"
    bundled.mkdir()
    done = _synth(["--seconds", "0.5"], bundled, tmp_path)       # paths.py's hint for a missing clip
    assert done.returncode == 0, done.stderr
    assert (bundled / "demo.skrec" / "meta.json").is_file()
    helped = " ".join(_synth(["--help"], bundled, tmp_path).stdout.split())
    assert "the bundled demo.skrec is never replaced without --replace-bundled" in helped, helped
