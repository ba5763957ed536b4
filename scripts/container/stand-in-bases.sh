#!/usr/bin/env bash
# Makes local stand-ins for the Docker Hub images that the Dockerfile and the compose files name,
# since Docker Hub is out of reach here: each is built from Debian bookworm (debootstrap, from
# Debian's mirror) and, for Swift, this machine's toolchain and package mirror. An image that is
# already in podman's storage is kept (pass --rebuild to make them anew).
#
#   scripts/container/stand-in-bases.sh            the bases of the Dockerfile
#   scripts/container/stand-in-bases.sh --compose  also PostgreSQL, nginx and Python for the compose files
#   scripts/container/stand-in-bases.sh --all      also swift:6.3-bookworm-slim (to measure the
#                                                  dynamically linked image, docs/container.md)
set -euo pipefail
cd "$(dirname "$0")"

WANT_COMPOSE="" WANT_ALL="" REBUILD=""
for arg in "$@"; do
    case "$arg" in
        --compose) WANT_COMPOSE=1 ;;
        --all) WANT_COMPOSE=1 WANT_ALL=1 ;;
        --rebuild) REBUILD=1 ;;
        *) echo "usage: $0 [--compose] [--all] [--rebuild]" >&2; exit 2 ;;
    esac
done

TOOLCHAIN=${APPLE_ID_MOCK_TOOLCHAIN:-/opt/swift}
MIRROR=${APPLE_ID_MOCK_PACKAGE_MIRROR:-/opt/swift-packages}
DEBIAN_MIRROR=${APPLE_ID_MOCK_DEBIAN_MIRROR:-http://deb.debian.org/debian}
# CAs this machine adds for its egress proxy (python.Containerfile trusts them for pip).
EXTRA_CA_DIR=${APPLE_ID_MOCK_EXTRA_CA_DIR:-/usr/local/share/ca-certificates}
[ -d "$EXTRA_CA_DIR" ] || EXTRA_CA_DIR=$(mktemp -d)

say() { printf '[stand-in] %s\n' "$*"; }
have() { [ -z "$REBUILD" ] && podman image exists "$1"; }

# Debian bookworm (debootstrap's minbase) imported twice from one root: as debian:bookworm, and
# without documentation, manual pages and translations (and a dpkg rule keeping them out) as
# debian:bookworm-slim, which is what Docker's slim variant is.
make_debian() {
    if have docker.io/library/debian:bookworm && have docker.io/library/debian:bookworm-slim; then
        return
    fi
    local root
    root=$(mktemp -d /var/tmp/bookworm-root.XXXXXX)
    # shellcheck disable=SC2064
    trap "rm -rf '$root'" RETURN
    say "debootstrap --variant=minbase bookworm (about 30 to 90 s)"
    debootstrap --variant=minbase bookworm "$root" "$DEBIAN_MIRROR" >"$root.log" 2>&1 \
        || { tail -n 20 "$root.log"; rm -f "$root.log"; exit 1; }
    rm -f "$root.log"
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/cache/apt/*.bin "$root"/var/lib/apt/lists/*
    # As in Docker's Debian images: apt keeps no package cache and no downloaded .deb files, so
    # that `apt-get install … && rm -rf /var/lib/apt/lists/*` leaves only the packages in a layer.
    cat >"$root/etc/apt/apt.conf.d/docker-clean" <<'CFG'
DPkg::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
APT::Update::Post-Invoke { "rm -f /var/cache/apt/archives/*.deb /var/cache/apt/archives/partial/*.deb /var/cache/apt/*.bin || true"; };
Dir::Cache::pkgcache "";
Dir::Cache::srcpkgcache "";
CFG
    printf 'Acquire::Languages "none";\n' >"$root/etc/apt/apt.conf.d/docker-no-languages"
    printf 'Acquire::GzipIndexes "true";\n' >"$root/etc/apt/apt.conf.d/docker-gzip-indexes"
    printf 'Apt::AutoRemove::SuggestsImportant "false";\n' >"$root/etc/apt/apt.conf.d/docker-autoremove-suggests"
    tar -C "$root" -c . | podman import --change 'CMD ["bash"]' - docker.io/library/debian:bookworm >/dev/null
    say "debian:bookworm"
    cat >"$root/etc/dpkg/dpkg.cfg.d/docker-slim" <<'CFG'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/locale/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
CFG
    find "$root/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
    rm -rf "$root"/usr/share/man/* "$root"/usr/share/info/* "$root"/usr/share/locale/* \
        "$root"/usr/share/groff/* "$root"/usr/share/lintian/*
    tar -C "$root" -c . | podman import --change 'CMD ["bash"]' - docker.io/library/debian:bookworm-slim >/dev/null
    say "debian:bookworm-slim"
}

# One image from a Containerfile beside this script, with the toolchain mounted at /toolchain and
# the machine's extra CAs at /host-ca.
make_from() {
    local name=$1 file=$2
    have "docker.io/library/$name" && return
    say "$name from $file"
    podman build --pull=never --layers -q -f "$file" --volume "$TOOLCHAIN:/toolchain:ro" \
        --volume "$EXTRA_CA_DIR:/host-ca:ro" -t "docker.io/library/$name" . >/dev/null
}

for needed in "$TOOLCHAIN/usr/bin/swift" "$MIRROR"; do
    [ -e "$needed" ] || { echo "stand-in-bases: $needed not found (set APPLE_ID_MOCK_TOOLCHAIN / APPLE_ID_MOCK_PACKAGE_MIRROR)" >&2; exit 1; }
done
make_debian
make_from swift:6.3-bookworm swift.Containerfile
if [ -n "$WANT_ALL" ]; then
    make_from swift:6.3-bookworm-slim swift-slim.Containerfile
fi
if [ -n "$WANT_COMPOSE" ]; then
    make_from postgres:15 postgres.Containerfile
    make_from nginx:1.27-alpine nginx.Containerfile
    make_from python:3.12-slim python.Containerfile
fi
say "ready: $(podman images --format '{{.Repository}}:{{.Tag}}' | grep -E 'docker.io/library/' | sed 's|docker.io/library/||' | sort | tr '\n' ' ')"
