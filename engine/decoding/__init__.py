"""Decoding: greedy and beam search, the translator, forced decoding, steering and what they measure."""
