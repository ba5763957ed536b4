#!/usr/bin/env bash
# Compares two builds of apple-id-mock in one run, alternating them so that the machine's drift
# (other processes, thermal state, the shared cores) falls on both alike: round k runs A then B
# when k is odd, B then A when it is even. Each turn starts the binary on a free port with the
# memory store and times, with wrk -t2 -c32, `GET /auth/keys`, the refresh grant (one RS256
# id_token per answer) and authorize with login_hint (a code per answer), and reads the server's
# CPU time over each run (/proc/PID/stat), then code exchange (the authorization_code grant, one
# RS256 id_token per answer) on codes minted before its timed window, as scripts/benchmark.sh does.
# It prints every turn, then per endpoint the median of each build's rate and CPU per request, B's
# as a share of A's, with the spread of A's own turns: a difference inside that spread is noise.
# With 2 cores and wrk on them, CPU per request is the steadier of the two.
#
#   scripts/benchmark-ab.sh OLD_BINARY NEW_BINARY [rounds, default 5] [seconds per run, default 5]
#
# With BARE=path (scripts/bare-server's release binary: Hummingbird and OpenSSL answering the mock's
# keys and token answers, one fresh RS256 signature per token, nothing else), each round also runs
# the bare server as a third column (C), on the answers and signing key of B's first turn: its keys
# run and its token run (with the refresh grant's body) are what A's and B's keys, refresh and code
# exchange are shares of.
#
# Build the old binary from a worktree, e.g.
#   git worktree add /tmp/old <commit> && (cd /tmp/old && swift build -c release --product apple-id-mock)
#   scripts/benchmark-ab.sh /tmp/old/.build/release/apple-id-mock .build/release/apple-id-mock
# Each build serves the scenarios/ and keys/ of the folder in A_DIR or B_DIR (default: the current
# folder), since an older build may not read a newer scenario file. Needs wrk and curl.
set -euo pipefail

