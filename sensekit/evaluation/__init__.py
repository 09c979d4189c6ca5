"""Training and evaluation code: what the benchmarks and tests score the stages with.

Nothing the runtime loads imports this package (``tests/test_house.py`` checks it): a camera or
microphone app, the CLI and the panel run without it. It ships in the wheel so that the
benchmarks and tests run against an installed ``sensekit``.

- ``audio``: the clap detector scored on labelled clips (``evaluate``), the clap model's
  training (``clap_training``, ``clap_hgb``), leave-one-source-out folds (``clap_folds``),
  recall against SNR (``clap_noise``) and spoken digits as speech bursts (``clap_words``).
- ``vision``: tracking from clicks (``evaluate``), CDnet motion masks (``motion_scoring``),
  blobs with ids (``blob_scoring``) and PCK@0.2 for poses (``pose_scoring``).
"""
