#!/usr/bin/env bash
# Builds the image from the Dockerfile, as it is, and proves it on running containers (podman):
#   - /health answers within 2 s of `podman run`, and the HEALTHCHECK turns healthy;
#   - it runs as uid 10001, also with --read-only (the state volume at /data writable);
#   - the repository's Python relying party (Authlib) signs in through the published port:
#     authorize, code exchange, refresh, revoke, tokens verified against /auth/keys;
#   - with --state sqlite:/data/state.db on a named volume, a refresh token issued before
#     `podman restart` (and before `podman kill -s KILL` then `start`) still works after it;
#   - `podman stop` ends it in under 2 s; the log has the listening line and no error;
#   - `apple-id-mock client-secret` and `apple-id-mock validate` work through `podman exec`.
# Ends with one summary line: the image's size and the time to the first answer.
#
#   scripts/container-test.sh            build apple-id-mock:local (stand-in bases made first), then test
#   scripts/container-test.sh --no-build test the apple-id-mock:local already built
#
# Docker Hub is out of reach here: scripts/container/stand-in-bases.sh makes the images the
# Dockerfile names from Debian bookworm and this machine's Swift toolchain, and the build reads
# Swift packages from this machine's mirror, mounted with `podman build --volume`.
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${APPLE_ID_MOCK_IMAGE:-apple-id-mock:local}
MIRROR=${APPLE_ID_MOCK_PACKAGE_MIRROR:-/opt/swift-packages}
BUILD=1
for arg in "$@"; do
    case "$arg" in
        --no-build) BUILD="" ;;
        *) echo "usage: $0 [--no-build]" >&2; exit 2 ;;
    esac
done

RUN_ID="aimct-$$"
# Podman's own complaints (it has no systemd here to time health checks) go to this file instead
# of the output; it is shown when something fails.
PODMAN_LOG="/tmp/$RUN_ID-podman.log"
PASSED=0 FAILED=0
CONTAINERS=() VOLUMES=()

say() { printf '[container-test] %s\n' "$*"; }
pass() { PASSED=$((PASSED + 1)); printf 'PASS %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL %s\n' "$*"; }
check() { # check "what" command...
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}

cleanup() {
    local name
    for name in "${CONTAINERS[@]}"; do podman rm -f -t 0 "$name" >/dev/null 2>&1 || true; done
    for name in "${VOLUMES[@]}"; do podman volume rm -f "$name" >/dev/null 2>&1 || true; done
    if [ "$FAILED" != 0 ] && [ -s "$PODMAN_LOG" ]; then
        echo "--- podman's messages"
        grep -v 'unable to get systemd connection' "$PODMAN_LOG" || true
    fi
    rm -f "$PODMAN_LOG"
}
trap cleanup EXIT

now_ms() { date +%s%3N; }

# The published host port of container $1's 8080.
host_port() { podman port "$1" 8080/tcp | head -n 1 | sed 's/.*://'; }

# Waits until GET /health on port $1 answers 200, for at most $2 seconds.
wait_health() {
    local port=$1 limit=$2 start
    start=$(now_ms)
    while [ $(($(now_ms) - start)) -lt $((limit * 1000)) ]; do
        if [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "http://127.0.0.1:$port/health")" = 200 ]; then
            return 0
        fi
        sleep 0.02
    done
    return 1
}

# Starts a detached container named $1 (further podman run arguments follow, then the command).
start_container() {
    local name=$1
    shift
    CONTAINERS+=("$name")
    podman run -d --name "$name" -p 127.0.0.1::8080 "$@" >/dev/null 2>>"$PODMAN_LOG"
}

# A refresh token for sam at the server on port $1: authorize with login_hint (the code comes
# back in the redirect), then the code exchange with a client_secret minted in container $2.
refresh_token_for_sam() {
    local port=$1 container=$2 secret location code
    secret=$(podman exec "$container" apple-id-mock client-secret --client-id com.example.web)
    location=$(curl -s -o /dev/null -w '%{redirect_url}' "http://127.0.0.1:$port/auth/authorize?client_id=com.example.web&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Fapple%2Fcallback&response_type=code&login_hint=sam")
    code=$(sed -n 's/.*[?&]code=\([^&]*\).*/\1/p' <<<"$location")
    curl -s "http://127.0.0.1:$port/auth/token" -d grant_type=authorization_code -d "code=$code" \
        -d client_id=com.example.web --data-urlencode "client_secret=$secret" \
        -d redirect_uri=http://localhost:3000/auth/apple/callback \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["refresh_token"])'
}

