"""The attention view: a live heatmap of α_ij, a step inspector, and exports."""
