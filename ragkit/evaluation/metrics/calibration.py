"""Is the confidence gauge trustworthy? Reliability bins, expected calibration error, risk-coverage.

``confidences`` are in [0, 1]; ``correct`` says whether each answer was right (1) or not (0)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ragkit.core.optional import require
from ragkit.pipeline.calibration import CALIBRATION_METHODS, CalibrationMap, scope_name


@dataclass(frozen=True)
class ReliabilityBin:
    lo: float
    hi: float
    count: int
    mean_confidence: float | None
    accuracy: float | None


def reliability_bins(
    confidences: Sequence[float], correct: Sequence[float], n_bins: int = 10
) -> list[ReliabilityBin]:
    """Equal-width bins over [0, 1] (the last one closed): count, mean confidence and accuracy in each."""
    if len(confidences) != len(correct):
        raise ValueError("confidences and correct must have the same length")
    bins: list[list[int]] = [[] for _ in range(n_bins)]
    for i, c in enumerate(confidences):
        bins[min(int(c * n_bins), n_bins - 1)].append(i)
    out = []
    for b, members in enumerate(bins):
        lo, hi = b / n_bins, (b + 1) / n_bins
        if members:
            mc = sum(confidences[i] for i in members) / len(members)
            acc = sum(correct[i] for i in members) / len(members)
            out.append(ReliabilityBin(lo, hi, len(members), mc, acc))
        else:
            out.append(ReliabilityBin(lo, hi, 0, None, None))
    return out


def expected_calibration_error(
    confidences: Sequence[float], correct: Sequence[float], n_bins: int = 10
) -> float:
    """ECE = sum over bins of (bin size / n) * |accuracy - mean confidence|."""
    n = len(confidences)
    if n == 0:
        return 0.0
    return sum(
        b.count / n * abs(b.accuracy - b.mean_confidence)  # type: ignore[operator]
        for b in reliability_bins(confidences, correct, n_bins)
        if b.count
    )


def ranking_auroc(scores: Sequence[float], right: Sequence[bool]) -> float | None:
    """ROC AUC of a confidence as a ranking of right over wrong answers: the chance a right answer's
    score is above a wrong one's (ties count half); None without both outcomes."""
    pos = sorted(s for s, r in zip(scores, right, strict=True) if r)
    neg = sorted(s for s, r in zip(scores, right, strict=True) if not r)
    if not pos or not neg:
        return None
    import bisect

    wins = sum(bisect.bisect_left(neg, p) + 0.5 * (bisect.bisect_right(neg, p) - bisect.bisect_left(neg, p))
               for p in pos)  # fmt: skip
    return wins / (len(pos) * len(neg))


def answer_confidence_auroc(per_q: dict[str, dict[str, Any]]) -> float | None:
    """How well a run's answer confidence ranks right answers above wrong ones: over its answerable
    questions with a gold answer (right: the answer given, or withheld, holds it) and its questions with
    nothing to find (never right)."""
    scores, right = [], []
    for row in per_q.values():
        if row.get("answer_confidence") is None:
            continue
        if row.get("candidate_correct") is not None:
            right.append(bool(row["candidate_correct"]))
        elif row.get("status") == "absent":
            right.append(False)
        else:
            continue
        scores.append(float(row["answer_confidence"]))
    return ranking_auroc(scores, right)


def risk_coverage(confidences: Sequence[float], correct: Sequence[float]) -> list[tuple[float, float, float]]:
    """``(threshold, coverage, accuracy of the kept answers)`` as the threshold rises through every
    distinct confidence: answers with confidence >= threshold are kept."""
    n = len(confidences)
    out = []
    for t in sorted(set(confidences)):
        kept = [i for i in range(n) if confidences[i] >= t]
        acc = sum(correct[i] for i in kept) / len(kept)
        out.append((t, len(kept) / n, acc))
    return out


