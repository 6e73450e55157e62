"""Training: the loop as a generator of events, a run's preparation, checkpoints and snapshots, the run lock."""
