#!/bin/sh
# Runs every RxNetworkKit benchmark (RxCore, OpenCombine and the plain-closure floor, in one run)
# and prints the results table with RxCore / OpenCombine ratios (see README.md).
# Usage: Benchmarks/run.sh [extra `swift package benchmark` arguments, e.g. --filter 'push/.*']
set -eu
cd "$(dirname "$0")"
output="${TMPDIR:-/tmp}/rxnetworkkit-benchmarks.$$.md"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
swift package benchmark --format markdown --no-progress "$@" | tee "$output"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || uptime)"
echo
python3 report.py "$output"
echo
echo "(raw output kept in $output)"