def _fit(method: str, conf: Sequence[float], correct: Sequence[float]) -> CalibrationMap:
    import numpy as np

    c = np.asarray(conf, dtype=float)
    t = np.asarray(correct, dtype=float)
    if method == "isotonic":
        IsotonicRegression = require("sklearn.isotonic", "calibration").IsotonicRegression

        iso = IsotonicRegression(y_min=0.0, y_max=1.0, out_of_bounds="clip").fit(c, t)
        return CalibrationMap(
            "isotonic", tuple(map(float, iso.X_thresholds_)), tuple(map(float, iso.y_thresholds_))
        )
    if method == "platt":
        LogisticRegression = require("sklearn.linear_model", "calibration").LogisticRegression

        if len(set(t.tolist())) < 2:  # one class only: the constant rate is the best map
            rate = float(t.mean()) if len(t) else 0.0
            rate = min(max(rate, 1e-6), 1 - 1e-6)
            import math

            return CalibrationMap("platt", a=0.0, b=math.log(rate / (1 - rate)))
        lr = LogisticRegression(C=1e6).fit(c.reshape(-1, 1), t.astype(int))
        return CalibrationMap("platt", a=float(lr.coef_[0][0]), b=float(lr.intercept_[0]))
    raise ValueError(f"calibration method must be one of {', '.join(CALIBRATION_METHODS)}, got {method!r}")


def cross_validated_calibration(
    confidences: Sequence[float],
    correct: Sequence[float],
    method: str = "isotonic",
    folds: int = 5,
    seed: int = 0,
    n_bins: int = 10,
) -> dict[str, Any]:
    """ECE of the raw gauge and of the calibrated one, out of fold: every question's calibrated value
    comes from a map fitted on the other folds. Folds are stratified by outcome so each sees both."""
    import numpy as np

    n = len(confidences)
    if n != len(correct):
        raise ValueError("confidences and correct must have the same length")
    k = max(2, min(folds, n))
    rng = np.random.default_rng(seed)
    fold_of = np.empty(n, dtype=int)
    t = np.asarray(correct, dtype=float)
    for cls_ in (0.0, 1.0):
        idx = np.flatnonzero(t == cls_)
        rng.shuffle(idx)
        fold_of[idx] = np.arange(len(idx)) % k
    out_of_fold = np.empty(n)
    conf = np.asarray(confidences, dtype=float)
    for f in range(k):
        test = fold_of == f
        if not test.any():
            continue
        m = _fit(method, conf[~test], t[~test])
        out_of_fold[test] = [m.apply(float(v)) for v in conf[test]]
    calibrated = out_of_fold.tolist()
    return {
        "method": method,
        "folds": k,
        "n": n,
        "ece_raw": expected_calibration_error(list(conf), list(t), n_bins),
        "ece_calibrated": expected_calibration_error(calibrated, list(t), n_bins),
        "bins_calibrated": [b.__dict__ for b in reliability_bins(calibrated, list(t), n_bins)],
        "calibrated": calibrated,
    }


#: fewer labelled questions than this and a 10-bin ECE is mostly noise (three questions a bin): no map
MIN_QUESTIONS = 30


def _ece_batch(conf: Any, correct: Any, idx: Any, n_bins: int) -> Any:
    """ECE of every resample at once: ``idx`` is (resamples, n) indices into ``conf``/``correct``."""
    import numpy as np

    c, t = conf[idx], correct[idx]
    b = np.minimum((c * n_bins).astype(int), n_bins - 1)
    out = np.zeros(idx.shape[0])
    for k in range(n_bins):
        m = b == k
        cnt = m.sum(axis=1)
        gap = np.abs((t * m).sum(axis=1) - (c * m).sum(axis=1))  # = count * |accuracy - confidence|
        out += np.where(cnt > 0, gap, 0.0)
    return out / idx.shape[1]


def improvement_interval(
    raw: Sequence[float],
    calibrated: Sequence[float],
    correct: Sequence[float],
    n_resamples: int = 2000,
    seed: int = 0,
    n_bins: int = 10,
) -> tuple[float, float, float]:
    """How much lower the calibrated gauge's ECE is than the raw one's (raw − calibrated, the calibrated
    values out of fold), with a 95 % bootstrap interval resampling the questions."""
    import numpy as np

    r, c, t = (np.asarray(v, dtype=float) for v in (raw, calibrated, correct))
    point = expected_calibration_error(list(r), list(t), n_bins) - expected_calibration_error(
        list(c), list(t), n_bins
    )
    idx = np.random.default_rng(seed).integers(0, len(r), size=(n_resamples, len(r)))
    diffs = _ece_batch(r, t, idx, n_bins) - _ece_batch(c, t, idx, n_bins)
    return float(point), float(np.quantile(diffs, 0.025)), float(np.quantile(diffs, 0.975))


