#!/usr/bin/env bash
# Installs and configures what the container tests need on a Debian machine (as root): podman,
# runc, debootstrap and docker-compose from Debian's packages, and /etc/containers/containers.conf
# for this kind of sandbox:
#   - default_ulimits = []: the sandbox refuses the nofile rlimit podman sets by default;
#   - runtime = "runc" where the cgroup hierarchy is hybrid (v1 with a v2 "unified" mount),
#     which crun refuses ("cgroups in hybrid mode not supported");
#   - base_hosts_file = "none": containers do not inherit the machine's /etc/hosts, as with
#     Docker. Otherwise a hosts entry for appleid.apple.com on the machine (.ci/run adds one)
#     would win over the compose network's alias of docker-compose.apple-alias.yml.
# Settings already in the file are left as they are. Safe to run again.
set -euo pipefail

missing=()
for command in podman runc debootstrap docker-compose curl; do
    command -v "$command" >/dev/null 2>&1 || missing+=("$command")
done
if [ ${#missing[@]} -gt 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends podman runc debootstrap docker-compose curl \
        uidmap slirp4netns netavark aardvark-dns fuse-overlayfs ca-certificates >/dev/null
fi

CONF=/etc/containers/containers.conf
mkdir -p /etc/containers
touch "$CONF"
# Appends "key = value" to [section] unless the key is set somewhere in the file already.
set_default() {
    local section=$1 key=$2 value=$3
    grep -Eq "^[[:space:]]*${key}[[:space:]]*=" "$CONF" && return
    if grep -q "^\[$section\]" "$CONF"; then
        sed -i "/^\[$section\]/a $key = $value" "$CONF"
    else
        printf '\n[%s]\n%s = %s\n' "$section" "$key" "$value" >>"$CONF"
    fi
}
set_default containers default_ulimits '[]'
set_default containers base_hosts_file '"none"'
if [ -d /sys/fs/cgroup/unified ] && [ ! -f /sys/fs/cgroup/cgroup.controllers ]; then
    set_default engine runtime '"runc"'
fi
echo "podman $(podman --version | awk '{print $3}'), docker-compose $(docker-compose version --short 2>/dev/null || echo '?'); $CONF:"
grep -v '^[[:space:]]*$' "$CONF" | sed 's/^/  /'
