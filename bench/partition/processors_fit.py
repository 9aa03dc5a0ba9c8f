#!/usr/bin/env python3
"""Fits time ~ a * p^b (and peak memory, kept points) to partition-processors-peak.json.

The fit uses p >= FROM (default 200): the exponents still grow up to there (fixed costs, then the
probe tables, weigh on small platforms), so a fit from smaller p would extrapolate too low.
Prints, per algorithm, the exponent, the local exponents between neighbouring p from p = 50, and
the value at p = 1000: measured when it was run, else extrapolated (marked so). HTPOPTA is HEPOPTA
plus O(front): when only HEPOPTA was run at 1000, HTPOPTA is also extrapolated as HEPOPTA's value
there times their ratio at the largest p both ran.
usage: processors_fit.py partition-processors-peak.json [FROM]
"""
import json
import math
import sys


def fit(points):
    """Least squares of log y on log p: returns (a, b)."""
    xs = [math.log(p) for p, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    b = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return math.exp(my - b * mx), b


def main(path, start):
    runs = json.load(open(path))
    for algo in ["hpopta", "load_balanced", "even_split", "hepopta", "htpopta"]:
        rows = sorted((r for r in runs if r["algorithm"] == algo), key=lambda r: r["p"])
        for key, label in [("seconds", "time s"), ("peak_rss_mib", "peak MiB"), ("states", "kept points")]:
            if key == "states" and algo != "hepopta":
                continue
            pts = [(r["p"], r[key]) for r in rows if r["p"] >= 50 and r[key] > 0]
            tail = [(p, y) for p, y in pts if p >= start]
            if len(tail) < 2:
                continue
            a, b = fit(tail)
            local = [f"{math.log(y2 / y1) / math.log(p2 / p1):.2f}" for (p1, y1), (p2, y2) in zip(pts, pts[1:])]
            at = {r["p"]: r[key] for r in rows}
            value = f"{at[1000]:.4g} (measured)" if 1000 in at else f"{a * 1000 ** b:.4g} (extrapolated, power law)"
            if 1000 not in at and algo == "htpopta":
                dp = {r["p"]: r[key] for r in runs if r["algorithm"] == "hepopta"}
                common = max(p for p in at if p in dp)
                if 1000 in dp:
                    value += f", {dp[1000] * at[common] / dp[common]:.4g} (extrapolated, HEPOPTA's x {at[common] / dp[common]:.2f})"
            print(f"{algo:14} {label:12} ~ p^{b:.2f} over p = {tail[0][0]}..{tail[-1][0]}; "
                  f"local from 50: {', '.join(local)}; at p = 1000: {value}")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 200)