# 200 when the refresh token $2 still works at the server on port $1 (container $3 mints the secret).
refresh_status() {
    local port=$1 token=$2 container=$3 secret
    secret=$(podman exec "$container" apple-id-mock client-secret --client-id com.example.web)
    curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/auth/token" -d grant_type=refresh_token \
        --data-urlencode "refresh_token=$token" -d client_id=com.example.web --data-urlencode "client_secret=$secret"
}

# --- the image ------------------------------------------------------------------------------------
if [ -n "$BUILD" ]; then
    scripts/container/stand-in-bases.sh
    say "podman build -t $IMAGE . (the Swift packages from $MIRROR)"
    build_start=$(now_ms)
    podman build --format docker --pull=never --layers --volume "$MIRROR:$MIRROR:ro" -t "$IMAGE" . \
        >"/tmp/$RUN_ID-build.log" 2>&1 || { tail -n 60 "/tmp/$RUN_ID-build.log"; exit 1; }
    say "built in $((($(now_ms) - build_start) / 1000)) s"
    rm -f "/tmp/$RUN_ID-build.log"
fi
podman image exists "$IMAGE" || { echo "no image $IMAGE: run without --no-build" >&2; exit 1; }
IMAGE_BYTES=$(podman image inspect "$IMAGE" --format '{{.Size}}')

# --- start-up, health, user -----------------------------------------------------------------------
MAIN="$RUN_ID-main"
t0=$(now_ms)
start_container "$MAIN" "$IMAGE"
PORT=$(host_port "$MAIN")
if wait_health "$PORT" 10; then
    FIRST_ANSWER_MS=$(($(now_ms) - t0))
    check "/health answers within 2 s of podman run (${FIRST_ANSWER_MS} ms)" [ "$FIRST_ANSWER_MS" -le 2000 ]
else
    FIRST_ANSWER_MS=""
    fail "/health answers (nothing within 10 s)"
    podman logs "$MAIN" | tail -n 20
fi
check "HEALTHCHECK is declared in the image (kept by --format docker)" \
    grep -q '/health' <<<"$(podman image inspect "$IMAGE" --format '{{json .Config.Healthcheck}}')"
# Podman runs health checks from systemd timers, which this machine has not: run it as they would.
podman healthcheck run "$MAIN" >/dev/null 2>&1 || true
check "HEALTHCHECK turns healthy" \
    [ "$(podman inspect "$MAIN" --format '{{.State.Health.Status}}' 2>/dev/null || podman inspect "$MAIN" --format '{{.State.Healthcheck.Status}}')" = healthy ]
check "the server runs as uid 10001" \
    [ "$(podman exec "$MAIN" sh -c "awk '/^Uid:/ {print \$2}' /proc/1/status")" = 10001 ]
IDLE_RSS_KB=$(podman exec "$MAIN" sh -c "awk '/^VmRSS:/ {print \$2}' /proc/1/status")

# --- a real relying party through the published port --------------------------------------------
if python3 -c 'import authlib, requests' 2>/dev/null; then
    if python3 Tests/relying-party/relying_party.py "http://127.0.0.1:$PORT" >"/tmp/$RUN_ID-rp.log" 2>&1; then
        pass "the Python relying party signs in, exchanges, refreshes and revokes ($(tail -n 1 "/tmp/$RUN_ID-rp.log"))"
    else
        fail "the Python relying party"
        cat "/tmp/$RUN_ID-rp.log"
    fi
    rm -f "/tmp/$RUN_ID-rp.log"
else
    fail "the Python relying party (python3 -m pip install -r Tests/relying-party/requirements.txt)"
fi

