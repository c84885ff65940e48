#!/usr/bin/env bash
# The HTTP cache against nginx (a server no one here wrote): nginx serves the same JSON with its own
# ETag at /stale (expires 0: max-age=0), /fresh (expires 60s) and /sie (max-age=0, stale-if-error=3).
# `http-bench cache-check` polls each through a client with a disk cache; then nginx is stopped and a
# new process on the same cache directory asks /sie again: stale within the window, a typed error
# after it. Needs nginx (apt-get install nginx-light). Usage: Benchmarks/cache-nginx.sh
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
work="$(mktemp -d)"
chmod 755 "$work"   # nginx workers run as another user
trap 'kill "$(cat "$work/nginx.pid" 2>/dev/null)" 2>/dev/null || true; rm -rf "$work"' EXIT
swift build -c release --package-path "$here" --product http-bench 2>&1 | tail -1
bench="$(swift build -c release --package-path "$here" --show-bin-path)/http-bench"
"$bench" json > "$work/person.json"
port=18190
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
daemon on;
error_log $work/error.log;
pid $work/nginx.pid;
events { worker_connections 64; }
http {
    access_log $work/access.log;
    server {
        listen 127.0.0.1:$port;
        default_type application/json;
        location = /stale { alias $work/person.json; expires 0; }
        location = /fresh { alias $work/person.json; expires 60s; }
        location = /sie { alias $work/person.json; add_header Cache-Control "max-age=0, stale-if-error=3"; }
    }
}
CONF
nginx -c "$work/nginx.conf"
sleep 0.3
"$bench" cache-check poll "http://127.0.0.1:$port" "$work/cache"
echo "nginx's log: $(grep -c '" 200 ' "$work/access.log") answers 200, $(grep -c '" 304 ' "$work/access.log") answers 304"
kill "$(cat "$work/nginx.pid")"
sleep 0.3
"$bench" cache-check down "http://127.0.0.1:$port" "$work/cache"
