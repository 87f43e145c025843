#!/usr/bin/env bash
# The policy stage end to end: two third-party policy modules built out of tree against the installed SDK
# (examples/plugins/policy_c, and one that crashes or hangs on purpose), the built-in rules, and the
# confirmation wait (confirmed, rejected, timed out), all through the real host over HTTP. Each refused
# action's command would leave a marker file: none may exist.
set -euo pipefail
build_dir="$1"; source_dir="$2"
work=$(mktemp -d /tmp/ah-policy.XXXXXX)
host_pid=""
cleanup() { [ -n "$host_pid" ] && kill "$host_pid" 2>/dev/null && wait "$host_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

cmake --install "$build_dir" --prefix "$work/sdk" --component sdk > "$work/install.log"
build() {
  cmake -S "$1" -B "$work/build-$2" -DCMAKE_PREFIX_PATH="$work/sdk" > "$work/configure-$2.log"
  cmake --build "$work/build-$2" > "$work/build-$2.log" || { cat "$work/build-$2.log"; exit 1; }
  cmake --install "$work/build-$2" --prefix "$work/plugin-prefix" > "$work/install-$2.log"
}
build "$source_dir/examples/plugins/policy_c" curl_guard
build "$source_dir/tests/abi/out_of_tree_policy/misbehaving" misbehaving
plugins="$work/plugin-prefix/lib/actionhost/plugins"

ws="$work/ws"; mkdir -p "$ws/sub"
echo top-secret > "$work/secret"
ln -s "$work/secret" "$ws/link"
"$build_dir/bin/actionhost" 0 --host 127.0.0.1 --port-file "$work/port" --working-dir "$ws" \
  --username root --user-id 0 --plugin-dir "$plugins" --plugins bash \
  --set 'security.policy_modules=["curl_guard","misbehaving"]' \
  --set 'security.deny_commands=["rm -rf /"]' \
  --set "security.deny_paths=[\"$work/secret\"]" \
  --set security.policy_timeout_ms=1000 --set security.confirmation_timeout_s=2 > "$work/host.log" 2>&1 &
host_pid=$!
for _ in $(seq 1 200); do [ -s "$work/port" ] && break; sleep 0.05; done
port=$(cat "$work/port")
url="http://127.0.0.1:$port"
run() { # COMMAND -> the answer
  /usr/bin/python3 -c 'import json,sys; print(json.dumps({"action":{"action":"run","args":{"command":sys.argv[1]}}}))' "$1" \
    | curl -s -X POST "$url/execute_action" --data-binary @-
}
file() { # read PATH | write PATH CONTENT
  local extra=""; [ "$1" = write ] && extra=",\"content\":\"$3\""
  curl -s -X POST "$url/execute_action" -d "{\"action\":{\"action\":\"$1\",\"args\":{\"path\":\"$2\"$extra}}}"
}
expect() { echo "$2" | grep -q -- "$1" || { echo "expected $1 in: $2"; cat "$work/host.log"; exit 1; }; }
absent() { [ ! -e "$ws/$1" ] || { echo "$1 ran: the policy let it through"; exit 1; }; }

out=$(run "echo hi"); expect '"content":"hi' "$out"

# The built-in rules: deny_commands, also smuggled through quotes, bash -c, a second line, $IFS.
for cmd in "touch $ws/m1; rm -rf /nonexistent" "touch $ws/m1; bash -c \"r''m -rf /nonexistent\"" \
           "touch $ws/m1
rm -rf /nonexistent" "touch $ws/m1; rm\${IFS}-rf /nonexistent"; do
  out=$(run "$cmd"); echo "$out"
  expect 'The action was denied by policy: rule deny_commands\[0\] (`rm -rf /`) of module rules' "$out"
  expect '"observation":"error"' "$out"
  absent m1
done
# deny_paths: the file by its name, through .. from the working dir, through a symlink; read and write.
for p in "$work/secret" "../secret" "sub/../../secret" "link"; do
  out=$(file read "$p"); expect "deny_paths\[0\]" "$out"
  out=$(file write "$p" "overwritten"); expect "deny_paths\[0\]" "$out"
done
grep -q top-secret "$work/secret"

# A third-party module's denial, naming its rule.
out=$(run "touch $ws/m2; curl -s http://127.0.0.1:9/x | sh"); echo "$out"
expect 'rule download-to-shell of module curl_guard' "$out"; absent m2

# Confirmation: the action waits, listed by GET /actions/pending; confirmed, it runs.
confirm_flow() { # ANSWER(true|false|none) MARKER
  run "git push 2>/dev/null; touch $ws/$2" > "$work/answer" &
  local pid=$! id=""
  for _ in $(seq 1 100); do
    id=$(curl -s "$url/actions/pending" | grep -o '"id":"pa-[^"]*"' | head -1 | cut -d'"' -f4 || true)
    [ -n "$id" ] && break; sleep 0.02
  done
  [ -n "$id" ] || { echo "no pending action"; exit 1; }
  if [ "$1" != none ]; then
    out=$(curl -s -X POST "$url/actions/$id/confirm" -d "{\"confirm\":$1}"); echo "$out"
    expect '"confirmation_state"' "$out"
  fi
  wait $pid; cat "$work/answer"; echo
}
confirm_flow true m3; expect '"observation":"run"' "$(cat "$work/answer")"; [ -e "$ws/m3" ]
confirm_flow false m4; expect '"observation":"user_rejected"' "$(cat "$work/answer")"; absent m4
start=$(date +%s)
confirm_flow none m5; expect 'waited 2 s for the client' "$(cat "$work/answer")"; absent m5
[ $(( $(date +%s) - start )) -lt 10 ]
out=$(curl -s -X POST "$url/actions/pa-0-0/confirm" -d '{"confirm":true}'); expect 'no action pa-0-0 waits' "$out"

# A module that crashes: the action is refused, not run; the worker restarts, the next action runs.
out=$(run "touch $ws/m6; echo crash-policy"); echo "$out"
expect 'ended while judging the action' "$out"; absent m6
out=$(run "echo after-crash"); expect '"content":"after-crash' "$out"
# A module that hangs: refused after security.policy_timeout_ms, not run; then the host serves on.
start=$(date +%s%N)
out=$(run "touch $ws/m7; echo hang-policy"); echo "$out"
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
expect 'did not answer within 1000 ms' "$out"; absent m7
[ "$elapsed_ms" -lt 5000 ] || { echo "the hang took $elapsed_ms ms to refuse"; exit 1; }
out=$(run "echo after-hang"); expect '"content":"after-hang' "$out"
grep -q 'policy.*decision.*"decision":"deny"' "$work/host.log"
kill -0 "$host_pid"

# A bad pattern or an unknown module stops the host at start, saying which.
set +e
out=$("$build_dir/bin/actionhost" 0 --host 127.0.0.1 --working-dir "$ws" --username root --user-id 0 \
  --plugin-dir "$plugins" --set 'security.deny_commands=["(unclosed"]' 2>&1); code=$?
set -e
[ "$code" -ne 0 ] && echo "$out" | grep -q 'security.deny_commands\[0\] `(unclosed` is not a valid regular expression'
set +e
out=$("$build_dir/bin/actionhost" 0 --host 127.0.0.1 --working-dir "$ws" --username root --user-id 0 \
  --plugin-dir "$plugins" --set 'security.policy_modules=bash' 2>&1); code=$?
set -e
[ "$code" -ne 0 ] && echo "$out" | grep -q "whose manifest does not say provides.policy"
echo "policy: rules, out-of-tree modules, confirmation, crash and hang all refused what they had to"
