"""The Training view: start runs, watch curves and attention learn, compare runs."""
