"""Attention Studio engine: data, tokenizers, the attention seq2seq model, search, training."""
