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


def per_event(row, implementation, key):
    value = row.get(implementation, {}).get(key)
    return None if value is None else value * 1000 / row["events"]  # µs → ns per event


def main():
    results = parse(open(sys.argv[1], encoding="utf-8").read())
    print("Medians (p50) in ns per event, wall / CPU; ratio = RxCore / OpenCombine; the verdict is on"
          " CPU time (wall time counts waiting for a core on a loaded machine).\n")
    print("| workload | events | " + " | ".join(IMPLEMENTATIONS)
          + " | ratio wall | ratio CPU | goal | mallocs/event RxCore · OpenCombine |")
    print("|---|--:|" + "--:|" * len(IMPLEMENTATIONS) + "--:|--:|--:|--:|")
    order = ["push", "pushCreate", "churn", "zip", "single", "flatMap", "merge"]
    for workload, row in sorted(results.items(), key=lambda item: order.index(item[0]) if item[0] in order else 99):
        events = row["events"]
        if workload == "memory":
            continue
        cells = []
        for implementation in IMPLEMENTATIONS:
            wall, cpu = per_event(row, implementation, "wall"), per_event(row, implementation, "cpu")
            cells.append("–" if wall is None else f"{fmt(wall)} / {fmt(cpu)}")
        wall_ratio, cpu_ratio = ratio(results, workload, "wall"), ratio(results, workload, "cpu")
        goal = GOALS.get(workload)
        verdict = "" if goal is None or cpu_ratio is None else (" ✅" if cpu_ratio <= goal else " ❌")
        mallocs = []
        for implementation in ("RxCore", "OpenCombine"):
            count = row.get(implementation, {}).get("mallocs")
            mallocs.append("–" if count is None else f"{count / events:.2f}" + (f" ({count:.0f} in all)" if 0 < count < events else ""))
        print(f"| {workload} | {events:,} | " + " | ".join(cells)
              + f" | {fmt(wall_ratio, 2)} | {fmt(cpu_ratio, 2)}{verdict} | {'≤ ' + str(goal) if goal else '–'} | "
              + " · ".join(mallocs) + " |")
    memory = results.get("memory")
    if memory:
        print("\n| live subscriptions | " + " | ".join(f"{i} bytes/subscription" for i in IMPLEMENTATIONS)
              + " | ratio | goal |")
        print("|--:|" + "--:|" * len(IMPLEMENTATIONS) + "--:|--:|")
        cells = []
        for implementation in IMPLEMENTATIONS:
            live = memory.get(implementation, {}).get("liveBytes")
            cells.append("–" if live is None else f"{live / memory['events']:,.1f}")
        bytes_ratio = ratio(results, "memory", "liveBytes")
        goal = GOALS["memory"]
        verdict = "" if bytes_ratio is None else (" ✅" if bytes_ratio <= goal else " ❌")
        print(f"| {memory['events']:,} | " + " | ".join(cells) + f" | {fmt(bytes_ratio, 2)}{verdict} | ≤ {goal} |")


if __name__ == "__main__":
    main()
