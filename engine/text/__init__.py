"""Text: normalization, SentencePiece tokenizers, words and their segmentation, the language check."""
