"""The length study in the app: BLEU against source length for every scorer of a direction."""
