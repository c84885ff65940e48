#!/usr/bin/env bash
# Runs http-bench against nginx serving the same JSON document from a file on 127.0.0.1, so that the
# server is not the bottleneck; measures nginx's own ceiling with wrk first. Needs nginx and wrk
# (Debian: apt-get install nginx-light wrk). Usage: Benchmarks/http-bench-nginx.sh [rounds]
#        Benchmarks/http-bench-nginx.sh rss <client> [in flight]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
swift build -c release --package-path "$here" --product http-bench 2>&1 | tail -1
bench="$(swift build -c release --package-path "$here" --show-bin-path)/http-bench"
dir="$(mktemp -d)"
port="${HTTP_BENCH_NGINX_PORT:-18089}"
"$bench" json > "$dir/person.json"
# nginx's worker runs as an unprivileged user: it must be able to read the file.
chmod 755 "$dir"; chmod 644 "$dir/person.json"
cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $dir/error.log;
pid $dir/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 10000000;
    keepalive_timeout 120s;
    server {
        listen 127.0.0.1:$port;
        location = /person { default_type application/json; alias $dir/person.json; }
    }
}
CONF
nginx -c "$dir/nginx.conf" -p "$dir" &
nginx_pid=$!
trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null; rm -rf "$dir"' EXIT
sleep 0.5
echo "nginx ceiling (wrk, 1 thread, 16 and 64 connections, 5 s each):"
wrk -t1 -c16 -d5s "http://127.0.0.1:$port/person" | grep -E "Requests/sec|Latency"
wrk -t1 -c64 -d5s "http://127.0.0.1:$port/person" | grep -E "Requests/sec|Latency"
HTTP_BENCH_PORT=$port "$bench" "$@"
