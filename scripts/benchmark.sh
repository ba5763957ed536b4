#!/usr/bin/env bash
# Measures apple-id-mock on this machine and prints the numbers: start-up time, throughput and
# latency of the hot endpoints (wrk, loopback only), and the server's peak memory.
# Usage: scripts/benchmark.sh [seconds per endpoint, default 5]. Needs wrk (apt-get install wrk).
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${1:-5}
PORT=${BENCH_PORT:-18080}
BASE="http://127.0.0.1:$PORT"
command -v wrk >/dev/null || { echo "wrk is missing: apt-get install wrk" >&2; exit 1; }

swift build -c release --product apple-id-mock >/dev/null 2>&1
BIN=$(swift build -c release --show-bin-path 2>/dev/null)/apple-id-mock
WORK=$(mktemp -d)
trap 'kill "$PID" 2>/dev/null || true; rm -rf "$WORK"' EXIT

start=$(date +%s%N)
"$BIN" serve --port "$PORT" --log-level error >"$WORK/server.log" 2>&1 &
PID=$!
until curl -sf "$BASE/health" >/dev/null; do sleep 0.005; done
ready=$(date +%s%N)
echo "start-up to first answer: $(((ready - start) / 1000000)) ms"

# A refresh token and a client secret for the token benchmark (the refresh grant can be repeated).
SECRET=$("$BIN" client-secret --client-id com.example.web)
CODE=$(curl -s -o /dev/null -w '%{redirect_url}' "$BASE/auth/authorize?client_id=com.example.web&redirect_uri=http://localhost:3000/auth/apple/callback&response_type=code&login_hint=maria" | sed -n 's/.*code=\([^&]*\).*/\1/p')
REFRESH=$(curl -s "$BASE/auth/token" -d client_id=com.example.web -d client_secret="$SECRET" -d grant_type=authorization_code \
  -d code="$CODE" -d redirect_uri=http://localhost:3000/auth/apple/callback | sed -n 's/.*"refresh_token":"\([^"]*\)".*/\1/p')
cat >"$WORK/refresh.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "grant_type=refresh_token&client_id=com.example.web&client_secret=$SECRET&refresh_token=$REFRESH"
LUA

run() {
  local name=$1; shift
  local out
  out=$(wrk -t2 -c32 -d"${DURATION}s" --latency "$@")
  printf '%-58s %10s req/s   p50 %8s   p99 %8s   non-2xx/3xx %s\n' "$name" \
    "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" "$(awk '$1 == "50%" {print $2}' <<<"$out")" \
    "$(awk '$1 == "99%" {print $2}' <<<"$out")" "$(awk '/Non-2xx/ {print $5}' <<<"$out" | grep . || echo 0)"
}

echo "wrk -t2 -c32 -d${DURATION}s on 127.0.0.1 (server and load share this machine's $(nproc) cores):"
run "GET /auth/keys" "$BASE/auth/keys"
run "GET /.well-known/openid-configuration" "$BASE/.well-known/openid-configuration"
run "GET /auth/authorize (login_hint, query: mints a code)" \
  "$BASE/auth/authorize?client_id=com.example.web&redirect_uri=http://localhost:3000/auth/apple/callback&response_type=code&login_hint=maria"
run "POST /auth/token refresh (ES256 verify + RS256 sign)" -s "$WORK/refresh.lua" "$BASE/auth/token"
echo "server peak memory (VmHWM): $(awk '/VmHWM/ {printf "%.1f MiB", $2 / 1024}' "/proc/$PID/status")"
