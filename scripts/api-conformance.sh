#!/usr/bin/env bash
# API conformance of a running server against Sources/AppleIDMock/Resources/openapi.json.
#
#   scripts/api-conformance.sh [BASE_URL]        (default http://127.0.0.1:8080)
#
# 1. validates the repository's OpenAPI document (openapi-spec-validator);
# 2. checks that GET BASE_URL/__admin/openapi.json serves the same bytes;
# 3. fuzzes every operation with schemathesis (checks: not_a_server_error, status_code_conformance,
#    content_type_conformance, response_schema_conformance, response_headers_conformance), in three
#    phases: every operation but the fault rules and the two that post notifications; then those two
#    (default scenario, 100 ms delivery timeout, since each waits for its receiver); then, faults
#    cleared, the fault rules alone, since a rule the fuzzer adds can drop or delay later Apple calls.
#    Faults are cleared again at the end.
#
# Exits non-zero on any failure. Run it against a server started for the purpose (it changes the
# state: scenarios, settings, clock, keys, consents): e.g.
#   apple-id-mock serve --port 8080 & scripts/api-conformance.sh http://127.0.0.1:8080
#
# Needs: curl, python3, schemathesis 4.x and openapi-spec-validator
#   (pip install 'schemathesis>=4.32,<5' 'openapi-spec-validator>=0.7').
# Environment:
#   APPLE_ID_MOCK_ADMIN_TOKEN     the server's --admin-token, if it has one
#   API_CONFORMANCE_MAX_EXAMPLES  test cases per operation and phase (default 50)
#   API_CONFORMANCE_SEED          the fuzzer's seed (default 20250101), for a repeatable run
#   API_CONFORMANCE_REPORT_DIR    where the JUnit reports go (default .build/api-conformance)
set -euo pipefail

base=${1:-http://127.0.0.1:8080}
base=${base%/}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
spec=$root/Sources/AppleIDMock/Resources/openapi.json
max_examples=${API_CONFORMANCE_MAX_EXAMPLES:-50}
seed=${API_CONFORMANCE_SEED:-20250101}
report_dir=${API_CONFORMANCE_REPORT_DIR:-$root/.build/api-conformance}
token=${APPLE_ID_MOCK_ADMIN_TOKEN:-}
checks=not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance,response_headers_conformance

for tool in curl python3 schemathesis openapi-spec-validator; do
    if ! command -v "$tool" >/dev/null 2>&1; then
        echo "api-conformance: $tool is missing (pip install 'schemathesis>=4.32,<5' openapi-spec-validator)" >&2
        exit 2
    fi
done

auth=()
if [[ -n $token ]]; then auth=(-H "Authorization: Bearer $token"); fi

step() { printf '\n== %s\n' "$*"; }

clear_faults() {
    curl -fsS --max-time 30 -X DELETE ${auth[@]+"${auth[@]}"} -H 'Accept: application/json' "$base/__admin/faults" >/dev/null
}

# admin_json METHOD PATH JSON: a control-plane call with a JSON body.
admin_json() {
    curl -fsS --max-time 30 -X "$1" ${auth[@]+"${auth[@]}"} -H 'Content-Type: application/json' -H 'Accept: application/json' \
        --data "$3" "$base$2" >/dev/null
}

step "1/3 validate $spec"
openapi-spec-validator "$spec"

step "2/3 GET $base/__admin/openapi.json serves the same document"
# Scratch space: the served document, and the fuzzers' caches (kept out of the working tree).
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export HYPOTHESIS_STORAGE_DIRECTORY=$work/hypothesis
served=$work/openapi.json
curl -fsS --max-time 30 ${auth[@]+"${auth[@]}"} "$base/__admin/openapi.json" -o "$served"
if ! cmp -s "$spec" "$served"; then
    if python3 -c 'import json, sys; sys.exit(json.load(open(sys.argv[1])) != json.load(open(sys.argv[2])))' \
        "$spec" "$served" 2>/dev/null; then
        echo "the served document equals the repository's as JSON, but not byte for byte (stale resource bundle?)" >&2
    else
        echo "the served document differs from $spec: rebuild the server" >&2
    fi
    exit 1
fi
echo "identical ($(wc -c <"$served") bytes)"

mkdir -p "$report_dir"
report_dir=$(cd "$report_dir" && pwd)
# schemathesis runs from $work (it keeps a cache in the current directory).
# Its hooks cap the waits of waiting reads (scripts/api_conformance_hooks.py); the request timeout
# stays above the longest wait (60 s), so a wait the hooks miss answers late but never as an error.
fuzz() {
    (cd "$work" && PYTHONPATH="$root/scripts${PYTHONPATH:+:$PYTHONPATH}" SCHEMATHESIS_HOOKS=api_conformance_hooks \
        ${bounded[@]+"${bounded[@]}"} schemathesis "$@")
}
common=(
    run "$spec" --url "$base"
    --checks "$checks"
    --max-examples "$max_examples"
    --seed "$seed"
    --generation-database none
    --workers 1
    --request-timeout 90
    --generation-with-security-parameters false
    --suppress-health-check all
    --warnings off
    --no-color
    ${auth[@]+"${auth[@]}"}
)

# The operations that post notifications wait for the receiver up to notificationTimeoutMilliseconds
# (per notification; conformance posts eight): they run in their own phase with a short timeout.
notify='^/__admin/(mint/notification|notifications/conformance)$'
faults='^/__admin/faults(/.*)?$'

# A hard bound per phase, should the server stop answering.
bounded=()
if command -v timeout >/dev/null 2>&1; then bounded=(timeout --foreground 900); fi

status=0
step "3/3 schemathesis, phase 1: every operation but /__admin/faults and notification posting"
clear_faults
fuzz "${common[@]}" --exclude-path-regex "$faults|$notify" \
    --report junit --report-junit-path "$report_dir/phase1.xml" || status=1

step "3/3 schemathesis, phase 2: notification posting (default scenario, 100 ms delivery timeout)"
admin_json PUT /__admin/scenario '{"name": "default"}' || echo "(no scenario named default: the active one stays)"
admin_json PATCH /__admin/settings '{"notificationTimeoutMilliseconds": 100}'
fuzz "${common[@]}" --include-path-regex "$notify" --phases examples,coverage,fuzzing \
    --report junit --report-junit-path "$report_dir/phase2.xml" || status=1

step "3/3 schemathesis, phase 3: /__admin/faults (faults cleared first)"
clear_faults
fuzz "${common[@]}" --include-path-regex "$faults" \
    --report junit --report-junit-path "$report_dir/phase3.xml" || status=1
clear_faults

if [[ $status -ne 0 ]]; then
    echo "api-conformance: FAILED (reports in $report_dir)" >&2
else
    echo "api-conformance: passed"
fi
exit "$status"
