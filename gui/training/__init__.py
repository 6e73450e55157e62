"""The Training view: start runs, watch curves and attention learn, compare runs."""

import gui.workers  # noqa: F401  (applies the PySide6 6.12.0 reference-count guard before any widget exists)
