"""Which way a metric improves, when the source does not say: a table of metric names.

Most result files (Papers with Code tables, model cards) give no direction. A metric whose name
holds one of the words below gets that direction, marked as inferred; a name in neither table
has no direction. Nothing defaults to higher-is-better. The lower-is-better words are looked
for first, so that "Top-1 Error" is an error rate and not a top-1 accuracy. A metric taken at a
cut-off ("Hits@100", "R@1", "mAP@0.5", "nDCG@K") is read as its word at ``@k``, whatever the
cut-off: the tables name the ones they know so (``hits@k``). ``docs/formats.md`` lists the tables
for users.
"""

from __future__ import annotations

import re

from ingest.records import Direction

# Words and phrases (lower case, as whole words) whose metrics are better when lower.
LOWER_IS_BETTER = (
    "wer", "cer", "ter", "per", "word error rate", "character error rate", "error", "error rate",
    "err", "eer", "loss", "nll", "perplexity", "ppl", "fid", "kid", "mae", "mse", "rmse",
    "rmsle", "mape", "smape", "latency", "inference time", "runtime", "bits per character",
    "bits per byte", "bpc", "bpb", "bits/dim", "distance", "miss rate", "false positive rate",
    "fpr", "hamming loss", "abs rel", "sq rel", "log loss",
    # At a cut-off or a sample size (FID@10k is fid@k; see HIGHER_IS_BETTER).
    "fid@k", "kid@k", "error@k", "wer@k", "loss@k",
)  # fmt: skip
# Words and phrases whose metrics are better when higher.
HIGHER_IS_BETTER = (
    "accuracy", "acc", "top-1", "top-5", "top 1", "top 5", "f1", "f-1", "f1-score", "f-measure",
    "bleu", "sacrebleu", "rouge", "rouge-1", "rouge-2", "rouge-l", "meteor", "chrf", "cider",
    "exact match", "em", "precision", "recall", "auc", "auroc", "roc auc", "ap", "map",
    "mean average precision", "iou", "miou", "mean iou", "dice", "psnr", "ssim", "ndcg", "mrr",
    "hits", "spearman", "pearson", "mcc", "matthews correlation", "kappa", "pass@1", "pass@k",
    "win rate", "success rate", "reward", "score", "bertscore", "r2",
    # At a cut-off, whatever it is (Hits@100 is hits@k, mAP@0.5 is map@k); ERR@k is the
    # expected reciprocal rank, not an error.
    "hits@k", "recall@k", "r@k", "precision@k", "p@k", "map@k", "ap@k", "ndcg@k", "mrr@k",
    "err@k", "acc@k", "accuracy@k", "top@k", "success@k", "f1@k",
)  # fmt: skip
# Split names that a metric's name may carry ("% Test Accuracy", "Test Error").
SPLITS = {"test": "test", "dev": "dev", "validation": "validation", "val": "validation",
          "valid": "validation", "train": "train", "training": "train"}  # fmt: skip

# A word, with its cut-off if it has one ("hits@100", "map@0.5").
_WORD = re.compile(r"[a-z0-9]+(?:@[a-z0-9.]*[a-z0-9])?")


def infer(name: str) -> Direction | None:
    """The direction the tables give the metric called ``name``, or None."""
    words = _spaced(name)
    for table, direction in ((LOWER_IS_BETTER, "lower"), (HIGHER_IS_BETTER, "higher")):
        if any(_spaced(phrase) in words for phrase in table):
            return direction  # type: ignore[return-value]
    return None


def split_in(name: str) -> str | None:
    """The split a metric's name names (``"% Test Accuracy"`` → ``"test"``), or None."""
    found = {SPLITS[word] for word in _words(name) if word in SPLITS}
    return found.pop() if len(found) == 1 else None


def _words(name: str) -> list[str]:
    """The words of a name, lower case: ``"Top-1 Error"`` → ``["top", "1", "error"]``."""
    return _WORD.findall(name.lower())


def _spaced(name: str) -> str:
    """The words of a name between single spaces, each cut-off written ``@k``:
    ``"Test Hits@100"`` → ``" test hits@k "``."""
    words = (word.split("@")[0] + "@k" if "@" in word else word for word in _words(name))
    return " " + " ".join(words) + " "
