"""``python -m sensekit.synth``: an entry script on the top floor, like ``sensekit/__main__.py``.

The generator (``sensekit.synth``) never imports the command line; its options are parsed in
``sensekit.cli._synth``. Imported rather than run (a documentation tool walking the package), it
does nothing.
"""
if __name__ == "__main__":
    from sensekit.cli._synth import main

    raise SystemExit(main())