def calibration_offer(
    confidences: Sequence[float], correct: Sequence[float], method: str = "isotonic", folds: int = 5
) -> dict[str, Any]:
    """Whether a map is worth applying, and why: on at least :data:`MIN_QUESTIONS` questions with both
    outcomes, its cross-validated ECE must beat the raw gauge's beyond the noise (the 95 % bootstrap
    interval of the improvement above 0). Returns ``offered``, ``why`` and the figures."""
    n = len(confidences)
    if n < MIN_QUESTIONS:
        return {"offered": False, "n": n, "why": (
            f"{n} labelled questions: a calibration needs at least {MIN_QUESTIONS} (fewer leave about three "
            "per bin, and the ECE it would improve is mostly noise)")}  # fmt: skip
    if len(set(correct)) < 2:
        return {"offered": False, "n": n, "why": (
            "every question had the same outcome (evidence always or never retrieved): there is nothing "
            "to calibrate against")}  # fmt: skip
    cv = cross_validated_calibration(confidences, correct, method, folds)
    gain, lo, hi = improvement_interval(confidences, cv["calibrated"], correct)
    figures = {
        "n": n,
        "method": method,
        "folds": cv["folds"],
        "ece_raw": cv["ece_raw"],
        "ece_calibrated": cv["ece_calibrated"],
        "improvement": gain,
        "improvement_ci": [lo, hi],
    }
    before_after = f"{cv['folds']}-fold ECE {cv['ece_raw']:.3f} → {cv['ece_calibrated']:.3f}"
    if gain <= 0:
        return {**figures, "offered": False, "why": f"{before_after}: the map makes the gauge no better"}
    if lo <= 0:
        return {**figures, "offered": False, "why": (
            f"{before_after}, but the improvement ({gain:.3f}; 95 % interval {lo:+.3f} to {hi:+.3f}) is "
            f"within the noise of {n} questions")}  # fmt: skip
    return {
        **figures,
        "offered": True,
        "why": f"{before_after} (improvement 95 % interval {lo:.3f} to {hi:.3f})",
    }


def fit_calibration(
    confidences: Sequence[float],
    correct: Sequence[float],
    method: str = "isotonic",
    fitted_on: str = "",
    target: str = "",
    folds: int = 5,
    scope: str = "",
) -> CalibrationMap:
    """Fit the map on every labelled question, stamped with the cross-validated ECE before and after
    (what a user can expect on questions it was not fitted on). Refused (ValueError saying why) unless
    :func:`calibration_offer` offers it: a map that does not beat the raw gauge beyond the noise is not
    worth applying."""
    offer = calibration_offer(confidences, correct, method, folds)
    if not offer["offered"]:
        raise ValueError(f"no calibration: {offer['why']}")
    fitted = _fit(method, confidences, correct)
    return CalibrationMap(
        method,
        fitted.x,
        fitted.y,
        fitted.a,
        fitted.b,
        fitted_on,
        target,
        len(confidences),
        offer["folds"],
        offer["ece_raw"],
        offer["ece_calibrated"],
        scope,
    )


def calibrate_from_run(result: dict[str, Any], config_name: str, method: str = "isotonic") -> Any:
    """The config of ``config_name`` in an evaluation run, with a calibration map fitted on that run's
    questions (the raw gauge against the run's "correct"); returns ``(PipelineConfig, CalibrationMap)``.

    Any labelled run will do: a BEIR or SQuAD set, a CSV over the user's collection, or the collection's
    own labels. The map is stamped with the run, the cross-validated ECE before and after, and the
    collection (or dataset) it holds for; it is refused when it would not help (:func:`calibration_offer`)."""
    from dataclasses import replace

    from ragkit.pipeline.config import PipelineConfig

    configs = {c["name"]: c for c in result.get("configs", [])}
    if config_name not in configs:
        raise ValueError(f"the run has no config {config_name!r} (it has: {', '.join(configs) or 'none'})")
    c = configs[config_name]
    rows = [
        v
        for v in c["per_question"].values()
        if v.get("confidence") is not None and v.get("evidence_retrieved") is not None
    ]
    conf = [float(v.get("confidence_raw", v["confidence"])) for v in rows]
    correct = [float(v["evidence_retrieved"]) for v in rows]
    fitted_on = (
        f"{result.get('dataset_name') or result.get('dataset', '?')} (run {result.get('run_id', '?')}, "
        f"dataset sha256 {str(result.get('dataset_hash', ''))[:12]})"
    )
    target = (c.get("calibration") or {}).get("correct_means", "")
    scope = scope_name(result.get("params", {}).get("collection"), result.get("dataset_name") or "")
    cmap = fit_calibration(conf, correct, method, fitted_on, target, scope=scope)
    config = PipelineConfig.from_dict(c["config"])
    return replace(config, confidence_calibration=cmap.to_dict()), cmap
