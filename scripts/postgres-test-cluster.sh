#!/usr/bin/env bash
# A private, throwaway PostgreSQL cluster for the test suite's PostgreSQL tests
# (APPLE_ID_MOCK_TEST_POSTGRES_URL), as .ci/run uses it.
#
#   scripts/postgres-test-cluster.sh start DIR   # prints postgres://mock:mock@127.0.0.1:PORT/applemock
#   scripts/postgres-test-cluster.sh stop DIR    # silent and harmless when nothing runs there
#   scripts/postgres-test-cluster.sh resume DIR  # starts a stopped cluster again on its port
#                                                # (tests of a database that goes away and comes back)
#
# `start` creates the cluster in DIR (empty or missing; a `mktemp -d` folder is fine) and starts it
# on a free TCP port of 127.0.0.1, with password (SCRAM) authentication over TCP, so the printed
# URL's password is the one that counts. The Unix socket is in DIR too: nothing is shared with a
# system cluster. The only line on stdout is the URL; progress goes to stderr, the server's log
# to DIR/postgres.log. Settings suit tests, not data: fsync is off.
#
# Needs PostgreSQL's server binaries: the newest /usr/lib/postgresql/*/bin (Debian's
# `apt-get install postgresql`), else PG_BIN, else `pg_config --bindir`. As root, the server runs
# as the `postgres` user (PostgreSQL refuses root), which then owns DIR.
set -euo pipefail

USER_NAME=mock
PASSWORD=mock
DATABASE=applemock

say() { printf 'postgres-test-cluster: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }
usage() { die "usage: $0 start DIR | stop DIR | resume DIR"; }

[ $# -eq 2 ] || usage
COMMAND=$1
DIR=$2

find_bin() {
    if [ -n "${PG_BIN:-}" ]; then
        printf '%s\n' "$PG_BIN"
        return
    fi
    local newest
    newest=$(find /usr/lib/postgresql -mindepth 3 -maxdepth 3 -path '*/bin/initdb' 2>/dev/null \
        | sort -V | tail -n 1)
    if [ -n "$newest" ]; then
        dirname "$newest"
    elif command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then
        pg_config --bindir
    else
        return 1
    fi
}

# Runs a PostgreSQL program as the owner of the cluster: `postgres` when we are root.
as_owner() {
    if [ "$(id -u)" -eq 0 ]; then
        runuser -u postgres -- "$@"
    else
        "$@"
    fi
}

# True when something accepts connections on 127.0.0.1:$1.
port_in_use() {
    # shellcheck disable=SC2016 # $1 is the inner shell's argument
    timeout 1 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$1"' _ "$1" 2>/dev/null
}

start() {
    local bin
    bin=$(find_bin) || die "no PostgreSQL server found (apt-get install postgresql, or set PG_BIN)"
    [ -x "$bin/initdb" ] && [ -x "$bin/pg_ctl" ] || die "no initdb/pg_ctl in $bin"

    mkdir -p "$DIR"
    DIR=$(cd "$DIR" && pwd -P)
    local data=$DIR/data log=$DIR/postgres.log
    [ ! -e "$data" ] || die "$data exists already: stop it and use a fresh folder"

    if [ "$(id -u)" -eq 0 ]; then
        id postgres >/dev/null 2>&1 || die "running as root, but there is no postgres user to run the server"
        chown postgres: "$DIR"
        chmod 0700 "$DIR"
        runuser -u postgres -- test -w "$DIR" \
            || die "the postgres user cannot reach $DIR (a parent folder is closed to it)"
    fi
    # initdb and the server want a working directory they can read: DIR itself.
    cd "$DIR"

    # The bootstrap superuser is `mock` itself: the tests may create and drop what they like.
    printf '%s\n' "$PASSWORD" >"$DIR/pwfile"
    [ "$(id -u)" -ne 0 ] || chown postgres: "$DIR/pwfile"
    chmod 0600 "$DIR/pwfile"
    say "initdb ($bin) in $data"
    if ! as_owner "$bin/initdb" --pgdata="$data" --username="$USER_NAME" --pwfile="$DIR/pwfile" \
        --auth-local=trust --auth-host=scram-sha-256 --encoding=UTF8 --locale=C \
        --no-sync >"$DIR/initdb.log" 2>&1; then
        cat "$DIR/initdb.log" >&2
        die "initdb failed"
    fi
    rm -f "$DIR/pwfile"

    # The socket folder, quoted for postgresql.conf (a quote inside is doubled).
    local socket_dir=${DIR//"'"/"''"}
    cat >>"$data/postgresql.conf" <<CONF

# --- postgres-test-cluster.sh: a throwaway cluster for tests ---
listen_addresses = '127.0.0.1'
unix_socket_directories = '$socket_dir'
max_connections = 200
password_encryption = 'scram-sha-256'
fsync = off
synchronous_commit = off
full_page_writes = off
logging_collector = off
CONF

    # A free port: skip the ones that answer, and try another if the server still cannot bind
    # (another process may take the port between the check and the start).
    local attempt port=
    for attempt in 1 2 3 4 5 6 7 8 9 10; do
        port=$((20000 + RANDOM % 30000))
        if port_in_use "$port"; then
            continue
        fi
        say "starting on 127.0.0.1:$port (log: $log)"
        if as_owner "$bin/pg_ctl" --pgdata="$data" --log="$log" --wait --timeout=60 \
            --options="-p $port" start >&2; then
            break
        fi
        port=
        say "start failed (attempt $attempt); the log says:"
        tail -n 5 "$log" >&2 || true
    done
    [ -n "$port" ] || die "could not start PostgreSQL; see $log"
    echo "$port" >"$DIR/port"

    local url="postgres://$USER_NAME:$PASSWORD@127.0.0.1:$port/$DATABASE"
    # Created over TCP with the password: this also proves the URL's credentials work.
    PGPASSWORD=$PASSWORD "$bin/psql" -X -q -v ON_ERROR_STOP=1 \
        "postgres://$USER_NAME@127.0.0.1:$port/postgres" -c "CREATE DATABASE $DATABASE" >&2 \
        || die "could not create the database $DATABASE"
    say "ready: $url"
    printf '%s\n' "$url"
}

stop() {
    [ -f "$DIR/data/postmaster.pid" ] || return 0
    DIR=$(cd "$DIR" && pwd -P)
    local bin
    bin=$(find_bin) || return 0
    (cd "$DIR" && as_owner "$bin/pg_ctl" --pgdata="$DIR/data" --mode=immediate --wait stop) \
        >>"$DIR/postgres.log" 2>&1 || true
}

resume() {
    [ -f "$DIR/port" ] || die "no cluster in $DIR (start one first)"
    DIR=$(cd "$DIR" && pwd -P)
    local bin
    bin=$(find_bin) || die "no PostgreSQL server binaries found"
    (cd "$DIR" && as_owner "$bin/pg_ctl" --pgdata="$DIR/data" --log="$DIR/postgres.log" --wait --timeout=60 \
        --options="-p $(cat "$DIR/port")" start) >&2 || die "could not resume PostgreSQL; see $DIR/postgres.log"
}

case $COMMAND in
    start) start ;;
    stop) stop ;;
    resume) resume ;;
    *) usage ;;
esac
