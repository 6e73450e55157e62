"""The command line's commands (train, translate, evaluate, average)."""
