"""Segmentation scorer: token P/R/F, OOV recall and IV recall."""
from typing import Any, Callable, Dict, Iterable, Optional, Set, Tuple

from spacy.scorer import PRFScore, Scorer
from spacy.training import Example
from spacy.util import registry


def correct_words(eg: Example) -> Tuple[Dict[int, str], Set[int]]:
    """Gold words of an example and which of them the prediction got right.

    A gold word is found when a predicted word covers exactly its characters.
    With equal texts that is a comparison of character offsets; otherwise the
    alignment decides (1:1 in both directions).

    RETURNS (Tuple[Dict[int, str], Set[int]]): gold token index -> text, for
        non-whitespace gold tokens, and the indices of the found ones.
    """
    ref, pred = eg.reference, eg.predicted
    gold = {t.i: t.text for t in ref if not t.is_space}
    if ref.text == pred.text:
        pred_spans = {(t.idx, len(t.text)) for t in pred if not t.is_space}
        found = {i for i in gold if (ref[i].idx, len(ref[i].text)) in pred_spans}
    else:
        x2y, y2x = eg.alignment.x2y, eg.alignment.y2x
        found = set()
        for token in pred:
            aligned = x2y[token.i]
            if len(aligned) == 1 and len(y2x[int(aligned[0])]) == 1 and int(aligned[0]) in gold:
                found.add(int(aligned[0]))
    return gold, found


def score_segmentation(
    examples: Iterable[Example], vocabulary: Optional[Set[str]] = None, **kwargs: Any
) -> Dict[str, Optional[float]]:
    """Score word segmentation the way the SIGHAN bakeoffs do.

    A predicted word is correct when it covers exactly the characters of a
    gold word. OOV recall is the recall of gold words not in `vocabulary`,
    IV recall that of the others (both None without a vocabulary).

    examples (Iterable[Example]): Predicted and reference docs.
    vocabulary (Optional[Set[str]]): The training vocabulary.
    RETURNS (Dict[str, Optional[float]]): token_p, token_r, token_f,
        token_oov_r, token_iv_r and spaCy's lenient token_acc.
    """
    examples = list(examples)
    prf = PRFScore()
    oov = [0, 0]
    iv = [0, 0]
    for eg in examples:
        gold, found = correct_words(eg)
        n_pred = sum(not t.is_space for t in eg.predicted)
        prf.tp += len(found)
        prf.fp += n_pred - len(found)
        prf.fn += len(gold) - len(found)
        if vocabulary:
            for i, text in gold.items():
                bucket = iv if text in vocabulary else oov
                bucket[0] += i in found
                bucket[1] += 1
    return {
        "token_acc": Scorer.score_tokenization(examples)["token_acc"],
        "token_p": prf.precision,
        "token_r": prf.recall,
        "token_f": prf.fscore,
        "token_oov_r": oov[0] / oov[1] if oov[1] else None,
        "token_iv_r": iv[0] / iv[1] if iv[1] else None,
    }


@registry.scorers("spacy_gdcws.segmentation_scorer.v1")
def make_segmentation_scorer() -> Callable[..., Dict[str, Optional[float]]]:
    """Registered scorer for `gdcws_segmenter` (a module-level function, so picklable)."""
    return score_segmentation
