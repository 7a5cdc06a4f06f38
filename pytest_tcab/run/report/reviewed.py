"""The sweep's review figures: what the reviewers decided, beside what the validators decided.

Three levels, each built from the one below, so a merged or resumed sweep (its rows built from
the results.json runs shards and earlier sessions wrote) has the same figures:

- a row's `review` (`row_review`): its run's results.json `review` (the reviews found in the
  operator's reviews folder, folded by the review wing) cut to what the sweep compares: the
  run's reviewed score and rating, how many complete current reviews it has, whether it awaits
  one, and each review's effective verdicts, ratings and overrides;
- a leaderboard cell's `review` (`cell_review`): the mean reviewed score over the group's
  reviewed runs with the same seeded bootstrap interval as the automated score's, "n reviewed of
  n graded", the runs' ratings per tier with the best and the worst, and the runs awaiting review;
- the sweep's `reviews` (`sweep_reviews`): how often reviewers override each validator, and where
  two reviewers reviewed the same runs, how often they agree, per verdict and per domain (the
  share agreeing and Cohen's kappa).

Only a complete, current review counts: a stale one (its build changed since) or a draft counts
nowhere, here as in results.json. Nothing here reads a file: a run's reviews reach the sweep only
through the grader's own results.json, never from what the produced run holds.
"""

from __future__ import annotations

import statistics
from collections import Counter
from itertools import combinations
from typing import Any

from pytest_tcab.run.report.statistics import bootstrap_interval
from pytest_tcab.scoring import RATING_SCALE

PASS, FAIL = "pass", "fail"
AUTOMATED = {"passed": PASS, "failed": FAIL}
"""A validator's outcome on a row's `validate[<id>]` item, as a review's verdict says it."""
NO_VARIANCE = ("undefined: both reviewers gave every run the same {what} ({value}), so agreement by chance "
               "is certain and kappa divides by zero")


# -- a row ---------------------------------------------------------------------------------


def row_review(run: dict[str, Any]) -> dict[str, Any]:
    """The row's `review`: the run's reviewed `score` (the mean of its complete, current reviews'
    scores) and `rating` (the worst of theirs), both null until one exists; `reviewed`, how many
    reviews count; `awaiting`, whether it is a graded run with a checklist to review and none
    counts yet; `reviews`, each review found with the verdicts and ratings it gives."""
    folded: dict[str, Any] = run["review"] if isinstance(run.get("review"), dict) else {}
    value = _dict(folded.get("score")).get("value")
    value = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    reviewable = isinstance(run.get("domains"), dict) or bool(folded)
    graded = not run.get("not_graded") and not any(item.get("not_graded") for item in run.get("items", []))
    return {
        "score": None if value is None else round(float(value), 6),
        "rating": folded.get("rating") if folded.get("rating") in RATING_SCALE else None,
        "reviewed": folded["reviewed"] if isinstance(folded.get("reviewed"), int) else 0,
        "awaiting": reviewable and graded and value is None,
        "reviews": [_review_summary(review) for review in _list(folded.get("reviews")) if isinstance(review, dict)],
    }


def _review_summary(review: dict[str, Any]) -> dict[str, Any]:
    """One review as the sweep compares reviews: its effective verdicts and the ids it overrode."""
    return {
        "reviewer": str(review.get("reviewer")),
        "complete": review.get("complete") is True,
        "stale": review.get("stale") is not False,  # a review that does not say it is current is not
        "overall": review.get("overall") if review.get("overall") in RATING_SCALE else None,
        "ratings": {str(domain): tier for domain, tier in _dict(review.get("ratings")).items() if tier in RATING_SCALE},
        "verdicts": {str(key): verdict.get("outcome") for key, verdict in _dict(review.get("verdicts")).items()
                     if isinstance(verdict, dict) and verdict.get("outcome") in (PASS, FAIL)},
        "overrides": sorted(str(override.get("id")) for override in _list(review.get("overrides"))
                            if isinstance(override, dict)),
    }


