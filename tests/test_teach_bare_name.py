"""`sensekit teach sound|words` given a bare name without --from: the error says what is missing
and names --from (it said only "a sound is NAME=FILE[,FILE...] with NAME one word ...", as if
the name were spelt wrong)."""
from __future__ import annotations

import pytest


@pytest.mark.parametrize("what, argv", [("sound", ["sound", "--profile", "v.toml", "knock"]),
                                        ("word", ["words", "--profile", "v.toml", "--other", "o.wav", "hello"])])
def test_a_bare_name_without_from_says_the_examples_are_missing(what, argv, tmp_path, monkeypatch, capsys):
    from sensekit.cli import main

    monkeypatch.chdir(tmp_path)
    (tmp_path / "o.wav").write_bytes(b"")
    assert main(["teach", *argv]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "has no examples" in err and "--from mic" in err, err
    assert not (tmp_path / "v.toml").exists()
