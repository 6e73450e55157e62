"""The quality report's Markdown, from the figures ``scripts/quality_report.py`` measured (or stored).

Kept apart from the measuring: ``--render-only`` writes the report again from the stored JSON alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch

from engine.networks.attention import SCORERS
from scripts.alignment_report import alignment_section
from scripts.decode_speed import BESIDE_OTHER_WORK, SPEED_ROUNDS, SPEED_SENTENCES

JOEY = {"greedy": (24.4, 42.2), "beam5": (25.2, 43.3)}  # Joey NMT 2.3, 25 min CPU, same held-out rule
# A bootstrap over corpus BLEU needs enough sentences to resample; smaller groups are not tested
# (the 16-20 and 21-30 token buckets of the test split hold 29 and 6).
MIN_TESTED_SENTENCES = 100


def _listed(names) -> str:
    """`a`, `b` and `c`."""
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


_CORES = {None: "? cores", 1: "one core", 2: "both cores"}


def _run_setup(result: dict) -> str:
    """'one core, 25.0 min; embeddings 128, …' — or, for a run of hours to a token budget, '3.8 h of
    training, the best model at 32.8 M target tokens; embeddings 256, dropout 0.3, 4,023,712 parameters'.

    A token-budgeted run names no cores: it may span sittings on one core and on both (its folder records the
    last sitting's threads only), and its budget is counted in tokens, not time."""
    training = result["training"]
    minutes = training["minutes"]
    took = f"{minutes / 60:.1f} h" if minutes >= 120 else f"{minutes} min"
    if training.get("target_tokens"):
        setup = f"{took} of training, the best model at {training['target_tokens'] / 1e6:.1f} M target tokens"
    else:
        threads = training.get("threads")
        setup = f"{_CORES.get(threads, f'{threads} cores')}, {took}"
    sizes = result.get("sizes") or {}
    attention_dropout = f" (attention {sizes['attention_dropout']})" if sizes.get("attention_dropout") else ""
    return (f"{setup}; embeddings {sizes.get('embedding_size', '?')}, "
            f"dropout {sizes.get('dropout', '?')}{attention_dropout}, {result['parameters']:,} parameters")


def _p(tests: dict, group: str) -> str:
    """' (p 0.012)' for a tested group of a gain-over-C row, '' when it was not tested."""
    return f" (p {tests[group]['p']:.3f})" if group in tests else ""


def _against_peer(result: dict) -> str:
    """'+5.03 (1.20×)': beam-5 BLEU against the peer's, for a zh→en model."""
    if result["direction"] != "zh-en":
        return "—"
    return _gain(result["beam5"]["bleu"], JOEY["beam5"][0])


def _gain(bleu: float, peer_bleu: float) -> str:
    """'+5.03 (1.20×)': ``bleu`` against ``peer_bleu``, the difference and the ratio."""
    return f"{bleu - peer_bleu:+.2f} ({bleu / peer_bleu:.2f}×)"


def _content_tables(results: list[dict]) -> list[str]:
    """Per direction: BLEU and content kept by source length (greedy), and content kept overall."""
    if not any("content_kept" in r for r in results):
        return []  # figures measured before content kept was
    lines = ["", "## Content kept, by direction", "",
             "*Content kept* (`engine/evaluation/content_kept.py`): the share of the references' content units the outputs "
             "also hold, clipped — Han characters without function characters for a Chinese target, words "
             "without stop words for an English one. A recall: it catches dropped content (a verb and its "
             "object left out) that BLEU barely notices; read it beside BLEU.", ""]
    for direction in sorted({r["direction"] for r in results}, key=lambda d: d != "zh-en"):
        group = [r for r in results if r["direction"] == direction and "content_kept" in r]
        if not group:
            continue
        labels = [b["bucket"] for b in group[0]["buckets"]]
        lines += [f"### {direction}", "", "| scorer | content kept, greedy / beam 5 | " + " | ".join(
            f"{b['bucket']} (n={b['n']}) BLEU / kept" for b in group[0]["buckets"]) + " |",
            "| --- | --- |" + " --- |" * len(labels)]
        for r in group:
            kept = r["content_kept"]
            lines.append(f"| {r['scorer']} | {kept['greedy']:.1%} / {kept['beam5']:.1%} | " + " | ".join(
                f"{b['bleu']} / {b.get('content_kept', float('nan')):.0%}" for b in r["buckets"]) + " |")
        lines.append("")
    return lines


def _same_budget_peer_rows(peers: list[dict] | None) -> list[str]:
    """The peer trained to our budget (``bench/peer_joey.py``'s rows), one table row each, as they were measured."""
    lines = []
    for p in peers or []:
        t = p["training"]
        lines.append(
            f"| {p['name']} | {t['hours']:.1f} h of training, {t['target_tokens'] / 1e6:.1f} M target tokens (the best "
            f"model at {t['target_tokens_at_best'] / 1e6:.1f} M), ended by {t['ended']}; embeddings "
            f"{p['sizes']['embedding_size']}, dropout {p['sizes']['dropout']}, {p['parameters']:,} parameters, "
            f"{t['epochs']} epochs | {p['greedy']['bleu']} / {p['greedy']['chrf']} | {p['beam5']['bleu']} / "
            f"{p['beam5']['chrf']} (α {p['beam5']['length_penalty']}) | — |")
    return lines


def _same_budget_peer_note(peers: list[dict] | None) -> list[str]:
    if not peers:
        return []
    return ["", "The peer at the same budget (`bench/peer_joey.py`): Joey NMT 2.3 trained on our strict split with "
            "its own SentencePiece vocabularies (4000 per side) to our budget of "
            f"{peers[0]['training']['budget_tokens'] / 1e6:.0f} M target tokens or its own early stopping, whichever "
            "came first; its best checkpoint by valid BLEU decoded the same test pairs (its own beam search and length "
            "penalty), scored with the signature above."]


def _against_same_budget_peers(results: Sequence[dict], peers: list[dict]) -> list[str]:
    """A table: every model of the peers' direction, its beam-5 BLEU against each peer row, '+3.93 (1.14×)'."""
    rows = [r for r in results if r["direction"] == peers[0]["direction"]]
    if not rows:
        return []
    lines = ["", f"Beam 5 BLEU against the peer at the same budget ({peers[0]['direction']}):", "",
             "| model | " + " | ".join(f"against {p['name'].removesuffix(' (peer, same budget)')} "
                                      f"({p['beam5']['bleu']})" for p in peers) + " |",
             "| --- |" + " --- |" * len(peers)]
    for r in rows:
        lines.append(f"| {r['name']} | " + " | ".join(_gain(r["beam5"]["bleu"], p["beam5"]["bleu"]) for p in peers) + " |")
    return lines


def add_same_budget_peers(report: str, peers: list[dict] | None, results: Sequence[dict] = ()) -> str:
    """``report`` with the rows of the peer trained to our budget (``bench/peer_joey.py``) under the 25-minute peer
    row, and under the table a note and ``results``' beam-5 BLEU against them; unchanged without them."""
    if not peers:
        return report
    lines = report.split("\n")
    at = next((i for i, line in enumerate(lines) if line.startswith("| Joey NMT 2.3 (peer) |")), None)
    if at is None:
        return report
    lines[at + 1:at + 1] = _same_budget_peer_rows(peers)
    end = next((i for i in range(at + 1, len(lines)) if not lines[i].startswith("|")), len(lines))
    lines[end:end] = _same_budget_peer_note(peers) + _against_same_budget_peers(results, peers)
    return "\n".join(lines)


def _summary_table(results: list[dict], notes: dict[str, str] | None) -> list[str]:
    """The report's head: the split, the metric, the peer, every model's BLEU and how it was trained when
    a direction's models were not trained alike (``notes``)."""
    lines = ["# Quality report: shipped models", "",
             f"Held-out test split of `cmn-eng.tsv` (sha256 rule: English digest starting with `0`), "
             f"n = {results[0]['n']} pairs. sacrebleu, detokenized: `{results[0]['signature']}` "
             "(BLEU on a Chinese target uses the `zh` tokenizer).", "",
             f"Joey NMT 2.3, the peer: {JOEY['greedy'][0]} / {JOEY['beam5'][0]} BLEU (greedy / beam 5) on the same "
             "held-out pairs, trained for 25 minutes on both cores of this machine on every other pair of the "
             "corpus (embeddings 128, 3.66 M parameters).", "",
             "| model | training | greedy BLEU / chrF | beam 5 BLEU / chrF (its length penalty α) | beam 5 BLEU against "
             "the peer |",
             "| --- | --- | --- | --- | --- |"]
    for r in results:
        lines.append(f"| {r['name']} | {_run_setup(r)}, {r['training']['epochs']} epochs | "
                     f"{r['greedy']['bleu']} / {r['greedy']['chrf']} | {r['beam5']['bleu']} / {r['beam5']['chrf']} "
                     f"(α {r['beam5'].get('length_penalty', 1.0)}) | {_against_peer(r)} |")
    lines.append(f"| Joey NMT 2.3 (peer) | both cores, 25 min; embeddings 128, 3.66 M parameters, ≈13 epochs | "
                 f"{JOEY['greedy'][0]} / {JOEY['greedy'][1]} | {JOEY['beam5'][0]} / {JOEY['beam5'][1]} | — |")
    for direction, note in sorted((notes or {}).items(), key=lambda item: item[0] != "zh-en"):
        if note:
            lines += ["", f"**{direction}: {note}**"]
    return lines


def _unseen_sources_table(results: list[dict]) -> list[str]:
    """Each split rule's training data, and every model's figures on the test pairs whose source it never saw."""
    by_rule: dict[str, list[dict]] = {}
    for r in results:
        by_rule.setdefault(r["split_rule"], []).append(r)
    lines = ["", "Training data: " + "; ".join(
        f"{_listed(r['name'] for r in group)} — `--split-rule {rule}`, {group[0]['train_pairs']:,} training pairs"
        for rule, group in sorted(by_rule.items())) + ". Under the peer's rule (`peer`: every pair outside the test part is a training "
        "pair, as the peer's figures were made) a test pair's source sentence may also occur in training with "
        "another translation; the strict rule removes such pairs from training. To show what that is worth, "
        "the same figures on the test pairs whose source the model's training data does not hold:", "",
        "| model | test pairs with an unseen source | greedy BLEU / chrF | beam 5 BLEU / chrF |",
        "| --- | --- | --- | --- |"]
    for r in results:
        g, b = r["unseen_source"]["greedy"], r["unseen_source"]["beam5"]
        lines.append(f"| {r['name']} | {g['n']:,} of {r['n']:,} | {g['bleu']} / {g['chrf']} | {b['bleu']} / {b['chrf']} |")
    return lines


def _gain_over_c_table(zh_en: list[dict], none: dict, labels: list[str]) -> list[str]:
    """Every zh→en attention scorer's greedy gain over C, overall, on unseen sources and per length bucket,
    with the paired-bootstrap p-values where they were measured."""
    tested = next((r["gain_over_c"] for r in zh_en if "gain_over_c" in r), None)
    lines = ["", "Gain over the fixed context C (BLEU points, greedy; *unseen sources*: on the test pairs "
             "whose source sentence is not in the training data)" + (
                 f"; in brackets the paired-bootstrap p-value ({tested['samples']:,} resamples, "
                 "sacrebleu): the chance of a gain this large between two equally good models, so "
                 "the smaller the surer (p ≤ 0.05: unlikely to be chance; 0.001 is the floor); buckets "
                 f"of fewer than {MIN_TESTED_SENTENCES} sentences are too small to test"
                 if tested else "") + ":", "",
             "| scorer | all | unseen sources | " + " | ".join(labels) + " |",
             "| --- | --- | --- |" + " --- |" * len(labels)]
    for r in zh_en:
        if r is none:
            continue
        gains = [round(b["bleu"] - n["bleu"], 2) for b, n in zip(r["buckets"], none["buckets"], strict=True)]
        unseen = r["unseen_source"]["greedy"]["bleu"] - none["unseen_source"]["greedy"]["bleu"]
        tests = r.get("gain_over_c") or {}
        lines.append(f"| {r['scorer']} | {round(r['greedy']['bleu'] - none['greedy']['bleu'], 2)}"
                     f"{_p(tests, 'all')} | {round(unseen, 2)}{_p(tests, 'unseen')} | " + " | ".join(
                         f"{g:+}{_p(tests, b['bucket'])}" for g, b in zip(gains, r["buckets"], strict=True))
                     + " |")
    return lines


def _length_tables(results: list[dict], plotted: bool) -> list[str]:
    """zh→en BLEU by source length, and the gain over C when C is among the models."""
    zh_en = [r for r in results if r["direction"] == "zh-en"]
    if not zh_en:
        return []
    labels = [b["bucket"] for b in zh_en[0]["buckets"]]
    lines = ["", "## BLEU by source length (greedy)", "", "| scorer | " + " | ".join(
        f"{b['bucket']} (n={b['n']})" for b in zh_en[0]["buckets"]) + " |", "| --- |" + " --- |" * len(labels)]
    for r in zh_en:
        lines.append(f"| {r['scorer']} | " + " | ".join(str(b["bleu"]) for b in r["buckets"]) + " |")
    none = next((r for r in zh_en if r["scorer"] == "none"), None)
    if none is not None:
        lines += _gain_over_c_table(zh_en, none, labels)
    if plotted:
        lines += ["", "![BLEU by source length](img/bleu-by-length.png)"]
    return lines


def _attention_statistics(results: list[dict]) -> list[str]:
    """Every model's attention statistics, and which unscaled scorers trained with the score warm-up."""
    lines = ["", "## Attention statistics (greedy, test split)", "",
             "Entropy in nats per row; diagonality = mean Pearson r between output position and the "
             "attention-weighted source position; monotonicity = share of steps whose most-attended source "
             "position does not move backwards; stuck share = per sentence, the share of steps whose "
             "most-attended position is that sentence's most frequent one (1/length for a clean diagonal, 1 "
             "when attention never moves). Stuck near 1 with near-zero entropy means the model reads one "
             "fixed position at every step — in practice the first or last source token, where the backward "
             "or forward encoder's summary of the whole sentence sits — i.e. a fixed summary, like C. Mean "
             "max weight = the share of a step's attention on its favourite source token; coverage "
             "deviation = the mean |Σ_i α_ij − 1| over source tokens (0 when every source token is attended "
             "once in all; Tu et al. 2016): the numbers the Compare tab shows per sentence.", "",
             "| model | mean row entropy | mean max weight | diagonality | monotonicity | stuck share | "
             "coverage deviation |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    keys = ("mean_row_entropy", "mean_max_weight", "diagonality", "monotonicity", "stuck_share", "coverage_deviation")
    for r in results:
        a = r["attention"]
        lines.append(f"| {r['name']} | " + (" | ".join(str(a.get(k, "—")) for k in keys)
                                           if a else "— | — | — | — | — | — (no attention: fixed C)") + " |")
    warmed = [r["name"] for r in results if "--temperature-warmup" in (r["training"]["command"] or "")
              and SCORERS[r["scorer"]].unscaled]
    if warmed:
        lines += ["", f"{_listed(warmed)} trained with the score warm-up "
                  "(`--temperature-warmup`): their scores start divided by √d, as scaled dot's are, and warm up to "
                  "the plain formula over the fraction of the run it gives; they are validated, saved and decoded with the formula as "
                  "written. Trained without it, both locked onto one source position "
                  '(see docs/shipped-models.md, "What the figures say").']
    return lines


def _speed_table(results: list[dict]) -> list[str]:
    """Decode speeds, marked where they were measured beside other work."""
    lines = ["", f"## Decode speed (sentences per second, this CPU, {torch.get_num_threads()} torch threads)", "",
             f"The first {SPEED_SENTENCES} test sources of each direction; every model is timed in each of "
             f"{SPEED_ROUNDS} rounds (after a warm-up round) and keeps its fastest pass.", "",
             "| model | greedy, batches of 64 | greedy, one by one | beam 5, one by one |", "| --- | --- | --- | --- |"]
    for r in results:
        s = r["speed"]
        busy = " *" if s.get(BESIDE_OTHER_WORK) else ""
        lines.append(f"| {r['name']}{busy} | {s['greedy_batched_sentences_per_second']} | "
                     f"{s['greedy_one_by_one_sentences_per_second']} | {s['beam5_sentences_per_second']} |")
    if any(r["speed"].get(BESIDE_OTHER_WORK) for r in results):
        lines += ["", "\\* Measured while other work (a model build) kept this CPU busy: not a benchmark, and "
                  "not comparable with the rows without the mark; measure again with nothing else running."]
    return lines


def _examples_and_commands(results: list[dict]) -> list[str]:
    """The default model's ten test translations, and every model's training command."""
    default = next((r for r in results if r["name"] == "zh-en-additive"), results[0])
    lines = ["", f"## Ten test translations ({default['name']}, greedy)", "",
             "Spread evenly over the sentence-level chrF ranking, best first: as many good and bad ones as the "
             "model really produces.", "", "| chrF | source | reference | output |", "| --- | --- | --- | --- |"]
    for e in default["examples"]:
        cells = [str(e["chrf"]), e["source"], e["reference"], e["output"]]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", "## How each model was trained", ""]
    for r in results:
        lines.append(f"- `{r['name']}`: `{r['training']['command']}` — {r['training']['reason']} after "
                     f"{r['training']['steps']} steps, best epoch {r['training']['best_epoch']}, "
                     f"{r['training']['tokens_per_second'] or 0:,.0f} target tokens/s ({r['training']['hardware']})")
    return lines


def render(results: list[dict], plotted: bool, notes: dict[str, str] | None = None) -> str:
    """The report; ``notes``: direction → how its models were trained when not alike
    (engine.studies.training_budget.budget_note), said under the first table."""
    lines = (_summary_table(results, notes) + _unseen_sources_table(results) + _content_tables(results)
             + _length_tables(results, plotted) + _attention_statistics(results) + alignment_section(results)
             + _speed_table(results) + _examples_and_commands(results))
    return "\n".join(lines) + "\n"