def _dict(value: Any) -> dict[Any, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def summary_of(row: dict[str, Any]) -> dict[str, Any]:
    """A row's `review` (an empty one for a row that has none: a bad input, an older sweep's row)."""
    review = row.get("review")
    return review if isinstance(review, dict) else {}


def reviewed_score(row: dict[str, Any]) -> float | None:
    """A row's reviewed score, or None while no review counts."""
    score = summary_of(row).get("score")
    return float(score) if isinstance(score, int | float) and not isinstance(score, bool) else None


def is_awaiting(row: dict[str, Any]) -> bool:
    """Whether a row's run is graded, has a checklist to review and no review counts for it yet."""
    return summary_of(row).get("awaiting") is True


def counted(row: dict[str, Any]) -> list[dict[str, Any]]:
    """The reviews of a row that count: complete and current (each as `row_review` cut it)."""
    reviews = summary_of(row).get("reviews")
    return [one for one in reviews if isinstance(one, dict) and one.get("complete") is True and not one.get("stale")
            and isinstance(one.get("verdicts"), dict) and isinstance(one.get("ratings"), dict)
            and isinstance(one.get("overrides"), list)] if isinstance(reviews, list) else []


def automated(row: dict[str, Any]) -> dict[str, str]:
    """The verdicts a validator decided in a row's run, by id: `pass` or `fail`."""
    found = {}
    for key, outcome in (row.get("items") or {}).items():
        kind, _, rest = str(key).partition("[")
        if kind == "validate" and rest.endswith("]") and outcome in AUTOMATED:
            found[rest[:-1]] = AUTOMATED[outcome]
    return found


# -- a leaderboard cell ----------------------------------------------------------------------


def cell_review(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """The cell's `review`: over its graded runs with a checklist to review (`of`), those with a
    reviewed score (`n`): their mean (`value`) and its 95% bootstrap interval (`low`, `high`), seeded
    like the automated score's; each run's own point; their ratings (`ratings`, runs per tier, and
    the `best` and `worst` of them); and the runs still `awaiting` a review."""
    graded = [row for row in rows if row.get("status") == "graded" and not row.get("partial")]
    reviewable = [row for row in graded if is_awaiting(row) or reviewed_score(row) is not None]
    reviewed = sorted((row for row in reviewable if reviewed_score(row) is not None), key=lambda row: row["run"])
    scores = [score for row in reviewed if (score := reviewed_score(row)) is not None]
    low, high = bootstrap_interval(scores, [row["run"] for row in reviewed])  # the automated score's, seeded alike
    ratings = [summary_of(row).get("rating") for row in reviewed]
    tiers = Counter(tier for tier in ratings if tier in RATING_SCALE)
    given = [tier for tier in RATING_SCALE if tiers[tier]]
    return {
        "statistic": "mean", "unit": "share of points", "better": "higher", "interval": "bootstrap 95%",
        "n": len(scores), "of": len(reviewable),
        "value": round(statistics.fmean(scores), 6) if scores else None, "low": low, "high": high,
        "points": [{"run": row["run"], "value": score, "rating": rating if rating in RATING_SCALE else None}
                   for row, score, rating in zip(reviewed, scores, ratings, strict=True)],
        "ratings": {tier: tiers[tier] for tier in RATING_SCALE},
        "best": given[0] if given else None,
        "worst": given[-1] if given else None,
        "awaiting": sum(is_awaiting(row) for row in graded),
    }


def review_aside(cell: dict[str, Any]) -> list[str]:
    """A cell's reviewed score and ratings as the terminal table says them beside its figure:
    `reviewed 0.857 [0.800, 0.914], 2 of 3 graded`, `rated great to scuffed` (its runs awaiting
    review are counted with the others beside the figure, `1 awaiting review`)."""
    review = cell.get("review") or {}
    words = []
    if review.get("value") is not None:
        words.append(f"reviewed {review['value']:.3f} [{review['low']:.3f}, {review['high']:.3f}], "
                     f"{review['n']} of {review['of']} graded")
    if review.get("best"):
        words.append(f"rated {review['best']}" if review["best"] == review["worst"]
                     else f"rated {review['best']} to {review['worst']}")
    return words


# -- the sweep -------------------------------------------------------------------------------


def sweep_reviews(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """sweep.json's `reviews`: who reviewed (`reviewers`), how many runs have a reviewed score
    (`reviewed`) and how many await one (`awaiting`); per verdict, how often reviewers override
    its validator (`overrides`); and where two reviewers reviewed the same runs, how often they
    agree (`agreement`). Only complete, current reviews of graded runs count."""
    graded = [row for row in rows if row.get("status") == "graded"]
    return {
        "reviewers": sorted({str(review.get("reviewer")) for row in graded for review in counted(row)}),
        "reviewed": sum(reviewed_score(row) is not None for row in graded),
        "awaiting": sum(is_awaiting(row) for row in graded),
        "overrides": override_rates(graded),
        "agreement": agreement(graded),
    }


def override_rates(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per case and verdict a validator decided: of the reviews of runs where it decided
    (`reviews`, over `runs` runs), how many overrode it (`overrides`: `to_fail` a pass, `to_pass`
    a fail) and their `share`. The most overridden first: the scripts reviewers disagree with."""
    tally: dict[tuple[str, str], dict[str, Any]] = {}
    for row in rows:
        reviews = counted(row)
        if not reviews:
            continue
        for verdict, outcome in automated(row).items():
            entry = tally.setdefault((str(row.get("case")), verdict), {"reviews": 0, "runs": set(), "to_fail": 0,
                                                                      "to_pass": 0})
            entry["runs"].add(row["run"])
            for review in reviews:
                entry["reviews"] += 1
                if verdict in review["overrides"]:
                    entry["to_fail" if outcome == PASS else "to_pass"] += 1
    rates = []
    for (case, verdict), entry in tally.items():
        overrides = entry["to_fail"] + entry["to_pass"]
        rates.append({"case": case, "verdict": verdict, "reviews": entry["reviews"], "runs": len(entry["runs"]),
                      "overrides": overrides, "to_fail": entry["to_fail"], "to_pass": entry["to_pass"],
                      "share": round(overrides / entry["reviews"], 6)})
    return sorted(rates, key=lambda rate: (-rate["share"], -rate["overrides"], rate["case"], rate["verdict"]))


def agreement(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per pair of reviewers, case and verdict or domain, over the runs both reviewed and both
    judged it on (`runs`): how many they agree on (`agreeing`), the `share`, and Cohen's `kappa`
    (the agreement beyond what their own rates of each answer give by chance; for a domain,
    unweighted over the five tiers); when kappa is undefined, `kappa_note` says why in words."""
    pairs: dict[tuple[str, str, str, str, str], list[tuple[str, str]]] = {}
    for row in rows:
        by_reviewer = {str(review.get("reviewer")): review for review in counted(row)}
        for first, second in combinations(sorted(by_reviewer), 2):
            a, b = by_reviewer[first], by_reviewer[second]
            for what, field in (("verdict", "verdicts"), ("domain", "ratings")):
                for key in sorted(set(a[field]) & set(b[field])):
                    pairs.setdefault((first, second, str(row.get("case")), what, key), []).append(
                        (str(a[field][key]), str(b[field][key])))
    found = []
    for (first, second, case, what, key), judged in sorted(pairs.items()):
        agreeing = sum(x == y for x, y in judged)
        kappa, note = cohen_kappa(judged, "verdict" if what == "verdict" else "rating")
        found.append({"reviewers": [first, second], "case": case, "what": what, "id": key, "runs": len(judged),
                      "agreeing": agreeing, "share": round(agreeing / len(judged), 6), "kappa": kappa,
                      "kappa_note": note})
    return found


def cohen_kappa(judged: list[tuple[str, str]], what: str = "answer") -> tuple[float | None, str | None]:
    """Cohen's kappa of two raters' answers on the same items, `(p_o - p_e) / (1 - p_e)`: p_o the
    share they agree on, p_e the share they would agree on by chance, each answering at their own
    rates. Undefined when p_e is 1 (both gave one and the same answer to every item: nothing
    varies), and for no items at all: then None, and the reason in words."""
    if not judged:
        return None, "undefined: no run both reviewers judged"
    n = len(judged)
    first = Counter(x for x, _ in judged)
    second = Counter(y for _, y in judged)
    observed = sum(x == y for x, y in judged) / n
    chance = sum(first[answer] * second[answer] for answer in first) / (n * n)
    if len(first) == 1 and first == second:  # p_e is exactly 1: the formula would divide by zero
        return None, NO_VARIANCE.format(what=what, value=next(iter(first)))
    return round((observed - chance) / (1 - chance), 6), None
