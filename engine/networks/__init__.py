"""The networks: scorers (the table and the classes), the RNN encoder-decoder, the Transformer."""
