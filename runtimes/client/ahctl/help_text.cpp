// ahctl's help: the overview (commands, global options, exit codes) and a short page per command with
// examples. A command's page does not repeat the global options; it points to `ahctl --help`.
#include <map>

#include "cli.hpp"

namespace ahctl {

namespace {

const char *const kGlobals =
    "Global options (before or after the command, never after `--`):\n"
    "  -c, --config FILE     config.toml to read (default: ./config.toml when present, yours,\n"
    "                        private and outside the workspace)\n"
    "  -r, --runtime NAME    runtime backend: sandbox (the default), local, docker, or a module's\n"
    "                        name (overrides [core] runtime and $RUNTIME)\n"
    "      --image REF       the sandbox's image ([sandbox] base_container_image): a registry reference,\n"
    "                        oci:DIR[:TAG], docker-archive:FILE; without one the sandbox runtime shows\n"
    "                        the machine's own /usr, read-only\n"
    "  -w, --workspace DIR   workspace directory ([core] workspace_base); must exist\n"
    "  -s, --session ID      a kept-alive runtime (from `ahctl start`); unknown ids are an error\n"
    "      --keep            keep the runtime alive after the command ([sandbox] keep_runtime_alive)\n"
    "  -p, --plugins A,B     host plugins to load at start (e.g. jupyter,agent_skills)\n"
    "      --plugin REF      install the plugin REF from a registry (with what it requires) into\n"
    "                        <state dir>/plugins and load it at start; repeatable (ahctl plugin --help)\n"
    "      --plugin-key PUB  --plugin REF must be signed by this Ed25519 public key; repeatable\n"
    "      --plugin-dir DIR  also load plugins from DIR (folders of manifest + .so); shown to a\n"
    "                        sandbox read-only at the same path; repeatable\n"
    "      --set S.K=V       set any config key, e.g. --set sandbox.timeout=300\n"
    "  -e, --env K=V         a variable for the sandbox (bash, ~/.bashrc, the kernel); repeatable\n"
    "      --publish P       publish the sandbox's TCP port once started: PORT, MACHINE_PORT:PORT or\n"
    "                        ADDRESS:MACHINE_PORT:PORT (as docker run -p); repeatable\n"
    "      --repo URL[@BR]   clone URL (branch BR) into the workspace at start ([sandbox] selected_repo)\n"
    "  -t, --timeout S       bound the action to S seconds (run: no bound unless given)\n"
    "  -j, --jobs N          start, run or stop at most N sandboxes at once (default 4 per core)\n"
    "      --json            print observations as JSON instead of their content\n"
    "  -q, --quiet           no progress line on stderr\n"
    "      --state-dir DIR   where kept-alive runtimes are recorded\n"
    "      --install-dir DIR actionhost install prefix (default: found from this binary)\n"
    "  -h, --help            help (ahctl COMMAND --help: that command's)\n"
    "      --version         print ahctl's version\n"
    "Colour on a terminal only, and never with NO_COLOR set.\n";

const char *const kOverview =
    "Usage: ahctl [options] <command> [args]\n\n"
    "Starts the configured actionhost runtime and runs actions in it.\n\n"
    "Commands:\n"
    "  run -- CMD...        run a shell command, its output live; exits with its exit code\n"
    "                       (no terminal unless --tty; -i forwards stdin, as docker run)\n"
    "  run --all -- CMD...  run it in every kept-alive runtime at once; one exit code each\n"
    "  ipython CODE         run Python code in the IPython kernel (started on first use)\n"
    "  edit CMD PATH ...    the file editor (view, create, str_replace, insert, undo_edit)\n"
    "  read PATH            print a file;  write PATH  writes stdin to a file\n"
    "  exec                 JSON action lines on stdin, observation lines on stdout\n"
    "  shell [NAME]         a terminal in the runtime, like docker exec -it (Ctrl-P Ctrl-Q detaches)\n"
    "  attach NAME          re-attach to a terminal left running by a detach\n"
    "  upload SRC DEST      copy a local file or directory into the runtime\n"
    "  download PATH OUT    save a zip of PATH from the runtime\n"
    "  start [--count N]    start runtimes and keep them alive (prints their session ids)\n"
    "  ps                   list kept-alive runtimes (with the time left of a sandbox.lifetime)\n"
    "  top [--once]         every kept-alive runtime's CPU, memory, disk and actions, refreshed\n"
    "  logs [-f] SID        a kept-alive runtime's host log (-f: follow it)\n"
    "  stop SID...|--all    stop kept-alive runtimes (at once, without asking them)\n"
    "  extend SID SECONDS   give a kept-alive sandbox SECONDS more of its sandbox.lifetime\n"
    "  runtimes             list the runtime backends found\n"
    "  env set K=V...       set variables in the running sandbox (bash, ~/.bashrc, kernel)\n"
    "  cp SRC DST           copy files/directories in or out; sandbox:PATH names the sandbox side\n"
    "  git changes|diff|clone|init   the workspace's git changes, a file's diff, clone, init\n"
    "  microagents          list .openhands/microagents/*.md of the workspace\n"
    "  snapshot NAME        keep a sandbox's files as the image NAME (-s SID); --image NAME starts from it\n"
    "  images               list the image store;  rmi NAME...  removes images\n"
    "  push NAME REF        send an image of the store (a snapshot) to a registry\n"
    "  plugin push|install|ls|rm|search   plugins over OCI registries, with versions and signatures\n"
    "  port [PORT [MPORT]]  publish a sandbox's TCP port on this machine (-s SID); lists them; --rm\n"
    "  ui [--open]          the web view's address with its key (-s SID)\n"
    "  net [allow|deny|remove RULE...|log]   a sandbox's egress policy (CIDRs, names), changed live (-s SID)\n"
    "  log SID [-f] [--verify]   a sandbox session's audit trail, kept outside it; --verify checks its hash chain\n"
    "  help COMMAND         help of one command (or: ahctl COMMAND --help)\n\n"
    "Examples:\n"
    "  ahctl -r sandbox run -- 'make test'\n"
    "  SID=$(ahctl -r sandbox start); ahctl -s $SID cp ./src sandbox:.; ahctl -s $SID run -- ls; ahctl stop $SID\n\n";

const char *const kExitCodes =
    "\nExit codes: 0 ok, 1 action failed, 2 usage, 3 config, 4 runtime start/stop failed,\n"
    "5 host unreachable or request refused, 124 command timed out, 130 interrupted (Ctrl-C);\n"
    "`run` exits with the command's code.\n";

const std::map<std::string, std::string> &pages() {
    static const std::map<std::string, std::string> texts = {
        {"run",
         "Usage: ahctl [options] run [-i] [--tty] [--cwd DIR] [--] CMD...\n"
         "       ahctl [options] run --agent [--blocking] [--is-input] [--] CMD...\n"
         "       ahctl [options] run --all [--jobs N] [--] CMD...\n\n"
         "Runs CMD (the words joined by spaces) in the runtime's bash session and prints its output as it\n"
         "comes, all of it, however long the command is quiet (-t S bounds it: then exit 124). Exits with\n"
         "the command's exit code. Its stdout goes to stdout, its stderr to stderr. As docker run, the\n"
         "command has no terminal: its stdin is empty (nothing waits for a key), stdout and stderr are\n"
         "pipes, nothing is added to its output (`exit 7`: no output, exit 7); the session's shell state\n"
         "(cd, variables) persists across runs in a kept session.\n"
         "  -i, --interactive  forward ahctl's stdin to the command, streamed, then end of file\n"
         "  --tty         run on the session's terminal instead (stdin and stdout a terminal, stderr a\n"
         "                pipe); --tty only: -t is --timeout. For typing into a terminal: ahctl shell\n"
         "  --cwd DIR     run in DIR\n"
         "  --agent       the agent's semantics instead: return after 10 s without new output (exit 124,\n"
         "                the command keeps running), print the observation (truncated as for the agent)\n"
         "  --blocking    with --agent: no 10 s return\n"
         "  --is-input    with --agent: send CMD as input to the running process (e.g. C-c)\n"
         "  --all         in every kept-alive runtime, N at once; prints `== SID exit CODE` and the\n"
         "                output of each in session order (--json: one {\"session_id\",\"exit_code\",\n"
         "                \"observation\"} line each). Exits 0 when every command exited 0, else 1.\n"
         "Ctrl-C interrupts the command (and ends a runtime this command started); exit 130.\n\n"
         "Examples:\n"
         "  ahctl -r sandbox run -- 'make -j2 test'\n"
         "  ahctl -r sandbox run -t 60 -- 'seq 1 200000' > numbers.txt\n"
         "  ahctl -s $SID run --cwd /workspace/src -- ls -la\n"
         "  echo x | ahctl run -i -- cat\n"
         "  tar c ./src | ahctl -s $SID run -i -- 'tar x -C /workspace'\n"},
        {"ipython",
         "Usage: ahctl [options] ipython CODE...|-\n\n"
         "Runs CODE (or stdin with -) in the IPython kernel. The jupyter plugin is loaded on first use, or at\n"
         "start with --plugins jupyter. Exits 1 when the code raised an exception.\n\n"
         "Examples:\n"
         "  ahctl -r sandbox -p jupyter ipython 'print(6*7)'\n"
         "  ahctl -s $SID ipython - < analysis.py\n"},
        {"edit",
         "Usage: ahctl [options] edit COMMAND PATH [--file-text T] [--old-str S] [--new-str S]\n"
         "                          [--insert-line N] [--view-range A B]\n\n"
         "The OpenHands file editor (str_replace_editor): COMMAND is view, create, str_replace, insert or\n"
         "undo_edit. `view` is sent as a read action with impl_source oh_aci, as OpenHands does.\n"
         "A value of - reads that text from stdin.\n\n"
         "Examples (one kept-alive runtime, so each call sees the last one's file):\n"
         "  ahctl -s $SID edit create /workspace/f.txt --file-text 'alpha'\n"
         "  ahctl -s $SID edit str_replace /workspace/f.txt --old-str alpha --new-str beta\n"
         "  ahctl -s $SID edit view /workspace/f.txt\n"},
        {"read",
         "Usage: ahctl [options] read PATH [--start N] [--end N]\n\n"
         "Prints the file (lines [start, end)) exactly. A missing file: message on stderr, exit 1.\n\n"
         "Example:\n  ahctl -s $SID read /workspace/notes.txt\n"},
        {"write",
         "Usage: ahctl [options] write PATH < CONTENT\n\n"
         "Writes stdin to PATH in the runtime, byte for byte.\n\n"
         "Example:\n  printf 'a\\nb\\n' | ahctl -s $SID write /workspace/ab.txt\n"},
        {"exec",
         "Usage: ahctl [options] exec < actions.jsonl\n\n"
         "Reads one action per line ({\"action\":\"run\",\"args\":{...}} or {\"action\":{...},\"session\":\"s\"}) and\n"
         "prints one observation per line as JSON, with the agent's semantics. Blank lines are skipped. A\n"
         "line that is not a JSON object gives an error observation. Exits 1 when any action failed to\n"
         "reach the host or was refused.\n\n"
         "Example:\n  echo '{\"action\":\"run\",\"args\":{\"command\":\"ls\"}}' | ahctl -r sandbox exec\n"},
        {"shell",
         "Usage: ahctl [options] shell [NAME]\n\n"
         "On a terminal: an interactive bash in the runtime, as `docker exec -it` gives: history, line editing,\n"
         "full-screen programs, Ctrl-C to the remote command, the window's size followed. The terminal is\n"
         "called NAME (a fresh name by default; NAME's running terminal is joined if there is one). `exit`\n"
         "ends it and ahctl exits with its status; Ctrl-P Ctrl-Q detaches and leaves it running.\n"
         "With stdin not a terminal: reads command lines and runs each in the runtime's bash session,\n"
         "printing output; while a command is still running, the next line is its input. `exit` or EOF ends.\n\n"
         "Examples:\n"
         "  ahctl -s $(ahctl start) shell work     # detach with Ctrl-P Ctrl-Q ...\n"
         "  ahctl -s SID attach work               # ... and come back later\n"
         "  printf 'cd /tmp\\npwd\\n' | ahctl shell  # line mode\n"},
        {"attach",
         "Usage: ahctl [options] attach NAME\n\n"
         "Joins the running terminal NAME (started by `ahctl shell NAME` or the web view and left by a detach)\n"
         "and shows its recent output first. Needs a kept-alive runtime (--session). Exits 1 when there is no\n"
         "terminal of that name.\n\n"
         "Example:\n  ahctl -s $SID attach work\n"},
        {"upload",
         "Usage: ahctl [options] upload SRC DEST\n\nCopies a local file or directory into DEST.\n\n"
         "Example:\n  ahctl -s $SID upload ./data /workspace\n"},
        {"download",
         "Usage: ahctl [options] download PATH OUT.zip\n\nSaves a zip of PATH from the runtime.\n\n"
         "Example:\n  ahctl -s $SID download /workspace/out out.zip\n"},
        {"start",
         "Usage: ahctl [options] start [--count N] [--jobs J]\n\nStarts a runtime (N runtimes, J at once), keeps it\n"
         "alive and prints its session id (one line each); use it with --session ID in later commands and\n"
         "`ahctl stop ID` at the end. Exits 4 when any start failed (the others are kept and printed).\n\n"
         "Examples:\n  SID=$(ahctl -r sandbox start)\n  ahctl -r sandbox start --count 8 > sids.txt\n"},
        {"ps",
         "Usage: ahctl [options] ps [--json]\n\nLists kept-alive runtimes: session id, runtime, state (alive,\n"
         "paused by its idle timeout, or unresponsive: it runs but does not answer), age since it first\n"
         "started, time left of its sandbox.lifetime (- for none), url. Records of runtimes\n"
         "that ended are removed first, with what those left on the machine.\n\n"
         "Example:\n  ahctl ps\n"},
        {"top",
         "Usage: ahctl [options] top [--interval S] [--once] [--json]\n\nShows every kept-alive runtime's figures from its\n"
         "host's GET /metrics: the sandbox's CPU use, memory and its limit, tasks, disk used, and the actions\n"
         "answered (FAILED: error observations and refused requests). Refreshed every S seconds (default 2)\n"
         "until interrupted; --once prints one table (CPU measured over half a second) and exits. A runtime\n"
         "that does not answer within 2 s is shown as unreachable.\n\n"
         "Examples:\n  ahctl top\n  ahctl top --once --json\n"},
        {"logs",
         "Usage: ahctl [options] logs [-f] SID\n\nPrints the recent log lines of a kept-alive runtime's host (the\n"
         "last 2000 lines or 1 MiB it keeps in memory); -f then follows new lines until interrupted.\n\n"
         "Examples:\n  ahctl logs $SID\n  ahctl logs -f $SID\n"},
        {"extend",
         "Usage: ahctl [options] extend SID SECONDS [--json]\n\nMoves the end of the kept-alive sandbox SID\n"
         "SECONDS later (sandbox.lifetime: it ends by itself, nothing left behind). SECONDS is a positive\n"
         "whole number. Asks the process that keeps the time outside the sandbox (the sandbox's supervisor,\n"
         "the local or docker keeper), without attaching: one its idle timeout paused stays paused. Exits 1\n"
         "for a sandbox started without a lifetime or an unknown SID, 4 when the runtime keeps no lifetime\n"
         "(the sandbox, local and docker runtimes do).\n\n"
         "Example:\n  ahctl -r sandbox --set sandbox.lifetime=3600 start\n  ahctl extend $SID 1800\n"},
        {"stop",
         "Usage: ahctl [options] stop SID...|--all [--jobs N]\n\nStops kept-alive runtimes, N at once. A sandbox\n"
         "runtime is ended without asking it (one that hangs or was stopped ends as fast).\n\n"
         "Examples:\n  ahctl stop $SID\n  ahctl stop --all\n"},
        {"env",
         "Usage: ahctl [options] env set KEY=VALUE...\n\n"
         "Sets variables in the runtime (use with --session ID for a kept-alive one): exported in the bash\n"
         "session, written to ~/.bashrc as `export KEY=...` (new shells and resumed sandboxes keep them) and,\n"
         "when the jupyter plugin is loaded, set in os.environ of the kernel. Keys are upper-cased. Any value\n"
         "is carried exactly (quotes, newlines, $, backticks, unicode). --env KEY=VALUE sets them at start.\n\n"
         "Example:\n  ahctl -s $SID env set API_URL=http://127.0.0.1:8080 MODE=test\n"},
        {"cp",
         "Usage: ahctl [options] cp SRC DST\n\n"
         "Copies between this machine and the runtime. The sandbox side is written sandbox:PATH (PATH absolute,\n"
         "or relative to the sandbox's workspace); the other side is a local path. DST is a directory.\n"
         "Directories are created as needed. A missing source is an error (exit 2 here, 1 in the sandbox).\n"
         "Files travel through temporary files, never whole in memory. Out of the sandbox, what a copy unpacks\n"
         "to is limited (--max-size SIZE, e.g. 16g; default 4g; a sparse file counts its full size and arrives\n"
         "sparse) and checked before anything is written. FIFOs, sockets and devices are never opened on\n"
         "either side: each is skipped and named on stderr. Both ways keep file modes (the executable bit;\n"
         "setuid, setgid and sticky never), modification times and symbolic links, copied as links and never\n"
         "followed; a link that leads out of the copied tree (absolute, or climbing above it) is skipped and\n"
         "named on stderr. Directories' own modes and times are not kept.\n"
         "What is copied into the sandbox belongs to the sandbox's user (the one commands run as), not root.\n\n"
         "Options:\n"
         "  --max-size SIZE   the most a copy out of the sandbox may unpack to (default 4g)\n\n"
         "Examples:\n"
         "  ahctl cp ./notes.txt sandbox:/workspace/docs     → /workspace/docs/notes.txt\n"
         "  ahctl cp ./src sandbox:/workspace                 → /workspace/src/... (sent as a zip)\n"
         "  ahctl cp sandbox:/workspace/out ./results         → ./results/out/...\n"
         "  ahctl cp sandbox:/workspace/a.log .               → ./a.log\n"},
        {"git",
         "Usage: ahctl [options] git changes [--cwd DIR]\n"
         "       ahctl [options] git diff PATH [--cwd DIR]\n"
         "       ahctl [options] git clone URL[@BRANCH]\n"
         "       ahctl [options] git init\n\n"
         "changes: the changed files of the repository at DIR (default: the workspace) and of every repository\n"
         "directly below it, one `STATUS<TAB>PATH` line each (M, A, D, U), against origin's branch or the\n"
         "empty tree as OpenHands computes it. diff: {\"original\",\"modified\"} of one file as JSON.\n"
         "clone: into <workspace>/<name>, on BRANCH or a new openhands-workspace-* branch; GITHUB_TOKEN,\n"
         "GITLAB_TOKEN or BITBUCKET_TOKEN of this environment is used for its host (GITHUB_HOST etc. for\n"
         "self-hosted ones) without appearing in any command, history or log. init: git init the workspace.\n\n"
         "Examples:\n  ahctl -s $SID git changes\n  ahctl -s $SID git diff src/main.c\n"},
        {"microagents",
         "Usage: ahctl [options] microagents [--root DIR]\n\n"
         "Lists the microagents of DIR/.openhands/microagents/*.md (default DIR: the workspace): one\n"
         "`NAME<TAB>PATH` line each; --json prints [{\"name\",\"path\",\"content\"}].\n\n"
         "Example:\n  ahctl -w ./repo -r sandbox microagents\n"},
        {"snapshot",
         "Usage: ahctl -s SID snapshot NAME\n\n"
         "Keeps what the kept-alive sandbox SID wrote over its image (packages installed, files anywhere but\n"
         "the workspace, which stays on this machine) as a new image NAME of the image store, and prints its\n"
         "digest. The sandbox is frozen while its files are read and runs on after, its processes untouched.\n"
         "Sandboxes started with --image NAME then start from it: a fork. Needs a sandbox started with\n"
         "--image, and its cgroup freezer (a root caller's sandbox). A name already in the store now means\n"
         "the new image. At most sandbox.image_max_size_mb of files (a sparse file counts at full size).\n\n"
         "Example:\n  SID=$(ahctl --image ./rootfs.oci start)\n  ahctl -s $SID run -- apt-get install -y ./tool.deb\n"
         "  ahctl -s $SID snapshot with-tool\n  ahctl --image with-tool run -- tool --version\n"},
        {"images",
         "Usage: ahctl [options] images [--json]\n\n"
         "Lists the images of the store (sandbox.image_store, else <state dir>/images): the names they were\n"
         "asked for or given by a snapshot, their manifest digests, when they were stored.\n\n"
         "Example:\n  ahctl images\n"},
        {"push",
         "Usage: ahctl [options] push NAME REGISTRY/PATH:TAG\n\n"
         "Sends the image NAME of the store (a snapshot, or anything pulled or imported) to a registry, without a\n"
         "daemon: the blobs the repository lacks, then the manifest under TAG; prints the manifest's digest. The\n"
         "docker runtime, Kubernetes and other machines can then run it. Credentials come from the docker CLI's\n"
         "config.json (docker login); plain http only for a registry on the loopback or listed in\n"
         "sandbox.insecure_registries.\n\n"
         "Example:\n  ahctl push with-tool registry.example.com/team/with-tool:1\n"},
        {"plugin",
         "Usage: ahctl [options] plugin push DIR REGISTRY/PATH[:TAG] [--sign KEY.pem]\n"
         "       ahctl [options] plugin install REGISTRY/PATH:TAG [--dir DIR] [--require-signature PUB.pem,...]\n"
         "       ahctl [options] --image BASE plugin install REGISTRY/PATH:TAG --as IMAGE [--require-signature ...]\n"
         "       ahctl [options] plugin ls [--dir DIR]\n"
         "       ahctl [options] plugin rm NAME... [--dir DIR]\n"
         "       ahctl [options] plugin search REGISTRY [WORD]\n\n"
         "Plugins shipped over OCI registries (docs/plugin-guide.md, \"Publishing and installing\").\n"
         "  push     packs the plugin folder DIR (manifest.json, library, resources) as an OCI artifact with the\n"
         "           manifest's name, version, ABI and platform (from the library's ELF) as annotations; TAG\n"
         "           defaults to the manifest's version. --sign: an Ed25519 private key (openssl genpkey\n"
         "           -algorithm ed25519); the signature is stored beside it under the tag sha256-<hex>.sig\n"
         "  install  fetches the artifact and the plugins its requires.plugins names (the highest tag of\n"
         "           REGISTRY/<same folder>/<name> in each range), verifies every digest, the ABI, the platform\n"
         "           and, with --require-signature, a signature by one of the public keys; then moves each\n"
         "           plugin into DIR atomically. Anything refused: nothing is written (exit 4).\n"
         "           DIR defaults to <install prefix>/lib/actionhost/plugins, where the host looks first.\n"
         "           --as IMAGE: into a new image of the store instead, BASE (--image) with one layer holding\n"
         "           the plugins in /usr/local/lib/actionhost/plugins; sandboxes started with --image IMAGE\n"
         "           load them\n"
         "  ls       the plugins of DIR, with where they were installed from\n"
         "  rm       removes plugins from DIR (refused while another plugin there requires one)\n"
         "  search   the plugin artifacts of a registry (its catalog and tags) with their annotations\n"
         "Credentials come from the docker CLI's config.json; plain http only for a registry on the loopback\n"
         "or listed in sandbox.insecure_registries.\n\n"
         "Examples:\n"
         "  ahctl plugin push build/hello registry.example.com/plugins/hello --sign ~/.config/actionhost/plugin-key.pem\n"
         "  ahctl plugin install registry.example.com/plugins/hello:1.2.0 --require-signature team.pub.pem\n"
         "  ahctl plugin search registry.example.com\n"
         "  ahctl --image debian:bookworm plugin install registry.example.com/plugins/hello:1.2.0 --as bookworm-hello\n"},
        {"rmi",
         "Usage: ahctl [options] rmi NAME...\n\n"
         "Removes images from the store, then every blob and unpacked layer no remaining image needs. An image\n"
         "a running sandbox stands on is refused (exit 1) until that sandbox stops; the layers of running\n"
         "sandboxes are never removed.\n\n"
         "Example:\n  ahctl rmi with-tool\n"},
        {"port",
         "Usage: ahctl -s SID port PORT [MACHINE_PORT] [--address IP]\n"
         "       ahctl -s SID port [--json]\n"
         "       ahctl -s SID port --rm PORT...\n"
         "(ahctl port SID ... reads the same.)\n\n"
         "Publishes the TCP port PORT of the kept-alive sandbox SID on this machine, at IP (default 127.0.0.1)\n"
         "and MACHINE_PORT (default: a free one), and prints where: 127.0.0.1:41234. Connections there are\n"
         "carried to PORT on the sandbox's own loopback (127.0.0.1, else ::1); the sandbox's network is not\n"
         "opened to the machine, with any sandbox.network. Without PORT, lists the published ports (among\n"
         "them OpenHands' APP_PORT_1, APP_PORT_2 and VSCODE_PORT, published at start); --rm stops publishing\n"
         "and closes their connections. Any number of ports; all end with the sandbox. Any local user can\n"
         "connect to a published port, as to docker run -p: publish only what may be seen.\n\n"
         "Example:\n  SID=$(ahctl start)\n  ahctl -s $SID run -- 'python3 -m http.server 8000 &'\n"
         "  curl http://$(ahctl -s $SID port 8000)/\n  ahctl --publish 8000 -r sandbox run -- python3 -m http.server 8000\n"},
        {"ui",
         "Usage: ahctl -s SID ui [--open]\n\n"
         "Prints the address of the kept-alive sandbox's web view (a terminal, the workspace's files, the\n"
         "newest screenshot) with its key: http://127.0.0.1:PORT/ui#key=KEY. The page signs in with the key\n"
         "and drops it from the address. A sandbox without the machine's network gets its host's port\n"
         "published for this (kept until it ends; the API behind it still needs the key). --open also opens it\n"
         "in the desktop's browser through a private page (/tmp/ahctl-ui-*/open.html, yours alone), never\n"
         "putting the key in a command line.\n\n"
         "Example:\n  ahctl -s $SID ui --open\n"},
        {"net",
         "Usage: ahctl -s SID net [--json]\n"
         "       ahctl -s SID net allow|deny|remove RULE...   (a RULE is a CIDR, an address or a domain name)\n"
         "       ahctl -s SID net log [--json]\n"
         "(ahctl net SID ... reads the same.)\n\n"
         "Shows the network mode of the kept-alive sandbox SID and, for network = \"internet\", its egress policy\n"
         "(sandbox.allow_out, sandbox.deny_out as they are now) and how many packets it refused. allow and deny\n"
         "change the policy while the sandbox runs (an entry allowed leaves the deny list and the reverse;\n"
         "once allow lists anything, nothing else goes out); remove takes entries out of either list. The\n"
         "filter is replaced in one step: no moment without it. log lists where refused TCP and UDP went\n"
         "(address, protocol, port, packets; the first 1024 destinations of each address family). A domain name\n"
         "(pypi.org, or *.github.com for every name below it) holds through the sandbox's resolver: the addresses\n"
         "it answers are let through (allow) or refused (deny) before the sandbox learns them; under an allow\n"
         "list other names get no answer. A name never opens the machine or a private range.\n\n"
         "Example:\n  ahctl -s $SID net allow 203.0.113.0/24 pypi.org '*.pythonhosted.org'\n  ahctl -s $SID net log\n"},
        {"log",
         "Usage: ahctl log SID [-f|--follow] [--json]\n"
         "       ahctl log SID --verify [--json]\n\n"
         "Shows the audit trail of the session SID: every action (its type and arguments, who sent it, the\n"
         "policy's decision) as it started, and its outcome (HTTP status, observation, exit code, size,\n"
         "duration) as it finished, with the supervisor's own entries (the sandbox started and ended, the host's\n"
         "channel closed, rotation). Kept by the sandbox backend only, outside the sandbox, in\n"
         "<state dir>/audit/SID/, and readable after the sandbox ended. -f follows new entries until Ctrl-C or\n"
         "the sandbox ends; --json prints one JSON object a line. --verify checks the hash chain (every\n"
         "entry's hash and link, no entry missing, moved, added or cut, rotation declared) and exits 1 naming\n"
         "the first break.\n\n"
         "Example:\n  ahctl log $SID -f\n  ahctl log $SID --verify\n"},
        {"runtimes",
         "Usage: ahctl [options] runtimes\n\nLists the runtime names the manifests on the search path provide.\n\n"
         "Example:\n  ahctl runtimes\n"},
    };
    return texts;
}

}  // namespace

std::optional<std::string> help_text(const std::string &command) {
    if (command.empty()) return std::string(kOverview) + kGlobals + kExitCodes;
    auto it = pages().find(command);
    if (it == pages().end()) return std::nullopt;
    return it->second + "\nGlobal options (-r, -s, -w, -t, ...): ahctl --help\n";
}

}  // namespace ahctl
