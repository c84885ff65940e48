#!/usr/bin/env bash
# Large bodies (issue 37): a 1 GiB download and upload over loopback through the client, against
# `curl` in the same run, on both transports; peak memory growth; bytes re-fetched after two drops.
#
# nginx serves the file (ETag, ranges) and takes uploads (WebDAV PUT); a proxy in C in front of it
# (Benchmarks/cutproxy.c) cuts the first two connections after a third of the file each and counts
# the bytes it relays.
# Usage: Benchmarks/transfer-bench.sh [size-in-MiB, default 1024]   (needs nginx, curl and gcc)
set -euo pipefail
cd "$(dirname "$0")/.."
size_mib="${1:-1024}"
work=/tmp/rxnk-transfer-bench
port=18291
proxy_port=18292
rm -rf "$work" && mkdir -p "$work/www/files" "$work/www/uploads" "$work/tmp" "$work/out"
# nginx's worker runs as another user when started as root: it writes the uploads.
chmod 777 "$work/www/uploads" "$work/tmp"
echo "== a ${size_mib} MiB file"
head -c "$((size_mib * 1048576))" /dev/urandom > "$work/www/files/big.bin"
cp "$work/www/files/big.bin" "$work/source.bin"
cat > "$work/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $work/error.log;
pid $work/nginx.pid;
events { worker_connections 256; }
http {
    access_log off;
    sendfile on;
    client_body_temp_path $work/tmp;
    server {
        listen 127.0.0.1:$port;
        location /files/ { root $work/www; }
        location /uploads/ { root $work/www; dav_methods PUT; client_max_body_size 4g; create_full_put_path on; }
    }
}
CONF
nginx -c "$work/nginx.conf" & nginx_pid=$!
gcc -O2 -o "$work/cutproxy" Benchmarks/cutproxy.c
size=$((size_mib * 1048576))
proxy_pid=
trap 'kill $nginx_pid $proxy_pid 2>/dev/null || true' EXIT
sleep 1
swift build -c release --package-path Benchmarks --product transfer-bench >/dev/null
bench="$(swift build -c release --package-path Benchmarks --show-bin-path)/transfer-bench"
url="http://127.0.0.1:$port/files/big.bin"
for round in 1 2; do
    echo "== round $round: download"
    rm -f "$work/out/"*
    start=$(date +%s.%N); curl -fsS -o "$work/out/curl.bin" "$url"; end=$(date +%s.%N)
    echo "curl -o: $(python3 -c "print('%.3f s = %.1f MiB/s' % ($end-$start, $size/($end-$start)/1048576))")"
    for transport in urlsession ahc; do
        "$bench" download "$url" "$work/out/$transport.bin" "$transport"
        cmp -s "$work/out/$transport.bin" "$work/www/files/big.bin" && echo "   $transport: identical" || echo "   $transport: DIFFERS"
        rm -f "$work/out/$transport.bin"
    done
    echo "== round $round: upload"
    start=$(date +%s.%N); curl -fsS -o /dev/null -T "$work/source.bin" "http://127.0.0.1:$port/uploads/curl.bin"; end=$(date +%s.%N)
    echo "curl -T: $(python3 -c "print('%.3f s = %.1f MiB/s' % ($end-$start, $size/($end-$start)/1048576))")"
    for transport in urlsession ahc; do
        "$bench" upload "http://127.0.0.1:$port/uploads/$transport.bin" "$work/source.bin" "$transport"
        cmp -s "$work/www/uploads/$transport.bin" "$work/source.bin" && echo "   $transport: identical" || echo "   $transport: DIFFERS"
        rm -f "$work/www/uploads/"*
    done
done
echo "== two drops (the proxy cuts the first two connections after a third of the file each)"
for transport in urlsession ahc; do
    rm -f "$work/proxy.stats"
    "$work/cutproxy" "$proxy_port" "$port" "$((size / 3))" 2 "$work/proxy.stats" & proxy_pid=$!
    sleep 0.3
    "$bench" download "http://127.0.0.1:$proxy_port/files/big.bin" "$work/out/$transport-cut.bin" "$transport"
    kill $proxy_pid 2>/dev/null || true; wait $proxy_pid 2>/dev/null || true
    sleep 0.3
    cmp -s "$work/out/$transport-cut.bin" "$work/www/files/big.bin" && echo "   $transport: identical" || echo "   $transport: DIFFERS"
    connections=$(wc -l < "$work/proxy.stats")
    relayed=$(awk '{ sum += $1 } END { print sum }' "$work/proxy.stats")
    echo "   $transport: $connections connections, $relayed bytes relayed for $size: $((relayed - size)) more ($(python3 -c "print('%.3f %%' % (($relayed-$size)*100/$size))"), heads included)"
    rm -f "$work/out/"*
done
rm -rf "$work"
