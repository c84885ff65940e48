#!/usr/bin/env bash
# A real, throwaway PostgreSQL server for tests.
#
# Why: the fleet's PostgreSQL backend speaks the real wire protocol and relies on the server's own
# behaviour (advisory locks, LISTEN/NOTIFY, transactions, errors), which no fake reproduces, so its
# tests need a real PostgreSQL. This script runs one from Debian's `postgresql` package in a folder
# of its own, as an unprivileged user, on a free port of 127.0.0.1 only, with trust auth: nothing
# of the machine's own PostgreSQL (Debian's `main` cluster, /var/run/postgresql, port 5432) is used.
#
#   Scripts/postgres.sh install      # Debian's postgresql package, if no initdb is installed
#   Scripts/postgres.sh start DIR [PORT]  # starts (first initdb) the cluster in DIR, on PORT if
#                                         # given (a restart keeps its clients' URL); prints its URL
#   Scripts/postgres.sh url DIR      # prints the URL of the cluster running in DIR again
#   Scripts/postgres.sh stop DIR     # stops it (exit 0 if it was not running)
#
# `start` prints exactly one line to stdout, postgres://rxnk@127.0.0.1:PORT/rxnetworkkit, so that
# `url="$(Scripts/postgres.sh start DIR)"` works; everything else goes to stderr or DIR/server.log.
# The server goes on running after the script exits, until `stop`. Starting again in the same DIR
# reuses its data (with a new free port, unless PORT is given). Layout of DIR:
#   DIR/data        the cluster (initdb), owned by the user rxnk-postgres
#   DIR/socket      its unix socket directory
#   DIR/server.log  the server's log
#   DIR/port        the port it listens on (for `url`)
#
# Run as root (as CI and the developers do): the server runs as the system user rxnk-postgres,
# made here if missing, since PostgreSQL refuses to run as root. Run as another user, the server
# runs as that user. The role `rxnk` is the cluster's superuser and owns the database `rxnetworkkit`.
set -euo pipefail

readonly PG_USER="rxnk-postgres"
readonly DB_ROLE="rxnk"
readonly DB_NAME="rxnetworkkit"
readonly READY_TIMEOUT=30   # seconds that `start` waits for the server to accept connections

# The caller's PG* variables (PGHOST, PGPORT, PGDATA, PGUSER, PGOPTIONS...) must not steer the
# tools run here: every call below names its host, port, user and database itself.
while IFS= read -r name; do
    if [[ "$name" == PG* ]]; then unset "$name"; fi
done < <(compgen -e)

# The server must not inherit the caller's other descriptors: one held open by a daemon keeps a
# caller waiting for it (a pipe's end, or the socket Foundation's Process watches to see its child
# end), so they are closed before anything starts.
for fd_path in /proc/$$/fd/*; do
    fd="${fd_path##*/}"
    if [[ "$fd" =~ ^[0-9]+$ ]] && (( fd > 2 )); then eval "exec $fd>&-" 2>/dev/null || true; fi
done
unset fd_path fd

