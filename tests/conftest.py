"""Test-wide settings: Qt runs offscreen, torch on few threads (CI has 2 cores)."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

import torch  # noqa: E402

torch.set_num_threads(2)
