#!/usr/bin/env bash
# Installs the SDK from this build, builds the example plugins as separate CMake projects against that
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
# Nothing of the source tree is visible to the third-party builds: only the installed prefix. Two
# plugins (examples/plugins/): hello in C++ with the SDK's helper, uname in plain C11; both installed
# with actionhost_sdk_install_plugin() into one prefix of their own, which the host gets as --plugin-dir.
for plugin in hello uname_c; do
  cmake -S "$source_dir/examples/plugins/$plugin" -B "$work/build-$plugin" -DCMAKE_PREFIX_PATH="$work/sdk" > "$work/configure-$plugin.log"
  cmake --build "$work/build-$plugin" > "$work/build-$plugin.log" || { cat "$work/build-$plugin.log"; exit 1; }
  cmake --install "$work/build-$plugin" --prefix "$work/plugin-prefix" > "$work/install-$plugin.log"
done
plugins="$work/plugin-prefix/lib/actionhost/plugins"
test -f "$plugins/hello/manifest.json" && test -f "$plugins/uname/manifest.json"
# Exactly one exported symbol (docs/design.md, "The C ABI").
for lib in "$plugins/hello/libhello.so" "$plugins/uname/libuname.so"; do
  exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRV]$/ {print $3}')
  [ "$exported" = "actionhost_plugin_entry" ] || { echo "exports of $lib: $exported"; exit 1; }
done

mkdir -p "$work/ws"
"$build_dir/bin/actionhost" 0 --host 127.0.0.1 --port-file "$work/port" --working-dir "$work/ws" \
  --username root --user-id 0 --plugin-dir "$plugins" --plugins hello uname > "$work/host.log" 2>&1 &
host_pid=$!
for _ in $(seq 1 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
out=$(curl -s -X POST "http://127.0.0.1:$port/execute_action" \
  -d '{"action":{"action":"hello","args":{"name":"Ada"}},"session":"greeter"}')
echo "$out"
echo "$out" | grep -q '"content":"Hello, Ada!"'
echo "$out" | grep -q '"session":"greeter"'
# A name the plugin must escape (quotes, a backslash, a newline, a control byte, non-ASCII): the example
# writes its answer with the host's JSON service, so it comes back exactly (the guide's first example,
# pasting strings, broke here).
out=$(curl -s -X POST "http://127.0.0.1:$port/execute_action" \
  -d '{"action":{"action":"hello","args":{"name":"Ada \"the\" \\ Lovelace\n\u0001 \u00e9\u6f22"}}}')
echo "$out"
/usr/bin/python3 -c 'import json,sys; o=json.loads(sys.argv[1]); assert o["content"]=="Hello, Ada \"the\" \\ Lovelace\n\x01 \u00e9\u6f22!", o' "$out"
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
# The C plugin: its manifest's default for `all` filled by the host, its answer the kernel's.
out=$(post '{"action":{"action":"uname","args":{}}}'); echo "$out"
echo "$out" | grep -q "\"content\":\"$(uname -s)\""
out=$(post '{"action":{"action":"uname","args":{"all":true}}}'); echo "$out"
echo "$out" | grep -q "\"content\":\"$(uname -s) $(uname -n) $(uname -r) .* $(uname -m)\""
out=$(post '{"action":{"action":"uname","args":{"all":"yes"}}}'); echo "$out"
echo "$out" | grep -q "argument 'all' of action 'uname' must be a boolean"
grep -q "loaded plugin uname 1.0.0" "$work/host.log"
kill "$host_pid" && wait "$host_pid" || true
host_pid=""

# `ahctl --plugin-dir` with every runtime that can show the host this machine's directories: local and cli (the
# host reads it in place), sandbox (bound read-only at the same path); docker: DockerRuntime.PluginDir*.
actions='{"action":"hello","args":{"name":"Ada"}}
{"action":"uname","args":{}}'
for runtime in local cli sandbox; do
  mkdir -p "$work/ws-$runtime"
  out=$("$build_dir/bin/ahctl" -q -r "$runtime" -w "$work/ws-$runtime" --state-dir "$work/state" \
          --plugin-dir "$plugins" -p hello,uname exec <<< "$actions")
  echo "$runtime: $out"
  echo "$out" | grep -q '"content":"Hello, Ada!"'
  echo "$out" | grep -q "\"content\":\"$(uname -s)\""
done
# The sandbox sees the directory read-only.
out=$("$build_dir/bin/ahctl" -q -r sandbox --state-dir "$work/state" --plugin-dir "$plugins" \
        run -- "touch $plugins/hello/x 2>&1; ls $plugins")
echo "$out"
echo "$out" | grep -q "Read-only file system"
# A runtime whose host runs elsewhere cannot see the directory: said at once, nothing started. So is a
# directory that does not exist.
set +e
out=$("$build_dir/bin/ahctl" -q -r remote --state-dir "$work/state" --plugin-dir "$plugins" run -- true 2>&1); code=$?
set -e
echo "remote: $code $out"
[ "$code" -ne 0 ] && echo "$out" | grep -q "cannot load plugins from a directory of this machine (--plugin-dir)"
set +e
out=$("$build_dir/bin/ahctl" -q -r sandbox --state-dir "$work/state" --plugin-dir "$work/none" run -- true 2>&1); code=$?
set -e
echo "missing: $code $out"
[ "$code" -ne 0 ] && echo "$out" | grep -q "plugin directory $work/none does not exist"
echo "out-of-tree plugins (C++ and C) built against the installed SDK were installed, loaded and answered, from the host and through ahctl --plugin-dir"
