#!/bin/sh
# Runs every RxNetworkKit benchmark and prints the tables of README.md:
#  1. the core workloads (ordo-one/benchmark; RxCore, OpenCombine and the plain-closure floor in
#     one run), medians and RxCore / OpenCombine ratios (report.py);
#  2. the HTTP workloads (http-bench: URLSession vs client.rx against a loopback server).
# Usage: Benchmarks/run.sh [extra `swift package benchmark` arguments, e.g. --filter 'push/.*']
# HTTP_ROUNDS=0 skips the HTTP part. Takes about 10 minutes on 2 idle cores.
set -eu
cd "$(dirname "$0")"
output="${TMPDIR:-/tmp}/rxnetworkkit-benchmarks.$$.md"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
swift package benchmark --format markdown --no-progress "$@" | tee "$output"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
echo
python3 report.py "$output"
echo "(raw output: $output)"
if [ "${HTTP_ROUNDS:-3}" -gt 0 ]; then
    echo
    swift build -c release --product http-bench
    "$(swift build -c release --show-bin-path)/http-bench" "${HTTP_ROUNDS:-3}"
fi
