#!/usr/bin/env bash
# Lists the source files whose code one GET runs (`client.rx.requestObject`, default configuration),
# measured rather than read by hand: two callgrind profiles of http-bench against nginx (N and 2N
# requests, 16 in flight); an instruction counts when it ran more often in the second (work per
# request, not set-up), and is mapped to its source lines with addr2line (inlined code counts for
# the file it came from). Needs valgrind, nginx and binutils.
# Usage: Benchmarks/files-crossed.sh [RxHTTP+AHC|RxHTTP] [N]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
client="${1:-RxHTTP+AHC}"
count="${2:-300}"
swift build -c release --package-path "$here" --product http-bench 2>&1 | tail -1
bench="$(swift build -c release --package-path "$here" --show-bin-path)/http-bench"
port="${HTTP_BENCH_NGINX_PORT:-18089}"
# shellcheck source=nginx-json.sh
source "$here/nginx-json.sh"
start_nginx_json "$bench" "$port"
dir="$nginx_dir"
# valgrind cannot read Swift's debug information: profile a copy without it, map with the original.
cp "$bench" "$dir/http-bench-stripped"
strip --strip-debug "$dir/http-bench-stripped"
for n in "$count" "$((count * 2))"; do
    HTTP_BENCH_PORT=$port valgrind --tool=callgrind --dump-instr=yes --callgrind-out-file="$dir/cg.$n" \
        "$dir/http-bench-stripped" only "$client" "$n" 16 > /dev/null 2>&1
done
python3 "$here/files-crossed.py" "$bench" "$dir/cg.$count" "$dir/cg.$((count * 2))" http-bench-stripped
