"""Corpora: reading, streaming, the token cache, the split, long examples, tasks and the shipped examples."""
