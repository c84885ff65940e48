#!/usr/bin/env python3
"""Turns `swift package benchmark --format markdown` output into the README's results table.

Benchmarks are named "<workload>/<implementation>" with an "events" tag; this pairs RxCore,
OpenCombine and the plain-closure floor of each workload and prints medians (p50), per-event
costs and the RxCore / OpenCombine ratio against the goal of issue 5.
Usage: report.py <benchmark-markdown-output>
"""
import re
import sys

GOALS = {"push": 0.5, "churn": 0.5, "zip": 0.8, "single": 0.5, "flatMap": 0.5, "merge": 0.6,
         "memory": 0.8}
IMPLEMENTATIONS = ["RxCore", "OpenCombine", "closures"]
METRICS = {
    "Time (wall clock)": "wall",
    "Time (total CPU)": "cpu",
    "Malloc (total)": "mallocs",
    "Malloc / free Δ (bytes)": "liveBytes",
}


def parse(text):
    results, current = {}, None
    for line in text.splitlines():
        header = re.match(r"^#+\s+(\S+)/(\S+) \(events: (\d+)\)", line)
        if header:
            workload, implementation, events = header.groups()
            current = results.setdefault(workload, {"events": int(events)}).setdefault(implementation, {})
            continue
        if current is None or not line.startswith("|"):
            continue
        cells = [c.strip() for c in line.strip("|").split("|")]
        for prefix, key in METRICS.items():
            if cells[0].startswith(prefix):
                # Columns: metric, p0, p25, p50, ...; times are in microseconds.
                current[key] = float(cells[3])
    return results


def ratio(results, workload, key):
    try:
        return results[workload]["RxCore"][key] / results[workload]["OpenCombine"][key]
    except (KeyError, ZeroDivisionError):
        return None


def fmt(value, digits=1):
    return "–" if value is None else f"{value:,.{digits}f}"


def main():
    results = parse(open(sys.argv[1], encoding="utf-8").read())
    print("| workload | events | " + " | ".join(f"{i} wall ms (ns/ev)" for i in IMPLEMENTATIONS)
          + " | ratio wall | ratio CPU | goal | RxCore mallocs/ev | OpenCombine mallocs/ev |")
    print("|---|--:|" + "--:|" * len(IMPLEMENTATIONS) + "--:|--:|--:|--:|--:|")
    for workload, row in results.items():
        events = row["events"]
        cells = []
        for implementation in IMPLEMENTATIONS:
            wall = row.get(implementation, {}).get("wall")
            cells.append("–" if wall is None else f"{wall / 1000:,.0f} ({wall * 1000 / events:,.1f})")
        wall_ratio, cpu_ratio = ratio(results, workload, "wall"), ratio(results, workload, "cpu")
        if workload == "memory":
            wall_ratio = cpu_ratio = ratio(results, workload, "liveBytes")
        goal = GOALS.get(workload)
        verdict = "" if goal is None or wall_ratio is None else (" ✅" if wall_ratio <= goal else " ❌")
        mallocs = [row.get(i, {}).get("mallocs") for i in ("RxCore", "OpenCombine")]
        print(f"| {workload} | {events:,} | " + " | ".join(cells)
              + f" | {fmt(wall_ratio, 2)}{verdict} | {fmt(cpu_ratio, 2)} | ≤ {goal} | "
              + " | ".join("–" if m is None else f"{m / events:.2f}" for m in mallocs) + " |")
    memory = results.get("memory")
    if memory:
        for implementation in IMPLEMENTATIONS:
            live = memory.get(implementation, {}).get("liveBytes")
            if live is not None:
                print(f"\n{implementation}: {live / memory['events']:,.1f} live bytes per subscription", end="")
        print()


if __name__ == "__main__":
    main()