log() { printf 'postgres.sh: %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

usage() {
    sed -n '2,/^set -euo pipefail$/{/^#/s/^# \{0,1\}//p}' "$0" >&2
    exit "${1:-2}"
}

# The bin folder of the newest installed PostgreSQL (Debian puts each major version in
# /usr/lib/postgresql/N/bin), or of the version that made DIR/data, if that one is installed.
pg_bin() {
    local data="${1:-}" version
    if [[ -n "$data" && -f "$data/PG_VERSION" ]]; then
        version="$(<"$data/PG_VERSION")"
        if [[ -x "/usr/lib/postgresql/$version/bin/postgres" ]]; then
            echo "/usr/lib/postgresql/$version/bin"
            return
        fi
    fi
    local initdb
    initdb="$(compgen -G '/usr/lib/postgresql/*/bin/initdb' | sort -V | tail -n 1 || true)"
    [[ -n "$initdb" ]] || return 1
    dirname "$initdb"
}

# Runs a command as the server's user, from DIR (the caller's working directory, /root for
# instance, may be closed to that user).
as_pg() {
    if (( EUID == 0 )); then
        (cd "$DIR" && runuser -u "$PG_USER" -- "$@")
    else
        (cd "$DIR" && "$@")
    fi
}

# Sets DIR to the absolute form of the folder argument, creating it with `create`.
set_dir() {
    [[ -n "${1:-}" ]] || usage
    if [[ "${2:-}" == create ]]; then mkdir -p -- "$1"; fi
    if [[ -d "$1" ]]; then
        DIR="$(cd -- "$1" && pwd -P)"
    else
        DIR="$1"
    fi
    DATA="$DIR/data"
    SOCKET_DIR="$DIR/socket"
}

url_for_port() { echo "postgres://$DB_ROLE@127.0.0.1:$1/$DB_NAME"; }

# The port written by the last `start`, if the file holds one.
stored_port() {
    local port=""
    if [[ -f "$DIR/port" ]]; then port="$(<"$DIR/port")"; fi
    [[ "$port" =~ ^[0-9]+$ ]] || return 1
    echo "$port"
}

is_ready() { "$BIN/pg_isready" -q -h 127.0.0.1 -p "$1" -U "$DB_ROLE" -d postgres -t 2; }

# The PID in DIR/data/postmaster.pid, if the file is there.
postmaster_pid() {
    local pid=""
    if [[ -f "$DATA/postmaster.pid" ]]; then pid="$(head -n 1 "$DATA/postmaster.pid" 2>/dev/null || true)"; fi
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    echo "$pid"
}

# The state letter of a process (R, S, Z...), or nothing if there is no such process.
proc_state() {
    local stat=""
    stat="$(cat "/proc/$1/stat" 2>/dev/null || true)"
    stat="${stat##*) }"   # after "PID (comm) "
    echo "${stat%% *}"
}

# Whether the postmaster of DIR/data is running. Not `pg_ctl status` alone: it takes a zombie
# for a live server, and here a postmaster that exits is reparented to PID 1, which may take
# a second or two to reap it.
is_running() {
    local pid state
    pid="$(postmaster_pid)" || return 1
    state="$(proc_state "$pid")"
    [[ -n "$state" && "$state" != Z ]] || return 1
    if (( EUID == 0 )) && ! id -u "$PG_USER" >/dev/null 2>&1; then return 1; fi
    as_pg "$BIN/pg_ctl" status -D "$DATA" >/dev/null 2>&1
}

# A postmaster killed without a clean shutdown leaves its postmaster.pid behind, which is fine
# (the next postmaster checks that its PID is gone) unless that PID is still an unreaped
# zombie, which the new postmaster takes for a live server: wait for it to be reaped.
wait_for_zombie() {
    local pid deadline=$(( SECONDS + READY_TIMEOUT ))
    pid="$(postmaster_pid)" || return 0
    while [[ "$(proc_state "$pid")" == Z ]]; do
        (( SECONDS < deadline )) || die "the last postmaster of $DIR (PID $pid) is a zombie that is not reaped"
        sleep 0.2
    done
}

# A free TCP port on 127.0.0.1: the kernel's pick for port 0. Another process may take it before
# the server binds it; `start` then tries again with another one.
free_port() {
    if command -v python3 >/dev/null 2>&1; then
        python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
    else
        echo $(( 20000 + RANDOM % 30000 ))
    fi
}

cmd_install() {
    if pg_bin >/dev/null; then
        log "PostgreSQL is installed: $("$(pg_bin)/postgres" --version)"
        return
    fi
    (( EUID == 0 )) || die "installing the postgresql package needs root"
    log "installing Debian's postgresql package"
    apt-get update >&2
    DEBIAN_FRONTEND=noninteractive apt-get install -y postgresql >&2
    pg_bin >/dev/null || die "the postgresql package is installed but no /usr/lib/postgresql/*/bin/initdb"
    # Debian's package makes a `main` cluster and may start it (not in containers whose
    # policy-rc.d forbids starting services). We only use our own clusters: stop it.
    if command -v pg_lsclusters >/dev/null 2>&1; then
        local version cluster _ status
        while read -r version cluster _ status _; do
            if [[ "$status" == online* ]]; then
                log "stopping Debian's own cluster $version/$cluster"
                pg_ctlcluster "$version" "$cluster" stop >&2 || true
            fi
        done < <(pg_lsclusters --no-header 2>/dev/null || true)
    fi
    log "installed: $("$(pg_bin)/postgres" --version)"
}

# The unprivileged system user that owns and runs the clusters.
ensure_user() {
    id -u "$PG_USER" >/dev/null 2>&1 && return
    log "creating the system user $PG_USER"
    # A start in another DIR at the same moment may have made it in between: check again.
    useradd --system --user-group --no-create-home --home-dir /nonexistent \
        --shell /usr/sbin/nologin "$PG_USER" >&2 || id -u "$PG_USER" >/dev/null 2>&1 ||
        die "could not create the user $PG_USER"
}

# initdb into DIR/data, with trust auth for local connections and 127.0.0.1 only.
init_cluster() {
    log "initdb into $DATA"
    as_pg "$BIN/initdb" -D "$DATA" -U "$DB_ROLE" --auth-local=trust --auth-host=trust \
        --encoding=UTF8 --locale=C --no-sync >&2
    cat > "$DATA/pg_hba.conf" <<'EOF'
# Written by Scripts/postgres.sh: trust, for the unix socket and 127.0.0.1 only.
# TYPE  DATABASE     USER  ADDRESS       METHOD
local   all          all                 trust
host    all          all   127.0.0.1/32  trust
local   replication  all                 trust
host    replication  all   127.0.0.1/32  trust
EOF
    cat >> "$DATA/postgresql.conf" <<'EOF'

# Scripts/postgres.sh: settings for tests. The address, port and socket folder are in
# rxnk.conf, written again at each start.
max_connections = 200
include_if_exists = 'rxnk.conf'
EOF
    if (( EUID == 0 )); then chown "$PG_USER:" "$DATA/pg_hba.conf" "$DATA/postgresql.conf"; fi
}

# The settings that a start may change: 127.0.0.1 only, the chosen port, the socket in DIR.
write_start_conf() {
    local port="$1" socket_dir="${SOCKET_DIR//\'/\'\'}"
    as_pg tee "$DATA/rxnk.conf" >/dev/null <<EOF
# Written by Scripts/postgres.sh at each start.
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$socket_dir'
EOF
}

cmd_start() {
    set_dir "${1:-}" create
    local started=$SECONDS
    BIN="$(pg_bin "$DATA")" || die "no PostgreSQL installed: run Scripts/postgres.sh install first"

    # A unix socket's path is at most 107 bytes: DIR/socket/.s.PGSQL.PORT must fit.
    local socket_path="$SOCKET_DIR/.s.PGSQL.65535"
    (( ${#socket_path} <= 107 )) || die "DIR is too long for a unix socket path ($socket_path): use a shorter one"

    if is_running; then
        local port
        if port="$(stored_port)" && is_ready "$port"; then
            log "already running in $DIR on port $port"
            url_for_port "$port"
            return
        fi
        log "a server is running in $DIR but not on a known port: restarting it"
        cmd_stop "$DIR"
    fi

    wait_for_zombie
    if (( EUID == 0 )); then
        ensure_user
        chown "$PG_USER:" "$DIR"
        if [[ -d "$DATA" && "$(stat -c %U "$DATA")" != "$PG_USER" ]]; then
            chown -R "$PG_USER:" "$DATA"
        fi
    fi
    as_pg test -w "$DIR" ||
        die "$PG_USER cannot write to $DIR (is a folder above it closed to other users?): use one under /tmp"
    as_pg mkdir -p "$SOCKET_DIR"
    as_pg chmod 0755 "$DIR" "$SOCKET_DIR"

    if [[ ! -f "$DATA/PG_VERSION" ]]; then
        if [[ -d "$DATA" ]] && [[ -n "$(ls -A "$DATA")" ]]; then
            die "$DATA is not empty but holds no cluster: remove it"
        fi
        init_cluster
    fi

    # The chosen port may be taken by someone else before the server binds it: try a few (a port
    # the caller names is tried once: a restart's clients know only that one).
    local port="" attempt attempts=3
    if [[ -n "$WANTED_PORT" ]]; then
        if ! [[ "$WANTED_PORT" =~ ^[0-9]+$ ]] || (( WANTED_PORT < 1 || WANTED_PORT > 65535 )); then
            die "not a port: $WANTED_PORT"
        fi
        attempts=1
    fi
    for (( attempt = 1; attempt <= attempts; attempt++ )); do
        port="${WANTED_PORT:-$(free_port)}"
        write_start_conf "$port"
        log "starting PostgreSQL in $DIR on 127.0.0.1:$port (log: $DIR/server.log)"
        # pg_ctl -w returns once the server accepts connections, or fails if it exits first;
        # the server detaches itself (its own session) and writes to server.log.
        if as_pg "$BIN/pg_ctl" start -D "$DATA" -l "$DIR/server.log" -w -t "$READY_TIMEOUT" >&2; then
            break
        fi
        port=""
        if is_running; then as_pg "$BIN/pg_ctl" stop -D "$DATA" -m immediate >&2 || true; fi
        log "start attempt $attempt failed; the log's end:"
        tail -n 20 "$DIR/server.log" >&2 || true
    done
    [[ -n "$port" ]] || die "PostgreSQL did not start in $DIR (see $DIR/server.log)"

    # Bounded wait for pg_isready on the TCP address the tests use.
    local deadline=$(( SECONDS + READY_TIMEOUT ))
    until is_ready "$port"; do
        (( SECONDS < deadline )) || die "PostgreSQL did not become ready on 127.0.0.1:$port in ${READY_TIMEOUT}s (see $DIR/server.log)"
        sleep 0.2
    done
    echo "$port" > "$DIR/port"

    # The database, owned by the superuser role rxnk (made by initdb -U); once per data folder.
    local psql=("$BIN/psql" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$DB_ROLE" -d postgres)
    if [[ "$("${psql[@]}" -tAc "SELECT 1 FROM pg_database WHERE datname = '$DB_NAME'")" != 1 ]]; then
        log "creating the database $DB_NAME owned by $DB_ROLE"
        "${psql[@]}" -c "CREATE DATABASE $DB_NAME OWNER $DB_ROLE" >&2
    fi

    log "ready in $(( SECONDS - started ))s: $("$BIN/postgres" --version)"
    url_for_port "$port"
}

cmd_stop() {
    set_dir "${1:-}"
    [[ -d "$DATA" ]] || { log "no cluster in $DIR: nothing to stop"; return 0; }
    BIN="$(pg_bin "$DATA")" || { log "no PostgreSQL installed: nothing to stop"; return 0; }
    if ! is_running; then
        log "not running in $DIR"
        rm -f -- "$DIR/port"
        return 0
    fi
    log "stopping PostgreSQL in $DIR"
    # Fast: the sessions are ended, no wait for clients. pg_ctl also fails if the server died
    # meanwhile (its postmaster.pid left behind): that is stopped too.
    if ! as_pg "$BIN/pg_ctl" stop -D "$DATA" -m fast -w -t 60 >&2 && is_running; then
        log "fast shutdown failed: immediate shutdown"
        as_pg "$BIN/pg_ctl" stop -D "$DATA" -m immediate -w -t 30 >&2 || ! is_running ||
            die "could not stop PostgreSQL in $DIR"
    fi
    rm -f -- "$DIR/port"
}

cmd_url() {
    set_dir "${1:-}"
    local port
    port="$(stored_port)" || die "no cluster started in $DIR (no $DIR/port)"
    BIN="$(pg_bin "$DATA")" || die "no PostgreSQL installed"
    is_ready "$port" || die "the cluster in $DIR is not running on port $port"
    url_for_port "$port"
}

DIR="" DATA="" SOCKET_DIR="" BIN="" WANTED_PORT="${3:-}"
case "${1:-}" in
    install) cmd_install ;;
    start) cmd_start "${2:-}" ;;
    stop) cmd_stop "${2:-}" ;;
    url) cmd_url "${2:-}" ;;
    -h | --help | help) usage 0 ;;
    *) usage ;;
esac
