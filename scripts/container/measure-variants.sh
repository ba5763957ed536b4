#!/usr/bin/env bash
# Measures the shapes the runtime image could take, as docs/container.md reports them:
#   static   the Dockerfile as it is: an executable with the Swift runtime, Foundation (with ICU's
#            data cut to a subset) and libcrypto linked in, on debian:bookworm-slim;
#   fullicu  the Dockerfile of $MEASURE_BEFORE (default 71fafe4, the shape before issue 35):
#            the same static executable with ICU's full data, on bookworm-slim with libssl3 and
#            ca-certificates;
#   dynamic  that build linked against the Swift runtime's shared libraries, on
#            swift:6.3-bookworm-slim (the shape before that), made from it with sed.
# Each variant is built with a cache of its own, so that none spoils another's. MEASURE_VARIANTS
# picks some (default: "static fullicu dynamic").
# For each: the image's size, what the Dockerfile adds on top of its runtime base, the time to the
# first /health answer after `podman run`, and the resident memory when idle.
# Needs podman and the stand-in bases (stand-in-bases.sh --all); takes a full release build per
# shape the first time.
set -euo pipefail
cd "$(dirname "$0")/../.."

MIRROR=${APPLE_ID_MOCK_PACKAGE_MIRROR:-/opt/swift-packages}
VARIANTS=${MEASURE_VARIANTS:-static fullicu dynamic}
case " $VARIANTS " in
    *" dynamic "*) scripts/container/stand-in-bases.sh --all ;;
    *) scripts/container/stand-in-bases.sh ;;
esac
fullicu=$(mktemp)
variant=$(mktemp)
trap 'rm -f "$fullicu" "$variant"' EXIT
git show "${MEASURE_BEFORE:-71fafe4}:Dockerfile" \
    | sed -e 's/id=apple-id-mock-build,/id=apple-id-mock-build-fullicu,/' >"$fullicu"
sed -e 's/ --static-swift-stdlib//' -e 's/id=apple-id-mock-build-fullicu,/id=apple-id-mock-build-dynamic,/' \
    -e 's/^FROM debian:bookworm-slim$/FROM swift:6.3-bookworm-slim/' \
    -e 's/libssl3=3\.\* ca-certificates=[^ ]*/libssl3=3.*/' "$fullicu" >"$variant"

build() { # build TAG DOCKERFILE
    podman build --format docker --pull=never --layers --volume "$MIRROR:$MIRROR:ro" -f "$2" -t "$1" . >/dev/null
}
measure() { # measure NAME TAG BASE
    local name=$1 tag=$2 base=$3 size base_size t0 port first rss
    size=$(podman image inspect "$tag" --format '{{.Size}}')
    base_size=$(podman image inspect "$base" --format '{{.Size}}')
    t0=$(date +%s%3N)
    podman run -d --name "measure-$name" -p 127.0.0.1::8080 "$tag" >/dev/null 2>&1
    port=$(podman port "measure-$name" 8080/tcp | sed 's/.*://')
    until [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/health")" = 200 ]; do
        if [ $(($(date +%s%3N) - t0)) -gt 10000 ]; then
            podman logs "measure-$name" | tail -n 20
            podman rm -f -t 0 "measure-$name" >/dev/null 2>&1
            echo "$name: no answer from /health within 10 s" >&2
            return 1
        fi
        sleep 0.01
    done
    first=$(($(date +%s%3N) - t0))
    sleep 2
    rss=$(podman exec "measure-$name" sh -c "awk '/^VmRSS:/ {print \$2}' /proc/1/status")
    podman rm -f -t 0 "measure-$name" >/dev/null 2>&1
    printf '%-8s image %4d MB, base %s %d MB, added %4d MB, first answer %4d ms, idle RSS %d MiB\n' \
        "$name" $((size / 1000000)) "$base" $((base_size / 1000000)) $(((size - base_size) / 1000000)) \
        "$first" $((rss / 1024))
}

for name in $VARIANTS; do
    case $name in
        static) build apple-id-mock:local Dockerfile ;;
        fullicu) build apple-id-mock:fullicu "$fullicu" ;;
        dynamic) build apple-id-mock:dynamic "$variant" ;;
        *) echo "unknown variant $name (static, fullicu, dynamic)" >&2; exit 2 ;;
    esac
done
for name in $VARIANTS; do
    case $name in
        static) measure static apple-id-mock:local docker.io/library/debian:bookworm-slim ;;
        fullicu) measure fullicu apple-id-mock:fullicu docker.io/library/debian:bookworm-slim ;;
        dynamic) measure dynamic apple-id-mock:dynamic docker.io/library/swift:6.3-bookworm-slim ;;
    esac
done
