#!/usr/bin/env bash
# `cmake --install` lays out bin/ and lib/actionhost/ under any prefix; moved elsewhere afterwards, the
# tree still finds its own modules from the binary's location, with no environment variable.
set -euo pipefail
build_dir="$1"
work=$(mktemp -d /tmp/ah-install.XXXXXX)
trap 'rm -rf "$work"' EXIT
cmake --install "$build_dir" --prefix "$work/first" > "$work/install.log"
mv "$work/first" "$work/moved"
unset ACTIONHOST_PLUGIN_PATH
out=$(env -u ACTIONHOST_PLUGIN_PATH "$work/moved/bin/actionhost" --list-plugins)
echo "$out" | grep -q "\"library\": \"$work/moved/lib/actionhost/plugins/bash/libah_bash.so\""
echo "$out" | grep -q '"name": "bash"'
test -f "$work/moved/include/actionhost/plugin.h"
echo "relocated install lists its own modules"
