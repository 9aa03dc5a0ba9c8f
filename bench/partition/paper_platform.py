#!/usr/bin/env python3
"""Writes a profile CSV for `ctrl pareto` of five abstract processors modelled on the HEPOPTA
paper's DGEMM platform (its profiles are not public): CPU_1 (Haswell), GPU_1 (K40c), PHI_1 (Xeon
Phi 3120P) on one server, CPU_2 (Skylake), GPU_2 (P100) on the other.

Every processor's curve is the measured Haswell DGEMM profile (data/dgemm-haswell.csv): its time
and dynamic energy per flop at 200 measured sizes, walked once over the sizes 1..M from an offset
of its own (so that the irregular energy jumps fall in different places, as between real boards),
and scaled by the kind's time and energy factors. Sizes are in units of 64 rows of an
(64 x) x 10112 by 10112 x 10112 product, as in the paper (its workload 17152 x 10112 is 268
units); the flops of size x are 2 * (64 x + 64 o) * 10112^2, o a fixed overhead in units for the
accelerators (out-of-card transfers). The factors are assumptions, from the devices' peak rates
and power, not measurements: the platform shows the analysis on profiles of realistic shape and
scale, it does not reproduce the paper's numbers.

usage: paper_platform.py DGEMM_CSV [M] > profile.csv   (M sizes per processor, default 450)
"""
import csv
import sys

COLS = 10112
ROWS_PER_UNIT = 64
# name, time factor, energy factor, overhead (units), offset into the measured points
KINDS = [
    ("CPU_1", 1.00, 1.00, 0.0, 0),
    ("GPU_1", 0.55, 0.65, 1.5, 40),
    ("PHI_1", 0.95, 1.70, 3.0, 80),
    ("CPU_2", 0.70, 0.80, 0.0, 120),
    ("GPU_2", 0.22, 0.35, 1.5, 160),
]


def per_flop(path):
    """Time (s) and dynamic energy (J) per flop at each measured size of a square DGEMM."""
    tau, eps = [], []
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            flops = 2.0 * float(row["ps"]) ** 3
            tau.append(float(row["time"]) / flops)
            eps.append(float(row["energy"]) / flops)
    if not tau:
        sys.exit(f"paper_platform.py: no measured points in {path}")
    return tau, eps


def main(path, m):
    tau, eps = per_flop(path)
    points = len(tau)
    out = csv.writer(sys.stdout, lineterminator="\n")
    out.writerow(["processor", "size", "time", "energy"])
    for name, slow, cost, overhead, offset in KINDS:
        for x in range(1, m + 1):
            j = ((x - 1) * points // m + offset) % points
            flops = 2.0 * (x + overhead) * ROWS_PER_UNIT * COLS * COLS
            out.writerow([name, x, f"{slow * flops * tau[j]:.6g}", f"{cost * flops * eps[j]:.6g}"])


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) == 3 else 450)
