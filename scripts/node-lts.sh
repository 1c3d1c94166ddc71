#!/usr/bin/env bash
# A supported LTS Node for CI, whatever Node the machine has (Debian's may be past its end of life): the
# official Linux build as the npm registry carries it (package node-linux-<arch>, bin/node and the
# include/node headers that native modules such as better-sqlite3 compile against). Reused while it holds
# that release; prints its directory, and nothing else, on stdout:
#   home=$(scripts/node-lts.sh); PATH=$home/bin:$PATH npm_config_nodedir=$home npm ci
# NODE_LTS_VERSION picks another release (e.g. 22.23.5, the Node 22 LTS).
set -euo pipefail

NODE_VERSION=${NODE_LTS_VERSION:-24.22.3}
case $(uname -m) in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "node-lts: no Node build for $(uname -m)" >&2; exit 1 ;;
esac
# Outside the clone, like scripts/trl-venv.sh: CI starts from a fresh clone. As root, the tests start the
# service as `nobody` too (test/docker/image-env.test.ts), which cannot enter root's home: the cache is then
# in /var/cache.
if [ "$(id -u)" -eq 0 ]; then cache=/var/cache; else cache=${XDG_CACHE_HOME:-$HOME/.cache}; fi
dir=$cache/tutor-reward/node-v$NODE_VERSION-linux-$arch

# .complete is written last: a copy whose unpacking was cut short is fetched again, not reused.
if [ -f "$dir/.complete" ] && [ "$("$dir/bin/node" --version 2>/dev/null)" = "v$NODE_VERSION" ]; then
  echo "$dir"
  exit 0
fi

mkdir -p "$(dirname "$dir")"
work=$(mktemp -d "$dir.XXXXXX")
trap 'rm -rf "$work"' EXIT
# npm pack checks the tarball against the registry's integrity hash.
tarball=$(npm pack --silent --pack-destination "$work" "node-linux-$arch@$NODE_VERSION")
mkdir "$work/node"
tar -xzf "$work/$tarball" -C "$work/node" --strip-components=1
[ "$("$work/node/bin/node" --version)" = "v$NODE_VERSION" ]
[ -f "$work/node/include/node/node_api.h" ] && [ -f "$work/node/include/node/common.gypi" ]
rm -rf "$dir"
mv "$work/node" "$dir"
touch "$dir/.complete"
echo "$dir"
