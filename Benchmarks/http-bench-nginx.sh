#!/usr/bin/env bash
# Runs http-bench against nginx serving the same JSON document from a file on 127.0.0.1, so that the
# server is not the bottleneck; measures nginx's own ceiling with wrk first. Needs nginx and wrk
# (Debian: apt-get install nginx-light wrk). Usage: Benchmarks/http-bench-nginx.sh [rounds]
#        Benchmarks/http-bench-nginx.sh rss <client> [in flight]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
swift build -c release --package-path "$here" --product http-bench 2>&1 | tail -1
bench="$(swift build -c release --package-path "$here" --show-bin-path)/http-bench"
port="${HTTP_BENCH_NGINX_PORT:-18089}"
# shellcheck source=nginx-json.sh
source "$here/nginx-json.sh"
start_nginx_json "$bench" "$port"
echo "nginx ceiling (wrk, 1 thread, 16 and 64 connections, 5 s each):"
wrk -t1 -c16 -d5s "http://127.0.0.1:$port/person" | grep -E "Requests/sec|Latency"
wrk -t1 -c64 -d5s "http://127.0.0.1:$port/person" | grep -E "Requests/sec|Latency"
HTTP_BENCH_PORT=$port "$bench" "$@"
