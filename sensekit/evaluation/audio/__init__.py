"""Audio evaluation and training: clap scoring on labelled clips, the clap model's fitting,
its leave-one-source-out folds, recall against SNR and spoken digits as speech bursts."""
