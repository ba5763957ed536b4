#!/usr/bin/env bash
# Shows what waiting reads cost while nothing happens: the server's CPU over SECONDS with no reader,
# then with WAITERS (default 200) reads waiting on it at once (GET /__admin/journal with
# waitSeconds and a minCount no call meets), each a curl of its own. A server that polled per waiter
# would burn CPU in proportion; this one is woken only by the store's changes.
# Usage: scripts/idle-waiters.sh BASE_URL SERVER_PID [SECONDS, default 5] [WAITERS, default 200]
# (scripts/benchmark.sh runs it against the release build; any running server will do.)
set -euo pipefail
export LC_ALL=C
BASE=$1
PID=$2
SECONDS_MEASURED=${3:-5}
WAITERS=${4:-200}
[ -r "/proc/$PID/stat" ] || { echo "no process $PID" >&2; exit 1; }
command -v curl >/dev/null || { echo "curl is missing: apt-get install curl" >&2; exit 1; }
HEADER=()
[ -z "${APPLE_ID_MOCK_ADMIN_TOKEN:-}" ] || HEADER=(-H "Authorization: Bearer $APPLE_ID_MOCK_ADMIN_TOKEN")

cpu_seconds() { awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15) / hz }' "/proc/$1/stat"; }
# The server's CPU as a share of one core over SECONDS_MEASURED.
measure() {
  local before after
  before=$(cpu_seconds "$PID")
  sleep "$SECONDS_MEASURED"
  after=$(cpu_seconds "$PID")
  awk -v a="$after" -v b="$before" -v s="$SECONDS_MEASURED" 'BEGIN { printf "%.1f%%", (a - b) / s * 100 }'
}

WORK=$(mktemp -d)
CURLS=()
cleanup() {
  [ "${#CURLS[@]}" -eq 0 ] || kill "${CURLS[@]}" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT

IDLE=$(measure)
# Long enough to outlast the measurement; no call meets minCount (a revoke by a client that does not exist).
WAIT=$((SECONDS_MEASURED + 10))
for i in $(seq 1 "$WAITERS"); do
  curl -s "${HEADER[@]}" -o "$WORK/$i.json" \
    "$BASE/__admin/journal?clientId=idle-waiters.invalid&minCount=1&waitSeconds=$WAIT" &
  CURLS+=($!)
done
# Every read admitted and waiting before the measurement starts.
sleep 2
WAITING=$(measure)
kill "${CURLS[@]}" 2>/dev/null || true
wait "${CURLS[@]}" 2>/dev/null || true
CURLS=()
REFUSED=$(cat "$WORK"/*.json 2>/dev/null | grep -c limit_reached || true)
NOTE=
[ "${REFUSED:-0}" -eq 0 ] || NOTE=" ($REFUSED refused: limit_reached)"
echo "  idle CPU of the server over ${SECONDS_MEASURED}s: $IDLE of one core with no reader, $WAITING with $WAITERS reads waiting$NOTE"
