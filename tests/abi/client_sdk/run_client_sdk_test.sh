#!/usr/bin/env bash
# Installs this build to a fresh prefix, builds examples/client against the installed
# find_package(ActionHostClient) alone, and runs it: it starts a real sandbox, runs a command in it and
# copies the file the command wrote out.
set -euo pipefail
build_dir="$1"; source_dir="$2"; cxx_flags="${3:-}"
work=$(mktemp -d /tmp/ah-client-sdk.XXXXXX)
trap 'rm -rf "$work"' EXIT

cmake --install "$build_dir" --prefix "$work/prefix" > "$work/install.log"
prefix="$work/prefix"
test -f "$prefix/include/actionhost/client/runtime.hpp"
test -f "$prefix/lib/cmake/ActionHostClient/ActionHostClientConfig.cmake"
test -f "$prefix/lib/cmake/ActionHostClient/ActionHostClientConfigVersion.cmake"
soname=$(readelf -d "$prefix/lib/libactionhost_client.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
echo "soname: $soname"
[[ "$soname" =~ ^libactionhost_client\.so\.[0-9]+\.[0-9]+$ ]]
test -f "$prefix/lib/$soname"

# A separate project: only the installed prefix is on its search path.
cmake -S "$source_dir/examples/client" -B "$work/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_CXX_FLAGS="$cxx_flags" > "$work/configure.log"
cmake --build "$work/build" > "$work/build.log" || { cat "$work/build.log"; exit 1; }
readelf -d "$work/build/sandbox_demo" | grep -q "NEEDED.*\[$soname\]"
grep -q "ActionHostClient_DIR:PATH=$prefix/lib/cmake/ActionHostClient" "$work/build/CMakeCache.txt"

mkdir -p "$work/run" && cd "$work/run"
env -u ACTIONHOST_RUNTIME_PATH -u ACTIONHOST_INSTALL_DIR "$work/build/sandbox_demo" > out.txt 2> status.txt || {
  echo "sandbox_demo failed ($?)"; cat out.txt status.txt; exit 1; }
cat out.txt status.txt
grep -q '^tick 3$' out.txt
grep -q "^copied out: .*out/ticks.txt$" out.txt
grep -q 'STATUS\$READY' status.txt
[ "$(cat out/ticks.txt)" = "$(printf 'tick 1\ntick 2\ntick 3')" ]
echo "a program built against the installed client SDK ran a command in a sandbox and copied its file out"
