#!/usr/bin/env python3
"""A front's predicted points beside the same distributions run and measured (`ctrl run --pick all`),
as an SVG: time on x, dynamic energy on y, measured 95 % intervals as bars.

usage: bench/lab/measured_front_svg.py RESULTS_JSON APP OUT_SVG
RESULTS_JSON is what bench/lab/h200-energy.sh writes (h200-energy.json, filed as
bench/results/energy-<machine>.json): {APP: {"front": <ctrl pareto JSON>, "runs": <ctrl run --pick all JSON>}}.
"""
import json
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    data = json.load(open(sys.argv[1]))
    app = sys.argv[2]
    if app not in data or not data[app].get("runs"):
        sys.exit(f"{sys.argv[1]}: no runs of '{app}'")
    points = []
    for p in data[app]["runs"]["points"]:
        t, e = p["run"]["total"]["time"], p["run"]["total"]["energy"]
        em = e["measured"]
        if not isinstance(em, dict):  # the total's interval: the processors' intervals, independent
            cis = [q["energy"]["measured"]["ci"] for q in p["run"]["processors"] if isinstance(q["energy"]["measured"], dict)]
            em = {"mean": em, "ci": sum(c * c for c in cis) ** 0.5}
        points.append((p["point"], t["predicted"], e["predicted"], t["measured"], em, p["decided_by"]))
    W, H, M = 560, 380, 60
    ts = [v for p in points for v in (p[1], p[3]["mean"] + p[3]["ci"], p[3]["mean"] - p[3]["ci"])]
    es = [v for p in points for v in (p[2], p[4]["mean"] + p[4]["ci"], p[4]["mean"] - p[4]["ci"])]
    t0, t1 = min(ts) * 0.95, max(ts) * 1.05
    e0, e1 = min(es) * 0.9, max(es) * 1.05
    x = lambda t: M + (t - t0) / (t1 - t0) * (W - 1.5 * M)
    y = lambda e: H - M + -(e - e0) / (e1 - e0) * (H - 1.7 * M)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<text x="{W / 2}" y="20" text-anchor="middle" font-size="14">{app}: front predicted (line) and each point run and measured (dots, 95 % CI)</text>',
           f'<line x1="{M}" y1="{H - M}" x2="{W - M / 2}" y2="{H - M}" stroke="black"/>',
           f'<line x1="{M}" y1="{H - M}" x2="{M}" y2="{0.7 * M}" stroke="black"/>',
           f'<text x="{W / 2}" y="{H - 15}" text-anchor="middle">time (ms)</text>',
           f'<text x="15" y="{H / 2}" transform="rotate(-90 15 {H / 2})" text-anchor="middle">dynamic energy (J)</text>']
    for i in range(5):
        tv, ev = t0 + (t1 - t0) * i / 4, e0 + (e1 - e0) * i / 4
        out.append(f'<text x="{x(tv)}" y="{H - M + 16}" text-anchor="middle">{tv * 1e3:.1f}</text>')
        out.append(f'<text x="{M - 6}" y="{y(ev) + 4}" text-anchor="end">{ev:.2f}</text>')
    pred = sorted((p[1], p[2]) for p in points)
    out.append('<polyline fill="none" stroke="#1f77b4" stroke-width="2" points="' +
               " ".join(f"{x(t):.1f},{y(e):.1f}" for t, e in pred) + '"/>')
    for n, tp, ep, tm, em, who in points:
        out.append(f'<circle cx="{x(tp):.1f}" cy="{y(ep):.1f}" r="4" fill="#1f77b4"/>')
        mx, my = x(tm["mean"]), y(em["mean"])
        out.append(f'<line x1="{x(tm["mean"] - tm["ci"]):.1f}" y1="{my:.1f}" x2="{x(tm["mean"] + tm["ci"]):.1f}" y2="{my:.1f}" stroke="#d62728"/>')
        out.append(f'<line x1="{mx:.1f}" y1="{y(em["mean"] - em["ci"]):.1f}" x2="{mx:.1f}" y2="{y(em["mean"] + em["ci"]):.1f}" stroke="#d62728"/>')
        out.append(f'<circle cx="{mx:.1f}" cy="{my:.1f}" r="4" fill="#d62728"/>')
        out.append(f'<text x="{mx + 7:.1f}" y="{my - 6:.1f}">{n} ({who})</text>')
    out.append(f'<text x="{W - M}" y="{0.7 * M + 10}" text-anchor="end" fill="#1f77b4">predicted</text>')
    out.append(f'<text x="{W - M}" y="{0.7 * M + 26}" text-anchor="end" fill="#d62728">measured</text>')
    out.append("</svg>")
    open(sys.argv[3], "w").write("\n".join(out) + "\n")


if __name__ == "__main__":
    main()