[ $# -ge 2 ] || { sed -n '2,24p' "$0" >&2; exit 2; }
A=$1
B=$2
ROUNDS=${3:-5}
DURATION=${4:-5}
A_DIR=${A_DIR:-$PWD}
B_DIR=${B_DIR:-$PWD}
BARE=${BARE:-}
for tool in wrk curl; do
  command -v "$tool" >/dev/null || { echo "$tool is missing: apt-get install $tool" >&2; exit 1; }
done
for binary in "$A" "$B" ${BARE:+"$BARE"}; do [ -x "$binary" ] || { echo "$binary is not an executable" >&2; exit 1; }; done

CLIENT=com.example.web
REDIRECT=http://localhost:3000/auth/apple/callback
WORK=$(mktemp -d)
PID=
cleanup() {
  [ -n "$PID" ] && kill "$PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

# Starts `$1` on a free port with the scenarios and keys of folder `$2`; sets PID and BASE.
start() {
  "$1" serve --port 0 --log-level error --scenarios-dir "$2/scenarios" --keys-dir "$2/keys" >"$WORK/server.log" 2>&1 &
  PID=$!
  await_port "$1"
}

# Waits for the server PID, which logs to server.log, to print its port; sets BASE.
await_port() {
  local port=
  for _ in $(seq 1 3000); do
    port=$(sed -n 's/.*listening on http:\/\/[^ ]*:\([0-9]*\) .*/\1/p' "$WORK/server.log")
    [ -n "$port" ] && break
    kill -0 "$PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
    sleep 0.01
  done
  [ -n "$port" ] || { echo "$1 did not print its port" >&2; exit 1; }
  BASE=http://127.0.0.1:$port
}

# The bare server on a free port (it takes a port number: one the kernel just handed out and
# released), answering the answers saved from B; sets PID and BASE.
start_bare() {
  local port
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$BARE" "$port" "$WORK/keys-answer.json" "$WORK/token-answer.json" "$SIGNING_PEM" >"$WORK/server.log" 2>&1 &
  PID=$!
  for _ in $(seq 1 3000); do
    curl -s -o /dev/null "http://127.0.0.1:$port/health" && break
    kill -0 "$PID" 2>/dev/null || { cat "$WORK/server.log" >&2; exit 1; }
    sleep 0.01
  done
  BASE=http://127.0.0.1:$port
}

stop() {
  kill "$PID" 2>/dev/null || true
  wait "$PID" 2>/dev/null || true
  PID=
}

# The server's CPU time so far (user + system), in clock ticks (/proc/PID/stat fields 14 and 15,
# counted after the command name, which may hold spaces).
cpu_ticks() {
  sed 's/.*) //' "/proc/$PID/stat" | awk '{ print $12 + $13 }'
}
TICK=$(getconf CLK_TCK)

# One wrk run: "requests/s µs-of-server-CPU-per-request". The CPU per request is what the server
# spends on one call whatever wrk takes of the same cores, so it tells builds apart where the
# rate, on a machine whose cores wrk shares, moves with the load around it.
rate() {
  local before after
  before=$(cpu_ticks)
  wrk -t2 -c32 -d"${DURATION}s" "$@" >"$WORK/wrk.out"
  after=$(cpu_ticks)
  awk -v ticks=$((after - before)) -v hz="$TICK" '
    /Non-2xx/ { bad = $NF }
    /requests in/ { requests = $1 }
    /Requests\/sec/ { rate = $2 }
    END {
      if (bad > 0) printf "warning: %d non-2xx/3xx answers\n", bad > "/dev/stderr"
      printf "%s %.1f\n", rate, (requests > 0 ? ticks / hz * 1e6 / requests : 0)
    }' "$WORK/wrk.out"
}

# wrk's scripts for code exchange, as scripts/benchmark.sh writes them: each thread mints codes into
# a file of its own before the timed window, then sends one exchange per code.
# shellcheck source=scripts/bench-common.sh
. "$(dirname "${BASH_SOURCE[0]}")/bench-common.sh"
write_exchange_scripts "$WORK" "$CLIENT" "$REDIRECT"

# Codes for one exchange run, minted at authorize's pace for a bit longer than the run.
mint_codes() {
  rm -f "$WORK"/codes-*.txt
  wrk -t2 -c32 -d"$((DURATION + 1))s" -s "$WORK/mint-codes.lua" "$1" >/dev/null
}

# The running mock's answers for the bare server (scripts/bench-common.sh): $1 is the refresh token,
# $2 the folder whose bundled key signed it.
save_answers() {
  save_bare_answers "$1" "$2" || { echo "no bare server" >&2; exit 1; }
}
SIGNING_PEM=

# One turn of binary `$1` (named `$2`) on folder `$3`: appends "name endpoint rate" lines to the results.
turn() {
  local binary=$1 name=$2 folder=$3 secret code refresh authorize keys refreshing authorizing exchanging
  start "$binary" "$folder"
  secret=$("$binary" client-secret --client-id "$CLIENT" --scenarios-dir "$folder/scenarios" --keys-dir "$folder/keys")
  export BENCH_SECRET=$secret
  authorize="$BASE/auth/authorize?client_id=$CLIENT&redirect_uri=$REDIRECT&response_type=code&login_hint=maria"
  code=$(curl -s -o /dev/null -w '%{redirect_url}' "$authorize" | sed -n 's/.*code=\([^&]*\).*/\1/p')
  refresh=$(curl -s "$BASE/auth/token" -d client_id="$CLIENT" -d client_secret="$secret" \
    -d grant_type=authorization_code -d code="$code" -d redirect_uri="$REDIRECT" \
    | sed -n 's/.*"refresh_token":"\([^"]*\)".*/\1/p')
  [ -n "$refresh" ] || { echo "$name: no refresh token from the code exchange" >&2; exit 1; }
  cat >"$WORK/refresh.lua" <<LUA
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.body = "grant_type=refresh_token&client_id=$CLIENT&client_secret=$secret&refresh_token=$refresh"
LUA
  [ -n "$BARE" ] && [ -z "$SIGNING_PEM" ] && [ "$name" = B ] && save_answers "$refresh" "$folder"
  keys=$(rate "$BASE/auth/keys")
  refreshing=$(rate -s "$WORK/refresh.lua" "$BASE/auth/token")
  authorizing=$(rate "$authorize")
  mint_codes "$authorize"
  exchanging=$(rate -s "$WORK/exchange.lua" "$BASE/auth/token")
  stop
  printf '  %-3s keys %18s   refresh %18s   authorize %18s   exchange %18s (req/s, server CPU µs/req)\n' "$name" \
    "$keys" "$refreshing" "$authorizing" "$exchanging"
  printf '%s keys %s\n%s refresh %s\n%s authorize %s\n%s exchange %s\n' "$name" "$keys" "$name" "$refreshing" \
    "$name" "$authorizing" "$name" "$exchanging" >>"$WORK/results"
}

# One turn of the bare server: keys, and the token endpoint with the refresh grant's body (it reads
# no parameter), filed as C's keys, refresh and exchange.
bare_turn() {
  local keys token
  start_bare
  keys=$(rate "$BASE/auth/keys")
  token=$(rate -s "$WORK/refresh.lua" "$BASE/auth/token")
  stop
  printf '  %-3s keys %18s   token %18s (req/s, server CPU µs/req)\n' C "$keys" "$token"
  printf 'C keys %s\nC refresh %s\nC exchange %s\n' "$keys" "$token" "$token" >>"$WORK/results"
}

echo "A = $A"
echo "B = $B"
[ -z "$BARE" ] || echo "C = $BARE (the bare server)"
echo "$ROUNDS rounds of ${DURATION}s runs, alternating (ABBA${BARE:+, the bare server after B in odd rounds and first in even ones})"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  if ((round % 2)); then
    turn "$A" A "$A_DIR"; turn "$B" B "$B_DIR"; [ -z "$BARE" ] || bare_turn
  else
    [ -z "$BARE" ] || bare_turn; turn "$B" B "$B_DIR"; turn "$A" A "$A_DIR"
  fi
done

echo
echo "medians (B as a share of A; A's own spread, min..max, for the noise; with BARE, A and B as shares of the bare server C)"
for endpoint in keys refresh authorize exchange; do
  for column in 3 4; do
  awk -v e="$endpoint" -v c="$column" '
    function median(v, n,   i, j, t) {
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
      return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
    }
    $2 == e && $1 == "A" { a[++na] = $c; if (na == 1 || $c < amin) amin = $c; if ($c > amax) amax = $c }
    $2 == e && $1 == "B" { b[++nb] = $c; if (nb == 1 || $c < bmin) bmin = $c; if ($c > bmax) bmax = $c }
    $2 == e && $1 == "C" { x[++nc] = $c }
    END {
      ma = median(a, na); mb = median(b, nb)
      unit = c == 3 ? "req/s" : "CPU µs/req"
      printf "  %-10s %-10s A %10.1f   B %10.1f   B/A %5.1f%%   A spread %.1f..%.1f (%.1f%% of its median), B %.1f..%.1f\n",
        e, unit, ma, mb, 100 * mb / ma, amin, amax, 100 * (amax - amin) / ma, bmin, bmax
      if (nc > 0) {
        mc = median(x, nc)
        # As shares of the bare server: rate over its rate, its CPU per request over theirs.
        if (c == 3) printf "  %-10s %-10s C %10.1f   A/C %5.1f%%   B/C %5.1f%%\n", e, unit, mc, 100 * ma / mc, 100 * mb / mc
        else printf "  %-10s %-10s C %10.1f   C/A %5.1f%%   C/B %5.1f%% (the bare server'"'"'s CPU per request as a share of the build'"'"'s)\n", e, unit, mc, 100 * mc / ma, 100 * mc / mb
      }
    }' "$WORK/results"
  done
done
