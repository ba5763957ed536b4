#!/usr/bin/env bash
# Brings the compose files up for real, with Debian's docker-compose talking to podman's API
# socket, and checks what each promises:
#   - docker-compose.yml: the mock on http://localhost:8080; a refresh token issued before
#     `down` (without -v) still refreshes after `up`, since the state lives on the volume;
#   - docker-compose.apple-alias.yml: the sample backend keeps Apple's URLs and signs in through
#     the network alias appleid.apple.com and the test CA (its own checks must all pass);
#   - docker-compose.replicas.yml: two replicas on PostgreSQL behind nginx; a code issued through
#     the balancer is redeemed and its refresh token refreshed and revoked across both replicas.
# Needs the image apple-id-mock:local (scripts/container-test.sh builds it); the other images the
# files name are stood in for by scripts/container/stand-in-bases.sh --compose. Port 8080 must be
# free. Ends with `N passed, M failed`.
#
#   scripts/compose-test.sh [default|alias|replicas ...]   (all three when none is named)
set -euo pipefail
cd "$(dirname "$0")/.."

IMAGE=${APPLE_ID_MOCK_IMAGE:-apple-id-mock:local}
WHICH=("$@")
[ ${#WHICH[@]} -gt 0 ] || WHICH=(default alias replicas)
PROJECT="aimcompose$$"
PASSED=0 FAILED=0
SOCKET_DIR="" SERVICE_PID="" HEALTH_PID="" ACTIVE_FILE=""

say() { printf '[compose-test] %s\n' "$*"; }
pass() { PASSED=$((PASSED + 1)); printf 'PASS %s\n' "$*"; }
fail() { FAILED=$((FAILED + 1)); printf 'FAIL %s\n' "$*"; }
check() {
    local what=$1
    shift
    if "$@"; then pass "$what"; else fail "$what"; fi
}
compose() { docker-compose -p "$PROJECT" -f "$ACTIVE_FILE" "$@"; }

cleanup() {
    if [ -n "$ACTIVE_FILE" ]; then compose down -v -t 2 >/dev/null 2>&1 || true; fi
    if [ -n "$HEALTH_PID" ]; then kill "$HEALTH_PID" 2>/dev/null || true; fi
    if [ -n "$SERVICE_PID" ]; then kill "$SERVICE_PID" 2>/dev/null || true; wait "$SERVICE_PID" 2>/dev/null || true; fi
    if [ -n "$SOCKET_DIR" ]; then rm -rf "$SOCKET_DIR"; fi
}
trap cleanup EXIT

podman image exists "$IMAGE" || { echo "no image $IMAGE: run scripts/container-test.sh first" >&2; exit 1; }
command -v docker-compose >/dev/null || { echo "docker-compose not found (apt-get install docker-compose)" >&2; exit 1; }
scripts/container/stand-in-bases.sh --compose
if [ "$IMAGE" != apple-id-mock:local ]; then podman tag "$IMAGE" apple-id-mock:local; fi

# docker-compose speaks Docker's API: podman serves it on a socket of this run's own, unless
# DOCKER_HOST already names one.
if [ -z "${DOCKER_HOST:-}" ]; then
    SOCKET_DIR=$(mktemp -d)
    podman system service --time=0 "unix://$SOCKET_DIR/podman.sock" >"$SOCKET_DIR/service.log" 2>&1 &
    SERVICE_PID=$!
    export DOCKER_HOST="unix://$SOCKET_DIR/podman.sock"
    for _ in $(seq 1 100); do [ -S "$SOCKET_DIR/podman.sock" ] && break; sleep 0.05; done
fi

# Podman runs HEALTHCHECKs from systemd timers; without systemd nothing runs them, and
# `depends_on: condition: service_healthy` would wait for ever. This loop plays the timer for
# this run's containers, once a second.
(
    while true; do
        for id in $(podman ps -q --filter "label=com.docker.compose.project=$PROJECT" 2>/dev/null); do
            podman healthcheck run "$id" >/dev/null 2>&1 || true
        done
        sleep 1
    done
) &
HEALTH_PID=$!

# Waits until $1 answers 200, for at most $2 seconds.
wait_url() {
    local url=$1 limit=$2 waited=0
    while [ "$waited" -lt $((limit * 10)) ]; do
        [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 1 "$url")" = 200 ] && return 0
        sleep 0.1
        waited=$((waited + 1))
    done
    return 1
}

SECRET_FROM="" # the compose service whose container mints client secrets
secret() { compose exec -T "$SECRET_FROM" apple-id-mock client-secret --client-id com.example.web; }

# A refresh token for sam through http://localhost:8080.
issue_refresh_token() {
    local location code
    location=$(curl -s -o /dev/null -w '%{redirect_url}' "http://localhost:8080/auth/authorize?client_id=com.example.web&redirect_uri=http%3A%2F%2Flocalhost%3A3000%2Fauth%2Fapple%2Fcallback&response_type=code&login_hint=sam")
    code=$(sed -n 's/.*[?&]code=\([^&]*\).*/\1/p' <<<"$location")
    curl -s http://localhost:8080/auth/token -d grant_type=authorization_code -d "code=$code" \
        -d client_id=com.example.web --data-urlencode "client_secret=$(secret)" \
        -d redirect_uri=http://localhost:3000/auth/apple/callback \
        | python3 -c 'import json,sys; print(json.load(sys.stdin)["refresh_token"])'
}
refresh_status() {
    curl -s -o /dev/null -w '%{http_code}' http://localhost:8080/auth/token -d grant_type=refresh_token \
        --data-urlencode "refresh_token=$1" -d client_id=com.example.web --data-urlencode "client_secret=$(secret)"
}

run_default() {
    ACTIVE_FILE=docker-compose.yml SECRET_FROM=apple-id-mock
    say "docker-compose -f $ACTIVE_FILE up -d"
    compose up -d --no-build >/dev/null 2>&1 || { compose up -d --no-build; fail "$ACTIVE_FILE comes up"; return; }
    check "$ACTIVE_FILE: the mock answers on http://localhost:8080" wait_url http://localhost:8080/health 20
    check "$ACTIVE_FILE: discovery names the public URL" \
        grep -q '"authorization_endpoint":"http://localhost:8080/auth/authorize"' \
        <<<"$(curl -s http://localhost:8080/.well-known/openid-configuration)"
    local token
    token=$(issue_refresh_token || true)
    check "$ACTIVE_FILE: a refresh token is issued" [ -n "$token" ]
    check "$ACTIVE_FILE: the email relay answers SMTP on localhost:2525" python3 -c '
import smtplib, sys
with smtplib.SMTP("127.0.0.1", 2525, timeout=20) as smtp:
    code, _ = smtp.ehlo("compose-test")
    sys.exit(0 if code == 250 else 1)'
    compose down -t 10 >/dev/null 2>&1
    check "$ACTIVE_FILE: down without -v keeps the state volume" \
        podman volume exists "${PROJECT}_state"
    compose up -d --no-build >/dev/null 2>&1
    wait_url http://localhost:8080/health 20 || true
    check "$ACTIVE_FILE: after down and up the refresh token still works" [ "$(refresh_status "$token")" = 200 ]
    compose down -v -t 10 >/dev/null 2>&1
    check "$ACTIVE_FILE: down -v forgets it" bash -c "! podman volume exists ${PROJECT}_state"
    ACTIVE_FILE=""
}

run_alias() {
    ACTIVE_FILE=docker-compose.apple-alias.yml
    say "docker-compose -f $ACTIVE_FILE up --abort-on-container-exit --exit-code-from backend"
    local output status=0 attempt
    for attempt in 1 2; do
        status=0
        output=$(compose up --no-build --abort-on-container-exit --exit-code-from backend 2>&1) || status=$?
        # docker-compose 1.29 over podman's API can lose a container's log stream as it attaches
        # (its log printer raises AttributeError before the backend ran): that run says nothing of
        # the mock, so it is run once more.
        grep -q "has no attribute 'log_stream'" <<<"$output" && [ "$attempt" = 1 ] || break
        say "docker-compose lost a log stream while attaching; running $ACTIVE_FILE again"
        compose down -v -t 2 >/dev/null 2>&1
    done
    local summary
    summary=$(grep -Eo '[0-9]+ passed, [0-9]+ failed' <<<"$output" | tail -n 1 || true)
    if [ "$status" = 0 ] && grep -q ' 0 failed' <<<"$summary"; then
        pass "$ACTIVE_FILE: the backend with Apple's URLs signs in through the alias ($summary)"
    else
        fail "$ACTIVE_FILE: the backend with Apple's URLs (exit $status)"
        tail -n 40 <<<"$output"
    fi
    compose down -v -t 2 >/dev/null 2>&1
    ACTIVE_FILE=""
}

run_replicas() {
    ACTIVE_FILE=docker-compose.replicas.yml SECRET_FROM=mock-a
    say "docker-compose -f $ACTIVE_FILE up -d"
    compose up -d --no-build >/dev/null 2>&1 || { compose up -d --no-build; fail "$ACTIVE_FILE comes up"; return; }
    check "$ACTIVE_FILE: nginx answers on http://localhost:8080" wait_url http://localhost:8080/health 60
    local token ok=0
    token=$(issue_refresh_token || true)
    check "$ACTIVE_FILE: a code issued through the balancer is redeemed" [ -n "$token" ]
    # Round robin: of four refreshes, two go to each replica.
    for _ in 1 2 3 4; do [ "$(refresh_status "$token")" = 200 ] && ok=$((ok + 1)); done
    check "$ACTIVE_FILE: four refreshes across both replicas succeed ($ok of 4)" [ "$ok" = 4 ]
    local served_a served_b
    served_a=$(compose logs mock-a 2>/dev/null | grep -c 'listening on' || true)
    served_b=$(compose logs mock-b 2>/dev/null | grep -c 'listening on' || true)
    check "$ACTIVE_FILE: both replicas run" [ "$((served_a > 0 && served_b > 0))" = 1 ]
    curl -s -o /dev/null http://localhost:8080/auth/revoke -d client_id=com.example.web \
        --data-urlencode "client_secret=$(secret)" --data-urlencode "token=$token" -d token_type_hint=refresh_token
    local after=0
    for _ in 1 2; do [ "$(refresh_status "$token")" = 400 ] && after=$((after + 1)); done
    check "$ACTIVE_FILE: revoked at one replica, refused at both" [ "$after" = 2 ]
    compose down -v -t 10 >/dev/null 2>&1
    ACTIVE_FILE=""
}

for which in "${WHICH[@]}"; do
    case "$which" in
        default) run_default ;;
        alias) run_alias ;;
        replicas) run_replicas ;;
        *) echo "unknown compose test: $which (default, alias, replicas)" >&2; exit 2 ;;
    esac
done

printf '%s passed, %s failed\n' "$PASSED" "$FAILED"
[ "$FAILED" = 0 ]
