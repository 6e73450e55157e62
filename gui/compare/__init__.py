"""The Compare view: every scorer of a direction on one sentence, side by side, and their differences."""
