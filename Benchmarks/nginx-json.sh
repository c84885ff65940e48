# Sourced by the scripts that measure against nginx: `start_nginx_json <http-bench binary> <port>`
# serves http-bench's JSON document at http://127.0.0.1:<port>/person from a fresh directory
# (`$nginx_dir`), in the background; the EXIT trap stops nginx and removes the directory.
start_nginx_json() {
    local bench="$1" port="$2"
    nginx_dir="$(mktemp -d)"
    "$bench" json > "$nginx_dir/person.json"
    # nginx's worker runs as an unprivileged user: it must be able to read the file.
    chmod 755 "$nginx_dir"; chmod 644 "$nginx_dir/person.json"
    cat > "$nginx_dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $nginx_dir/error.log;
pid $nginx_dir/nginx.pid;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 10000000;
    keepalive_timeout 120s;
    server {
        listen 127.0.0.1:$port;
        location = /person { default_type application/json; alias $nginx_dir/person.json; }
    }
}
CONF
    nginx -c "$nginx_dir/nginx.conf" -p "$nginx_dir" &
    nginx_pid=$!
    trap 'kill $nginx_pid 2>/dev/null; wait $nginx_pid 2>/dev/null; rm -rf "$nginx_dir"' EXIT
    sleep 0.5
}