# --- the CLI through podman exec ---------------------------------------------------------------------
secret=$(podman exec "$MAIN" apple-id-mock client-secret --client-id com.example.web || true)
check "apple-id-mock client-secret through podman exec" [ "$(tr -cd . <<<"$secret")" = .. ]
validated=$(podman exec "$MAIN" apple-id-mock validate 2>&1 || echo "exit $?")
check "apple-id-mock validate through podman exec" grep -q 'default' <<<"$validated"
refused=$(podman exec "$MAIN" apple-id-mock client-secret --client-id com.unknown 2>&1 && echo "exit 0" || echo "exit $?")
check "client-secret for an unknown client is refused with a reason" grep -q 'exit 1' <<<"$refused"

# --- stop -------------------------------------------------------------------------------------------------
t0=$(now_ms)
podman stop -t 10 "$MAIN" >/dev/null 2>>"$PODMAN_LOG"
STOP_MS=$(($(now_ms) - t0))
check "podman stop ends it in under 2 s (${STOP_MS} ms)" [ "$STOP_MS" -lt 2000 ]
check "it exited on SIGTERM by itself (exit code 0)" [ "$(podman inspect "$MAIN" --format '{{.State.ExitCode}}')" = 0 ]
LOG=$(podman logs "$MAIN" 2>&1)
check "the log has the listening line" grep -q 'apple-id-mock listening on http://0.0.0.0:8080' <<<"$LOG"
if grep -Eiq '(^| )(error|critical|fatal)( |:)|Fatal error|panic' <<<"$LOG"; then
    fail "the log has no error"
    grep -Ei '(^| )(error|critical|fatal)( |:)|Fatal error|panic' <<<"$LOG" | head -n 5
else
    pass "the log has no error"
fi

# --- state on a named volume, read-only root --------------------------------------------------------
VOLUME="$RUN_ID-state"
VOLUMES+=("$VOLUME")
podman volume create "$VOLUME" >/dev/null
STATEFUL="$RUN_ID-state"
start_container "$STATEFUL" --read-only -v "$VOLUME:/data" "$IMAGE" serve --state sqlite:/data/state.db
SPORT=$(host_port "$STATEFUL")
check "with --read-only and --state sqlite:/data/state.db it starts" wait_health "$SPORT" 10
check "with --read-only it runs as uid 10001" \
    [ "$(podman exec "$STATEFUL" sh -c "awk '/^Uid:/ {print \$2}' /proc/1/status")" = 10001 ]
check "with --read-only nothing outside /data is writable" \
    podman exec "$STATEFUL" sh -c '! touch /app/probe 2>/dev/null && touch /data/probe && rm /data/probe'
TOKEN=$(refresh_token_for_sam "$SPORT" "$STATEFUL" || true)
check "a refresh token is issued" [ -n "$TOKEN" ]
check "it refreshes before the restart" [ "$(refresh_status "$SPORT" "$TOKEN" "$STATEFUL")" = 200 ]

podman restart -t 10 "$STATEFUL" >/dev/null 2>>"$PODMAN_LOG"
SPORT=$(host_port "$STATEFUL")
wait_health "$SPORT" 10 || true
check "after podman restart the refresh token still works" [ "$(refresh_status "$SPORT" "$TOKEN" "$STATEFUL")" = 200 ]

TOKEN2=$(refresh_token_for_sam "$SPORT" "$STATEFUL" || true)
podman kill -s KILL "$STATEFUL" >/dev/null 2>>"$PODMAN_LOG"
podman wait "$STATEFUL" >/dev/null 2>&1 || true
podman start "$STATEFUL" >/dev/null 2>>"$PODMAN_LOG"
SPORT=$(host_port "$STATEFUL")
wait_health "$SPORT" 10 || true
check "after podman kill -s KILL and start, a token issued just before still works" \
    [ "$(refresh_status "$SPORT" "$TOKEN2" "$STATEFUL")" = 200 ]
check "and so does the first one" [ "$(refresh_status "$SPORT" "$TOKEN" "$STATEFUL")" = 200 ]

printf '%s passed, %s failed\n' "$PASSED" "$FAILED"
printf 'container-test: image %s %s MB, first answer %s ms after podman run, idle RSS %s MiB, stop %s ms\n' \
    "$IMAGE" "$((IMAGE_BYTES / 1000000))" "${FIRST_ANSWER_MS:-n/a}" "$((${IDLE_RSS_KB:-0} / 1024))" "$STOP_MS"
[ "$FAILED" = 0 ]
