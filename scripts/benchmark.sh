#!/usr/bin/env bash
# Measures apple-id-mock on this machine and prints the numbers: start-up time, throughput and
# latency of the hot endpoints (wrk, loopback only), the server's peak memory, and the token and
# authorize rates for each state store (memory, SQLite, and PostgreSQL when it is installed: a
# throwaway cluster is started for the run, or BENCH_POSTGRES_URL names one).
# Usage: scripts/benchmark.sh [seconds per endpoint, default 5]. Needs wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${1:-5}
PORT=${BENCH_PORT:-18080}
BASE="http://127.0.0.1:$PORT"
REDIRECT=http://localhost:3000/auth/apple/callback
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }

swift build -c release --product apple-id-mock >/dev/null 2>&1
BIN=$(swift build -c release --show-bin-path 2>/dev/null)/apple-id-mock
WORK=$(mktemp -d)
PID=
PG_DIR=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
  [ -n "$PG_DIR" ] && scripts/postgres-test-cluster.sh stop "$PG_DIR" || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Starts the server with `--state $1` (in this shell, so that PID stays set) and prints the
# milliseconds until its first answer.
start_server() {
  local start ready
  if curl -sf "$BASE/health" >/dev/null; then
    echo "port $PORT is already in use" >&2
    exit 1
  fi
  start=$(date +%s%N)
  "$BIN" serve --port "$PORT" --log-level error --state "$1" >"$WORK/server.log" 2>&1 &
  PID=$!
  until curl -sf "$BASE/health" >/dev/null; do
    kill -0 "$PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
    sleep 0.005
  done
  ready=$(date +%s%N)
  echo "start-up to first answer: $(((ready - start) / 1000000)) ms"
}

stop_server() {
  echo "server peak memory (VmHWM): $(awk '/VmHWM/ {printf "%.1f MiB", $2 / 1024}' "/proc/$PID/status")"
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=
}

# A refresh token and a client secret for the token benchmark (the refresh grant can be repeated).
prepare_refresh() {
  local code refresh
  SECRET=$("$BIN" client-secret --client-id com.example.web)
  code=$(curl -s -o /dev/null -w '%{redirect_url}' "$BASE/auth/authorize?client_id=com.example.web&redirect_uri=$REDIRECT&response_type=code&login_hint=maria" | sed -n 's/.*code=\([^&]*\).*/\1/p')
  refresh=$(curl -s "$BASE/auth/token" -d client_id=com.example.web -d client_secret="$SECRET" -d grant_type=authorization_code \
    -d code="$code" -d redirect_uri="$REDIRECT" | sed -n 's/.*"refresh_token":"\([^"]*\)".*/\1/p')
  cat >"$WORK/refresh.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "grant_type=refresh_token&client_id=com.example.web&client_secret=$SECRET&refresh_token=$refresh"
LUA
}

run() {
  local name=$1; shift
  local out
  out=$(wrk -t2 -c32 -d"${DURATION}s" --latency "$@")
  printf '%-62s %10s req/s   p50 %8s   p99 %8s   non-2xx/3xx %s\n' "$name" \
    "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" "$(awk '$1 == "50%" {print $2}' <<<"$out")" \
    "$(awk '$1 == "99%" {print $2}' <<<"$out")" "$(awk '/Non-2xx/ {print $5}' <<<"$out" | grep . || echo 0)"
}

AUTHORIZE="$BASE/auth/authorize?client_id=com.example.web&redirect_uri=$REDIRECT&response_type=code&login_hint=maria"

echo "wrk -t2 -c32 -d${DURATION}s on 127.0.0.1 (server and load share this machine's $(nproc) cores)"
echo
echo "== state: memory"
start_server memory
prepare_refresh
run "GET /auth/keys" "$BASE/auth/keys"
run "GET /.well-known/openid-configuration" "$BASE/.well-known/openid-configuration"
run "GET /auth/authorize (login_hint, query: mints a code)" "$AUTHORIZE"
run "POST /auth/token refresh (ES256 verify + RS256 sign)" -s "$WORK/refresh.lua" "$BASE/auth/token"
stop_server

echo
echo "== state: sqlite:$WORK/state.db"
start_server "sqlite:$WORK/state.db"
prepare_refresh
run "GET /auth/authorize (login_hint, query: mints a code)" "$AUTHORIZE"
run "POST /auth/token refresh (ES256 verify + RS256 sign)" -s "$WORK/refresh.lua" "$BASE/auth/token"
stop_server

PG_URL=${BENCH_POSTGRES_URL:-}
if [ -z "$PG_URL" ] && compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null; then
  PG_DIR=$(mktemp -d)
  PG_URL=$(scripts/postgres-test-cluster.sh start "$PG_DIR")
fi
echo
if [ -n "$PG_URL" ]; then
  echo "== state: postgres (one replica; PostgreSQL on the same cores)"
  start_server "$PG_URL"
  prepare_refresh
  run "GET /auth/authorize (login_hint, query: mints a code)" "$AUTHORIZE"
  run "POST /auth/token refresh (ES256 verify + RS256 sign)" -s "$WORK/refresh.lua" "$BASE/auth/token"
  stop_server
else
  echo "== state: postgres skipped (no PostgreSQL installed and BENCH_POSTGRES_URL unset)"
fi
