"""The attention mechanisms as data: name, label, formula, traits, colour and class, without PyTorch.

The one registry of what each mechanism is called, computes and looks like. The engine builds a
model's mechanism from its ``implementation`` (engine.networks.attention.build_scorer imports it by name),
the configuration checks names and head counts against it, and the app builds its menus, the Compare
grid, the length study's lines and table, and every legend from it before PyTorch has loaded.
Adding a mechanism is one row here and one module holding its class (docs/architecture.md).
"""

from __future__ import annotations

from dataclasses import dataclass

SINGLE_HEAD_CONTEXT = "c_i = Σ_j α_ij h_j"  # how a one-head mechanism forms its context
COLOUR_PATTERN = "#rrggbb"
UNREGISTERED = ""  # the implementation of a row the registry does not hold (scorer_row): nothing to build
UNREGISTERED_COLOUR = "#7f7f7f"
MODEL_FAMILIES = ("rnn", "transformer")  # the RNN encoder–decoder (engine.networks.model), the Transformer (engine.networks.transformer)


@dataclass(frozen=True)
class ScorerInfo:
    name: str  # registry name, e.g. "scaled_dot": the --scorer value and the model folder's "scorer"
    label: str  # shown to people
    formula: str  # e_ij as written in the papers (or C for the fixed-context baseline)
    colour: str  # "#rrggbb": its line and swatch in every plot (length study, reports)
    implementation: str  # "module:Class" of its nn.Module (imported only when a model is built)
    unscaled: bool = False  # its scores grow with the vector size (dot, bilinear): they can be warmed up
    uses_attention: bool = True  # False only for the fixed context C
    heads: int = 1  # attention heads: the weights are batch × heads × source; the decoder size must divide by it
    context: str = SINGLE_HEAD_CONTEXT  # how the weights form c_i (the step inspector shows it)
    head_score: str = ""  # one head's score e^h_ij, for a mechanism of several heads (the inspector shows it for one head)
    brief_formula: str = ""  # the formula where room is short (a Compare panel's title; the whole in its tooltip); "": formula
    family: str = "rnn"  # the model it belongs to: "rnn" (a scorer of engine.networks.model's encoder–decoder) or "transformer"

    @property
    def formula_in_brief(self) -> str:
        return self.brief_formula or self.formula

    def __post_init__(self) -> None:
        for holds, rule in self._rules():
            if not holds:
                raise ValueError(f"{self.name}: {rule}")

    def _rules(self) -> tuple[tuple[bool, str], ...]:
        """(whether the row keeps it, the rule as its error says it), in the order they are checked."""
        colour_ok = (len(self.colour) == len(COLOUR_PATTERN) and self.colour.startswith("#")
                     and all(c in "0123456789abcdef" for c in self.colour[1:]))
        return (
            (colour_ok, f"colour must be {COLOUR_PATTERN} in lower case; got {self.colour!r}"),
            (":" in self.implementation or self.implementation == UNREGISTERED,
             f"implementation must be 'module:Class'; got {self.implementation!r}"),
            (not (self.heads < 1 or (self.heads > 1 and not self.uses_attention)),
             f"heads must be 1 or more, and 1 without attention; got {self.heads}"),
            (self.family in MODEL_FAMILIES, f"family must be one of {', '.join(MODEL_FAMILIES)}; got {self.family!r}"),
            ((self.heads > 1) == bool(self.head_score),
             "a mechanism of several heads, and only one, gives its head_score formula"),
        )

SCORER_TABLE: dict[str, ScorerInfo] = {info.name: info for info in (
    ScorerInfo("additive", "Additive (Bahdanau)", "e_ij = vᵀ tanh(W s_{i-1} + U h_j)", "#1f77b4",
               "engine.networks.attention:AdditiveScorer"),
    ScorerInfo("bilinear", 'Bilinear (Luong "general")', "e_ij = s_{i-1}ᵀ W h_j", "#2ca02c",
               "engine.networks.attention:BilinearScorer", unscaled=True),
    ScorerInfo("dot", "Dot product", "e_ij = s_{i-1}ᵀ h_j", "#9467bd", "engine.networks.attention:DotScorer", unscaled=True),
    ScorerInfo("scaled_dot", "Scaled dot product", "e_ij = s_{i-1}ᵀ h_j / √d", "#17becf",
               "engine.networks.attention:ScaledDotScorer"),
    ScorerInfo("none", "None (fixed context C)", "c_i = C for every step i (no attention weights)", "#d62728",
               "engine.networks.attention:FixedContextScorer", uses_attention=False),
    ScorerInfo("multihead", "Multi-head (Vaswani, 4 heads)",
               "e_ij = log ¼ Σ_h α^h_ij, with α^h_ij = softmax_j((W_Q^h s_{i-1})ᵀ W_K^h h_j / √(d/4))", "#ff7f0e",
               "engine.networks.multihead:MultiHeadScorer", heads=4,
               context="c_i = W_O [Σ_j α^1_ij W_V^1 h_j; …; Σ_j α^4_ij W_V^4 h_j]",
               head_score="e^h_ij = (W_Q^h s_{i-1})ᵀ W_K^h h_j / √(d/4)",
               brief_formula="e_ij = log ¼ Σ_h α^h_ij (4 scaled-dot heads)"),
    ScorerInfo("transformer", "Transformer (Vaswani)",
               "e_ij = log ¼ Σ_h α^h_ij, with α^h_ij = softmax_j((W_Q^h x_i)ᵀ W_K^h h_j / √(d/4)) in the last layer",
               "#8c564b", "engine.networks.transformer:TransformerSeq2Seq", heads=4, family="transformer",
               context="c_i = W_O [Σ_j α^1_ij W_V^1 h_j; …; Σ_j α^4_ij W_V^4 h_j] (each layer; x_i: the layer's input)",
               head_score="e^h_ij = (W_Q^h x_i)ᵀ W_K^h h_j / √(d/4)",
               brief_formula="e_ij = log ¼ Σ_h α^h_ij (last layer)"),
)}
SCORER_NAMES: tuple[str, ...] = tuple(SCORER_TABLE)
ATTENTION_SCORER_NAMES: tuple[str, ...] = tuple(n for n, info in SCORER_TABLE.items() if info.uses_attention)
RNN_SCORER_NAMES: tuple[str, ...] = tuple(n for n, info in SCORER_TABLE.items() if info.family == "rnn")
FIXED_CONTEXT: str = next(n for n, info in SCORER_TABLE.items() if not info.uses_attention)  # the baseline C


def attends(name: str) -> bool:
    """False for a registered mechanism without attention weights (the fixed context C); a name the
    registry does not know (a model from a newer version) is taken to attend."""
    info = SCORER_TABLE.get(name)
    return info is None or info.uses_attention


def scorer_row(name: str, label: str = "", formula: str = "", uses_attention: bool = True) -> ScorerInfo:
    """The registry's row of ``name``, the one thing the app carries to name and show a mechanism. For a name
    the registry does not hold (a session file or model folder from a newer version) a row of what its file
    says: its label (else the name), its formula, one head, a grey line, no class to build."""
    info = SCORER_TABLE.get(name)
    if info is not None:
        return info
    return ScorerInfo(name, label or name, formula, UNREGISTERED_COLOUR, UNREGISTERED, uses_attention=uses_attention)
