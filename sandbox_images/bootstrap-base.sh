#!/usr/bin/env bash
# Build a Debian base image with Python 3 and numpy without any container registry:
# debootstrap a minimal bookworm root from Debian's package mirror, then `docker import` it.
# Usage: bootstrap-base.sh IMAGE_TAG [MIRROR]   (needs root, debootstrap and a running Docker engine)
set -euo pipefail
tag=${1:?usage: bootstrap-base.sh IMAGE_TAG [MIRROR]}
mirror=${2:-http://deb.debian.org/debian}

if ! command -v debootstrap >/dev/null 2>&1; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null
fi
root=$(mktemp -d /var/tmp/codebench-rootfs.XXXXXX)
trap 'rm -rf "$root"' EXIT
debootstrap --variant=minbase --include=python3,python3-numpy bookworm "$root" "$mirror" >&2
# Keep the image small: no package caches, docs or man pages.
rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/* "$root"/usr/share/doc "$root"/usr/share/man
tar --numeric-owner -C "$root" -c . | docker import -c 'CMD ["/bin/bash"]' - "$tag" >&2
echo "$tag"
