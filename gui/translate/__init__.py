"""The Translate view: type a sentence, watch it decode, switch scorers and directions."""
