"""Evaluation: BLEU and chrF with sacrebleu, significance, run reports, content kept."""
