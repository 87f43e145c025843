#!/usr/bin/env bash
# Installs the SDK from this build, builds hello_plugin as a separate CMake project against that
# installed SDK only, then starts the real host with it and routes an action to it over HTTP.
set -euo pipefail
build_dir="$1"; source_dir="$2"
work=$(mktemp -d /tmp/ah-out-of-tree.XXXXXX)
host_pid=""
cleanup() { [ -n "$host_pid" ] && kill "$host_pid" 2>/dev/null && wait "$host_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

cmake --install "$build_dir" --prefix "$work/sdk" --component sdk > "$work/install.log"
test -f "$work/sdk/include/actionhost/plugin.h"
test -f "$work/sdk/lib/cmake/ActionHostSDK/ActionHostSDKConfig.cmake"
# Nothing of the source tree is visible to the third-party build: only the installed prefix.
cmake -S "$source_dir/tests/abi/out_of_tree/hello_plugin" -B "$work/build" -DCMAKE_PREFIX_PATH="$work/sdk" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log"
mkdir -p "$work/plugins" && cp -r "$work/build/hello" "$work/plugins/hello"
# Exactly one exported symbol (docs/design.md, "The C ABI").
exported=$(nm -D --defined-only "$work/plugins/hello/libhello.so" | awk '$2 ~ /^[TDBRV]$/ {print $3}')
[ "$exported" = "actionhost_plugin_entry" ] || { echo "exports: $exported"; exit 1; }

mkdir -p "$work/ws"
"$build_dir/bin/actionhost" 0 --host 127.0.0.1 --port-file "$work/port" --working-dir "$work/ws" \
  --username root --user-id 0 --plugin-dir "$work/plugins" --plugins hello > "$work/host.log" 2>&1 &
host_pid=$!
for _ in $(seq 1 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
out=$(curl -s -X POST "http://127.0.0.1:$port/execute_action" \
  -d '{"action":{"action":"hello","args":{"name":"Ada"}},"session":"greeter"}')
echo "$out"
echo "$out" | grep -q '"content":"Hello, Ada!"'
echo "$out" | grep -q '"session":"greeter"'
# The host validates the action against the manifest's declaration, with OpenHands' texts, and fills
# the defaults: the plugin never sees a malformed one.
post() { curl -s -w ' HTTP%{http_code}' -X POST "http://127.0.0.1:$port/execute_action" -d "$1"; }
out=$(post '{"action":{"action":"hello","args":{"name":3}}}'); echo "$out"
echo "$out" | grep -q "argument 'name' of action 'hello' must be a string, got 3\"} HTTP500"
out=$(post '{"action":{"action":"hello","args":{}}}'); echo "$out"
echo "$out" | grep -q "missing required argument 'name' for action 'hello'\"} HTTP500"
out=$(post '{"action":{"action":"hello","args":{"name":"Bo","shout":1}}}'); echo "$out"
echo "$out" | grep -q "unknown argument 'shout' for action 'hello'"
out=$(post '{"action":{"action":"hello","args":{"name":"Bo","loud":"true"}}}'); echo "$out"
echo "$out" | grep -q '"content":"Hello, Bo (LOUDLY)!"'
grep -q "loaded plugin hello 1.2.0" "$work/host.log"
echo "out-of-tree plugin built against the installed SDK was loaded and answered"
