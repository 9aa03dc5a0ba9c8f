#!/usr/bin/env python3
"""The HEPOPTA paper's analysis over a range of workloads, computed by `ctrl pareto`, beside the
paper's figures: front sizes, the gains of the front's ends against the load-balanced solution
(and the even split), the least dynamic energy within 5 % of the fastest time, and the dynamic-
against the total-energy optimum, averaged and at their largest, as the paper reports them.

The platform is paper_platform.py's (five processors modelled on the paper's DGEMM platform, from
the measured data/dgemm-haswell.csv). Writes the profile and one JSON per workload under WORK_DIR,
the per-workload rows to OUT_JSON, and prints a markdown summary.

usage: paper_analysis.py CTRL DGEMM_CSV WORK_DIR OUT_JSON [BASE_POWER_W ...]   (default 200 W)
"""
import json
import os
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
WORKLOADS = list(range(64, 449, 16))  # 17152 rows (the paper's workload) is 268 units


def pareto(ctrl, profile, n, base_power):
    out = subprocess.run([ctrl, "pareto", "--profile", profile, "--workload", str(n), "--base-power", str(base_power),
                          "--budget", "5%", "--format", "json"], check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def row(doc):
    a = doc["analysis"]
    o = a["energy_optima"]
    lb = doc["load_balanced"]
    return {
        "workload": doc["workload"],
        "front": a["front_size"],
        "strong": a["imbalance"]["strong"]["points"],
        "weak": a["imbalance"]["weak"]["points"],
        "lb_spread": (lb["slowest_processor_time"] - lb["fastest_processor_time"]) / lb["slowest_processor_time"],
        "time_gain": a["gains"]["time_optimal"]["time"],
        "energy_gain": a["gains"]["energy_optimal"]["energy"],
        "time_gain_even": a["gains_against_even_split"]["time_optimal"]["time"],
        "energy_gain_even": a["gains_against_even_split"]["energy_optimal"]["energy"],
        "saving_5": a["budgets"][0]["energy_saving"],
        "slowdown_5": a["budgets"][0]["slowdown"],
        "total_excess": o["total_excess"],
        "base_power": o["base_power"],
    }


def pct(x):
    return f"{100 * x:.1f} %"


def main(ctrl, dgemm, work, out_json, powers):
    os.makedirs(work, exist_ok=True)
    profile = os.path.join(work, "paper-platform.csv")
    with open(profile, "w") as f:
        subprocess.run([sys.executable, os.path.join(HERE, "paper_platform.py"), dgemm], check=True, stdout=f)
    rows = []
    for power in powers:
        for n in WORKLOADS:
            doc = pareto(ctrl, profile, n, power)
            with open(os.path.join(work, f"front-{n}-{power:g}W.json"), "w") as f:
                json.dump(doc, f)
            rows.append(row(doc))
    with open(out_json, "w") as f:
        json.dump({"workloads": WORKLOADS, "base_powers": powers, "rows": rows}, f, indent=1)
    first = [r for r in rows if r["base_power"] == powers[0]]
    print(f"{len(WORKLOADS)} workloads, {WORKLOADS[0]} to {WORKLOADS[-1]} units of 64 rows\n")
    print("| quantity | average | largest |")
    print("|---|---|---|")
    for key, label, fmt in [("front", "front size (points)", str), ("time_gain", "time gain of the time-optimal point", pct),
                            ("energy_gain", "energy gain of the energy-optimal point", pct),
                            ("time_gain_even", "time gain of the time-optimal point, against the even split", pct),
                            ("energy_gain_even", "energy gain of the energy-optimal point, against the even split", pct),
                            ("saving_5", "dynamic energy saved within 5 % of the fastest time", pct),
                            ("lb_spread", "spread of the load-balanced solution's times", pct)]:
        values = [r[key] for r in first]
        mean = statistics.mean(values)
        print(f"| {label} | {fmt(round(mean)) if fmt is str else fmt(mean)} | {fmt(max(values))} |")
    for power in powers:
        excess = [r["total_excess"] for r in rows if r["base_power"] == power]
        differ = sum(1 for x in excess if x > 0)
        print(f"| total energy the dynamic optimum wastes, base power {power:g} W ({differ} of {len(excess)} workloads "
              f"differ) | {pct(statistics.mean(excess))} | {pct(max(excess))} |")
    strong = sum(r["strong"] for r in first)
    points = sum(r["front"] for r in first)
    print(f"\nstrongly imbalanced points: {strong} of {points} ({pct(strong / points)})")


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], [float(p) for p in sys.argv[5:]] or [200.0])
