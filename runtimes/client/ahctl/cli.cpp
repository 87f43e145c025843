#include "cli.hpp"

#include <set>

namespace ahctl {

namespace {

const std::set<std::string> kCommands = {"run", "ipython", "edit", "read", "write", "exec", "shell", "attach", "upload",
                                         "download", "start", "ps", "stop", "runtimes", "help",
                                         "env", "git", "microagents", "cp"};

std::string need_value(int &i, int argc, char **argv, const std::string &name) {
    if (i + 1 >= argc) throw UsageError("option " + name + " needs a value");
    return argv[++i];
}

size_t positive_count(const std::string &name, const std::string &v) {
    try {
        size_t used = 0;
        const long long n = std::stoll(v, &used);
        if (used == v.size() && n > 0 && n <= 1'000'000) return static_cast<size_t>(n);
    } catch (...) {
    }
    throw UsageError(name + " needs a positive whole number, got: " + v);
}

}  // namespace

Options parse_command_line(int argc, char **argv) {
    Options o;
    bool after_dashdash = false;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (after_dashdash) {
            o.args.push_back(a);
            continue;
        }
        if (a == "--") {
            after_dashdash = true;
            continue;
        }
        // --name=value spelling
        std::string value_inline;
        bool has_inline = false;
        if (a.rfind("--", 0) == 0 && a.find('=') != std::string::npos) {
            value_inline = a.substr(a.find('=') + 1);
            a = a.substr(0, a.find('='));
            has_inline = true;
        }
        auto value = [&](const std::string &name) { return has_inline ? value_inline : need_value(i, argc, argv, name); };
        if (a == "-h" || a == "--help") o.help = true;
        else if (a == "--config" || a == "-c") o.config_path = value(a);
        else if (a == "--runtime" || a == "-r") o.runtime = value(a);
        else if (a == "--workspace" || a == "-w") o.workspace = value(a);
        else if (a == "--session" || a == "-s") o.session = value(a);
        else if (a == "--state-dir") o.state_dir = value(a);
        else if (a == "--install-dir") o.install_dir = value(a);
        else if (a == "--keep") o.keep = true;
        else if (a == "--quiet" || a == "-q") o.quiet = true;
        else if (a == "--json") o.json = true;
        else if (a == "--all") o.all = true;
        else if (a == "--count") o.count = positive_count(a, value(a));
        else if (a == "--jobs" || a == "-j") o.jobs = positive_count(a, value(a));
        else if (a == "--plugins" || a == "-p") {
            std::string list = value(a);
            size_t start = 0;
            while (start <= list.size()) {
                size_t comma = list.find(',', start);
                std::string p = list.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
                if (!p.empty()) o.plugins.push_back(p);
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
        } else if (a == "--plugin-dir") {
            o.plugin_dirs.push_back(value(a));
        } else if (a == "--set") {
            std::string kv = value(a);
            auto eq = kv.find('=');
            if (eq == std::string::npos || kv.find('.') > eq) throw UsageError("--set needs section.key=value, got: " + kv);
            o.sets.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        } else if (a == "--env" || a == "-e") {
            std::string kv = value(a);
            auto eq = kv.find('=');
            if (eq == std::string::npos || eq == 0) throw UsageError("--env needs KEY=VALUE, got: " + kv);
            o.env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
        } else if (a == "--repo") {
            o.repo = value(a);
        } else if (a == "--timeout" || a == "-t") {
            std::string v = value(a);
            try {
                size_t used = 0;
                o.timeout = std::stod(v, &used);
                if (used != v.size() || *o.timeout <= 0) throw 0;
            } catch (...) {
                throw UsageError("--timeout needs a positive number of seconds, got: " + v);
            }
        } else if (o.command.empty() && a.rfind("-", 0) != 0) {
            if (!kCommands.count(a)) throw UsageError("unknown command '" + a + "' (see ahctl --help)");
            o.command = a;
        } else {
            o.args.push_back(has_inline ? a + "=" + value_inline : a);
        }
    }
    if (o.command == "help") {
        o.help = true;
        o.command = o.args.empty() ? "" : o.args[0];
        o.args.clear();
    }
    return o;
}

std::optional<std::string> help_text(const std::string &command) {
    static const std::string globals =
        "Global options (before or after the command):\n"
        "  -c, --config FILE     config.toml to read (default: ./config.toml when present, yours,\n"
        "                        private and outside the workspace)\n"
        "  -r, --runtime NAME    runtime backend: local, sandbox, docker, or a module's name\n"
        "                        (overrides [core] runtime and $RUNTIME)\n"
        "  -w, --workspace DIR   workspace directory ([core] workspace_base)\n"
        "  -s, --session ID      session id; reattaches to a kept-alive runtime of that id\n"
        "      --keep            keep the runtime alive after the command ([sandbox] keep_runtime_alive)\n"
        "  -p, --plugins A,B     host plugins to load at start (e.g. jupyter,agent_skills)\n"
        "      --plugin-dir DIR  also load plugins from DIR (folders of manifest + .so); shown to a\n"
        "                        sandbox read-only at the same path; repeatable\n"
        "      --set S.K=V       set any config key, e.g. --set sandbox.timeout=300\n"
        "  -e, --env K=V         a variable for the sandbox (bash, ~/.bashrc, the kernel); repeatable\n"
        "      --repo URL[@BR]   clone URL (branch BR) into the workspace at start ([sandbox] selected_repo)\n"
        "  -t, --timeout S       hard timeout of the action in seconds (default [sandbox] timeout)\n"
        "  -j, --jobs N          start, run or stop at most N sandboxes at once (default 4 per core)\n"
        "      --json            print observations as JSON instead of their content\n"
        "  -q, --quiet           no progress line on stderr\n"
        "      --state-dir DIR   where kept-alive runtimes are recorded\n"
        "      --install-dir DIR actionhost install prefix (default: found from this binary)\n"
        "  -h, --help            this help\n";
    static const std::map<std::string, std::string> texts = {
        {"",
         "Usage: ahctl [options] <command> [args]\n\n"
         "Starts the configured actionhost runtime and runs actions in it.\n\n"
         "Commands:\n"
         "  run -- CMD...        run a shell command; exits with its exit code\n"
         "  run --all -- CMD...  run it in every kept-alive runtime at once; one exit code each\n"
         "  ipython CODE         run Python code in the IPython kernel (needs --plugins jupyter)\n"
         "  edit CMD PATH ...    the file editor (view, create, str_replace, insert, undo_edit)\n"
         "  read PATH            print a file;  write PATH  writes stdin to a file\n"
         "  exec                 JSON action lines on stdin, observation lines on stdout\n"
         "  shell [NAME]         a terminal in the runtime, like docker exec -it (Ctrl-P Ctrl-Q detaches)\n"
         "  attach NAME          re-attach to a terminal left running by a detach\n"
         "  upload SRC DEST      copy a local file or directory into the runtime\n"
         "  download PATH OUT    save a zip of PATH from the runtime\n"
         "  start [--count N]     start runtimes and keep them alive (prints their session ids)\n"
         "  ps                   list kept-alive runtimes\n"
         "  stop SID...|--all    stop kept-alive runtimes (at once, without asking them)\n"
         "  runtimes             list the runtime backends found\n"
         "  env set K=V...       set variables in the running sandbox (bash, ~/.bashrc, kernel)\n"
         "  cp SRC DST           copy files/directories in or out; sandbox:PATH names the sandbox side\n"
         "  git changes|diff|clone|init   the workspace's git changes, a file's diff, clone, init\n"
         "  microagents          list .openhands/microagents/*.md of the workspace\n"
         "  help COMMAND         help of one command\n\n" +
             globals +
             "\nExit codes: 0 ok, 1 action failed, 2 usage, 3 config, 4 runtime start/stop failed,\n"
             "5 host unreachable or request refused, 124 command timed out; `run` exits with the command's code.\n"},
        {"run",
         "Usage: ahctl [options] run [--is-input] [--blocking] [--cwd DIR] [--] CMD...\n"
         "       ahctl [options] run --all [--jobs N] [--] CMD...\n\n"
         "Runs CMD (the words joined by spaces) in the runtime's persistent bash session and prints its\n"
         "output. Exits with the command's exit code; 124 when it did not finish (exit code -1).\n"
         "  --is-input    send CMD as input to the running process (e.g. C-c)\n"
         "  --blocking    wait for the full --timeout instead of the 10 s no-output soft timeout\n"
         "  --cwd DIR     run in DIR\n"
         "  --all         run CMD in every kept-alive runtime of the state directory, N at once; prints\n"
         "                `== SID exit CODE` and the output of each, in session order (with --json one\n"
         "                {\"session_id\",\"exit_code\",\"observation\"} line each). Exits 0 when every\n"
         "                command exited 0, else 1.\n"},
        {"ipython",
         "Usage: ahctl [options] ipython CODE...|-\n\n"
         "Runs CODE (or stdin with -) in the IPython kernel; start with --plugins jupyter.\n"},
        {"edit",
         "Usage: ahctl [options] edit COMMAND PATH [--file-text T] [--old-str S] [--new-str S]\n"
         "                          [--insert-line N] [--view-range A B]\n\n"
         "The OpenHands file editor (str_replace_editor): COMMAND is view, create, str_replace, insert or\n"
         "undo_edit. `view` is sent as a read action with impl_source oh_aci, as OpenHands does.\n"
         "A value of - reads that text from stdin.\n"},
        {"read", "Usage: ahctl [options] read PATH [--start N] [--end N]\n\nPrints the file (lines [start, end)).\n"},
        {"write", "Usage: ahctl [options] write PATH\n\nWrites stdin to PATH in the runtime.\n"},
        {"exec",
         "Usage: ahctl [options] exec < actions.jsonl\n\n"
         "Reads one action per line ({\"action\":\"run\",\"args\":{...}} or {\"action\":{...},\"session\":\"s\"}) and\n"
         "prints one observation per line as JSON. Blank lines are skipped. A line that is not a JSON object\n"
         "gives an error observation. Exits 1 when any action failed to reach the host or was refused.\n"},
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
         "terminal of that name.\n"},
        {"upload", "Usage: ahctl [options] upload SRC DEST\n\nCopies a local file or directory into DEST.\n"},
        {"download", "Usage: ahctl [options] download PATH OUT.zip\n\nSaves a zip of PATH from the runtime.\n"},
        {"start",
         "Usage: ahctl [options] start [--count N] [--jobs J]\n\nStarts a runtime (N runtimes, J at once), keeps it\n"
         "alive and prints its session id (one line each); use it with --session ID in later commands and\n"
         "`ahctl stop ID` at the end. Exits 4 when any start failed (the others are kept and printed).\n"},
        {"ps",
         "Usage: ahctl [options] ps\n\nLists kept-alive runtimes: session id, runtime, state (alive, or\n"
         "unresponsive: it runs but does not answer), age since it started, url. Records of runtimes that\n"
         "ended are removed first, with what those left on the machine.\n"},
        {"stop",
         "Usage: ahctl [options] stop SID...|--all [--jobs N]\n\nStops kept-alive runtimes, N at once. A sandbox\n"
         "runtime is ended without asking it (one that hangs or was stopped ends as fast).\n"},
        {"env",
         "Usage: ahctl [options] env set KEY=VALUE...\n\n"
         "Sets variables in the runtime (use with --session ID for a kept-alive one): exported in the bash\n"
         "session, written to ~/.bashrc as `export KEY=...` (new shells and resumed sandboxes keep them) and,\n"
         "when the jupyter plugin is loaded, set in os.environ of the kernel. Keys are upper-cased. Any value\n"
         "is carried exactly (quotes, newlines, $, backticks, unicode). --env KEY=VALUE sets them at start.\n"},
        {"cp",
         "Usage: ahctl [options] cp SRC DST\n\n"
         "Copies between this machine and the runtime. The sandbox side is written sandbox:PATH (PATH absolute,\n"
         "or relative to the sandbox's workspace); the other side is a local path. DST is a directory:\n"
         "  ahctl cp ./notes.txt sandbox:/workspace/docs     → /workspace/docs/notes.txt\n"
         "  ahctl cp ./src sandbox:/workspace                 → /workspace/src/... (sent as a zip)\n"
         "  ahctl cp sandbox:/workspace/out ./results         → ./results/out/...\n"
         "  ahctl cp sandbox:/workspace/a.log .               → ./a.log\n"
         "Directories are created as needed.\n"},
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
         "self-hosted ones) without appearing in any command, history or log. init: git init the workspace.\n"},
        {"microagents",
         "Usage: ahctl [options] microagents [--root DIR]\n\n"
         "Lists the microagents of DIR/.openhands/microagents/*.md (default DIR: the workspace): one\n"
         "`NAME<TAB>PATH` line each; --json prints [{\"name\",\"path\",\"content\"}].\n"},
        {"runtimes", "Usage: ahctl [options] runtimes\n\nLists the runtime names the manifests on the search path provide.\n"},
    };
    auto it = texts.find(command);
    if (it == texts.end()) return std::nullopt;
    return command.empty() ? it->second : it->second + "\n" + globals;
}

}  // namespace ahctl
