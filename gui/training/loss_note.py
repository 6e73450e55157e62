"""The line under the training curves that explains the spikes of the raw loss of a run that joins long
examples.

What the data says (the metrics logs of the zh→en Transformer runs, 1,553 and 5,505 steps, long examples
2–8 pairs joined into one for 30 % of each epoch): the ratio of a step's loss to the smoothed loss follows
the target tokens of its batch (correlation 0.77 and 0.81); the highest ratios (1.3–1.5×) are batches of
4,800–5,000 target tokens, against 704 in the median batch. Batches are grouped by length, so a batch of
joined examples holds only long ones, and a long example's later tokens are harder to predict: its loss
per token is higher. The spikes are those batches, not the run going astray; the smoothed line is the trend.
"""

from __future__ import annotations

from PySide6.QtWidgets import QLabel, QSizePolicy

from gui.training.records import RunRecord


def joins_long_examples(record: RunRecord) -> bool:
    """Whether the run trains on joined long examples (the spikes' cause)."""
    train = getattr(record.settings, "train", None)
    return train is not None and train.concat_max_group > 1 and train.concat_share > 0


class LossSpikeNote(QLabel):
    """'Spikes in the faint loss line: …', shown while a run that joins long examples is plotted
    (objectName ``lossSpikeNote``)."""

    def __init__(self) -> None:
        super().__init__()
        self.setObjectName("lossSpikeNote")
        self.setWordWrap(True)
        self.setStyleSheet("color: #555;")
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)  # never widens the window
        self.setText(self.tr("Spikes in the faint loss line are batches of long joined examples: up to 7× the "
                             "target tokens of a typical batch, and a higher loss per token. The smoothed line is "
                             "the trend."))
        self.setToolTip(self.tr("Batches are grouped by length, so a batch of joined examples holds only long ones, "
                                "whose later tokens are harder to predict. In the shipped runs a step's loss over the "
                                "smoothed loss follows its batch's target tokens (correlation about 0.8)."))
        self.hide()

    def follow(self, records: list[RunRecord]) -> None:
        """Shown while one of the plotted ``records`` joins long examples."""
        self.setVisible(any(joins_long_examples(record) for record in records))
