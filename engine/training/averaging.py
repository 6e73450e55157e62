"""Checkpoint averaging as an operation on a run folder: the mean of the run's last weight
snapshots (engine.training.snapshots) written as a model folder of its own, next to what the run saved.

The averaged folder carries the run's config.json (data, training history, command) with an
``averaged`` record of the snapshots it used, and the same tokenizers and storage dtype, so it
loads, translates and evaluates like any model folder.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from engine.models.bundle import load_model_folder, save_model_folder
from engine.settings.errors import ConfigError, ModelFileError
from engine.training.checkpoint_state import discard_checkpoint
from engine.training.metrics_log import MetricsLog
from engine.training.run_lock import claim_run_folder
from engine.training.snapshots import average_snapshots

# Keys of the run's config.json that the averaged folder keeps (the rest is rewritten on save or
# describes the run's own best model, e.g. its test metrics).
_KEPT = ("source_language", "target_language", "simplify_chinese", "task", "command", "data", "tokenizer_settings",
         "training")


def write_averaged_model(run_folder: Path, out: Path, last: int, overwrite: bool = False) -> Path:
    """Average the last ``last`` snapshots of ``run_folder`` into the model folder ``out``.

    ``out`` is claimed as a run folder is (engine.training.run_lock): one that holds a model or a checkpoint
    is refused unless ``overwrite``, and one a running training holds is refused outright. With
    ``overwrite`` the old run's checkpoint and log go first (renamed away in one step), then the new
    model replaces the old one as one (engine.models.bundle)."""
    run_folder, out = Path(run_folder), Path(out)
    if isinstance(last, bool) or not isinstance(last, int) or last < 1:
        raise ConfigError(f"the snapshots to average (--last) must be a whole number of at least 1; got {last!r}")
    if out.resolve() == run_folder.resolve():
        raise ModelFileError("write the averaged model to another folder than the run's own (--out)")
    if not run_folder.is_dir():
        raise ModelFileError(f"{run_folder} is not a model folder (no such directory)")
    existed = out.exists()
    try:
        with claim_run_folder(out, overwrite=overwrite, resumable=False):
            if overwrite:
                discard_checkpoint(out)  # a resume there would continue the old run into the averaged model
                MetricsLog(out).clear()
            return _average_into(run_folder, out, last)
    except BaseException:
        if not existed:  # nothing half-made is left behind: the folder was made for this model
            shutil.rmtree(out, ignore_errors=True)
        raise


def _average_into(run_folder: Path, out: Path, last: int) -> Path:
    bundle = load_model_folder(run_folder)
    state, files = average_snapshots(run_folder, last)
    model = bundle.translator.model
    try:
        model.load_state_dict(state)
    except RuntimeError as error:
        raise ModelFileError(f"the snapshots of {run_folder} do not fit its model: {error}") from None
    metadata = {key: bundle.info[key] for key in _KEPT if key in bundle.info}
    metadata["averaged"] = {"snapshots": [path.name for path in files], "count": len(files)}
    dtype = (bundle.info.get("weights") or {}).get("dtype", "float32")
    return save_model_folder(out, model, bundle.translator.source_tokenizer, bundle.translator.target_tokenizer,
                             metadata, dtype, bundle.translator.training_words)  # trained on the same words
