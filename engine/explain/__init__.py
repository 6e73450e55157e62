"""Attribution beside attention (engine.explain.attribution): Integrated Gradients, input × gradient and
occlusion of each decode step over the source and the output prefix, contrastive on demand."""

from engine.explain.attribution import (
    ATTRIBUTION_METHODS,
    METHOD_LABELS,
    StepAttribution,
    check_method,
    explain_ids,
    explain_steps,
)

__all__ = ["ATTRIBUTION_METHODS", "METHOD_LABELS", "StepAttribution", "check_method", "explain_ids", "explain_steps"]
