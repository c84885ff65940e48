#!/usr/bin/env python3
"""Groups a callgrind profile's instructions by where they go, per operation.

Usage: callgrind-summary.py <callgrind.out> <operations>
e.g.   valgrind --tool=callgrind --callgrind-out-file=cg.churn .build/release/rxcore-profile churn/RxCore
       ./callgrind-summary.py cg.churn 1000000
Instruction counts are exact and repeatable, whatever else the machine is doing (unlike time).
"""
import re
import subprocess
import sys

RULES = [
    ("generic value witnesses", r"ValueWitness|wta$|wtk$|wca$|wxx$|WOd$|WOc$|WOh$|wet$|wst$|existential|Existential"),
    ("metadata lookup", r"Metadata|getCache|GenericCacheEntry|instantiateGenericMetadata|memcmp|MetadataCacheKey|CMa$"),
    ("exclusivity checks", r"beginAccess|endAccess|AccessSet|tls_get_addr|SwiftTLSContext"),
    ("malloc/free", r"malloc\.c|slowAlloc|slowDealloc|_int_|allocObject|deallocClassInstance|deallocObject|cfree|tcache"),
    ("retain/release", r"swift_retain|swift_release|RefCount|release_dealloc|swift_bridgeObject|unknownObject"),
    ("locks", r"pthread_mutex|futex|lll_lock"),
    ("RxCore code", r"RxCore"),
    ("OpenCombine code", r"OpenCombine"),
    ("workload code", r"Workloads"),
]


def main():
    path, operations = sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 1
    out = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", path],
                         capture_output=True, text=True, check=True).stdout
    total, groups = None, {}
    for line in out.splitlines():
        match = re.match(r"\s*([\d,]+) \([ \d.]+%\)\s+(.*)", line)
        if not match:
            continue
        count, name = int(match.group(1).replace(",", "")), match.group(2)
        if "PROGRAM TOTALS" in name:
            total = count
            continue
        function = name.split(" [")[0]
        group = next((g for g, rule in RULES if re.search(rule, function)), "other")
        groups[group] = groups.get(group, 0) + count
    print(f"total {total:,} instructions = {total / operations:,.0f} per operation")
    for group, count in sorted(groups.items(), key=lambda item: -item[1]):
        print(f"  {group:26s} {count / total * 100:5.1f}%  {count / operations:8,.0f} per operation")


if __name__ == "__main__":
    main()
