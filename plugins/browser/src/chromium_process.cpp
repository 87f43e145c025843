#include "chromium_process.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <actionhost/common/io/file_tail.hpp>
#include <actionhost/common/process/shell_identity.hpp>
#include <actionhost/common/process_state.hpp>

extern char **environ;

namespace actionhost::browser {
namespace fs = std::filesystem;

namespace {

bool executable_file(const std::string &p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

std::string on_path(const std::string &name) { return common::find_program(name); }

// Chromium's first-run preferences: PDFs are downloaded instead of shown in the viewer (as Playwright's
// headless shell does, which has no viewer), downloads never prompt, and a site may download more
// than one file (Chromium blocks repeated automatic downloads by default).
void write_preferences(const std::string &user_data_dir) {
    fs::create_directories(user_data_dir + "/Default");
    std::ofstream prefs(user_data_dir + "/Default/Preferences");
    prefs << R"({"plugins":{"always_open_pdf_externally":true},"download":{"prompt_for_download":false,"directory_upgrade":true},)"
             R"("profile":{"default_content_setting_values":{"automatic_downloads":1}}})";
}

// The profile is the browser user's: everything in it was made just now by us (no link to follow), and
// the top directory (root's, 0700, until its own chown, which comes last) keeps everyone else out while
// the entries below change hands. `keep` (the log) stays ours.
void hand_over(const std::string &dir, const common::UserSwitch &user, const std::string &keep) {
    for (const auto &entry : fs::recursive_directory_iterator(dir)) {
        if (entry.path() == keep) continue;
        if (::lchown(entry.path().c_str(), user.uid, user.gid) != 0)
            throw std::runtime_error("cannot give " + entry.path().string() + " to the browser's user: " + std::strerror(errno));
    }
    if (::lchown(dir.c_str(), user.uid, user.gid) != 0)
        throw std::runtime_error("cannot give the browser profile to uid " + std::to_string(user.uid) + ": " + std::strerror(errno));
}

// The host's environment without what the browser must never hold (the session key above all).
std::vector<std::string> host_environment_for_the_browser() {
    std::vector<std::string> env;
    for (char **e = environ; *e != nullptr; ++e)
        if (std::strncmp(*e, "SESSION_API_KEY=", 16) != 0) env.emplace_back(*e);
    return env;
}

// Set once a browser could not start with its own sandbox: the next ones start without it at once.
std::atomic<bool> g_own_sandbox_unusable{false};

}  // namespace

std::string find_chromium(const std::string &configured) {
    if (!configured.empty()) return executable_file(configured) ? configured : on_path(configured);
    if (executable_file("/usr/lib/chromium/chromium")) return "/usr/lib/chromium/chromium";
    for (const char *name : {"chromium", "chromium-browser", "google-chrome", "chrome"}) {
        std::string p = on_path(name);
        if (!p.empty()) return p;
    }
    return "";
}

ChromiumProcess::ChromiumProcess(const ChromiumOptions &options) {
    if (options.executable.empty()) throw std::runtime_error("no chromium executable found (install Debian's chromium package)");
    const char *tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp != nullptr && *tmp != '\0' ? tmp : "/tmp") + "/ah-chromium-XXXXXX";
    std::vector<char> buf(templ.begin(), templ.end());
    buf.push_back('\0');
    if (::mkdtemp(buf.data()) == nullptr) throw std::runtime_error(std::string("cannot create a user-data dir: ") + std::strerror(errno));
    user_data_dir_ = buf.data();
    // Chromium's own temporary files (the singleton socket dir) go inside the profile (mode 0700), so
    // removing the profile leaves nothing behind and no one else can reach its sockets.
    const std::string own_tmp = user_data_dir_ + "/tmp";
    try {
        write_preferences(user_data_dir_);
        fs::create_directories(own_tmp);
        log_.reset(::open((user_data_dir_ + "/chromium.log").c_str(), O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
        if (!log_) throw std::runtime_error("cannot create " + user_data_dir_ + "/chromium.log: " + std::strerror(errno));
        if (options.user) hand_over(user_data_dir_, *options.user, user_data_dir_ + "/chromium.log");
    } catch (...) {
        std::error_code ec;
        fs::remove_all(user_data_dir_, ec);
        throw;
    }
    // A uid other than root may keep the browser's own sandbox; as root Chromium refuses it.
    const uid_t browser_uid = options.user ? options.user->uid : ::geteuid();
    sandboxed_ = options.own_sandbox && browser_uid != 0;

    std::vector<std::string> args = {
        options.executable,
        "--headless",
        "--disable-gpu",
        // DevTools on the descriptors 3 (commands in) and 4 (answers and events out): no port.
        "--remote-debugging-pipe",
        "--user-data-dir=" + user_data_dir_,
        // No outside connections: this machine (and most sandboxes) refuse them, and they cost time.
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        "--no-default-browser-check",
        "--disable-default-apps",
        "--disable-extensions",
        "--disable-domain-reliability",
        "--disable-client-side-phishing-detection",
        "--disable-breakpad",
        "--metrics-recording-only",
        "--password-store=basic",
        "--use-mock-keychain",
        "--mute-audio",
        "--disable-dev-shm-usage",
        // As Playwright launches it for BrowserGym.
        "--hide-scrollbars",
        "--disable-back-forward-cache",
        "--force-color-profile=srgb",
        "--disable-features=Translate,MediaRouter,OptimizationHints,AutofillServerCommunication,DialMediaRouteProvider",
        "--window-size=" + std::to_string(options.width) + "," + std::to_string(options.height),
    };
    if (!sandboxed_) args.insert(args.begin() + 2, "--no-sandbox");
    for (const auto &a : options.extra_args) {
        // A DevTools port would undo the point of the pipes.
        if (a.rfind("--remote-debugging-port", 0) == 0 || a.rfind("--remote-debugging-address", 0) == 0) continue;
        args.push_back(a);
    }
    args.emplace_back("about:blank");

    int commands[2], answers[2];
    if (::pipe2(commands, O_CLOEXEC) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    if (::pipe2(answers, O_CLOEXEC) != 0) {
        ::close(commands[0]);
        ::close(commands[1]);
        throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
    }
    common::io::UniqueFd commands_theirs(commands[0]), answers_theirs(answers[1]);
    to_browser_.reset(commands[1]);
    from_browser_.reset(answers[0]);

    common::SpawnSpec spec;
    spec.argv = args;
    spec.env = options.env ? *options.env : host_environment_for_the_browser();
    for (auto it = spec.env->begin(); it != spec.env->end();)
        it = it->rfind("TMPDIR=", 0) == 0 || it->rfind("SESSION_API_KEY=", 0) == 0 ? spec.env->erase(it) : std::next(it);
    spec.env->push_back("TMPDIR=" + own_tmp);
    spec.use_pty = false;
    spec.out = common::Stream::descriptor(log_.get());
    spec.err = common::Stream::to_stdout();
    spec.user = options.user;
    spec.mapped_fds = {{commands_theirs.get(), 3}, {answers_theirs.get(), 4}};
    // A session of its own: the process group id is the browser's pid, and no terminal signals reach it.
    spec.new_session = true;
    auto started = common::ChildProcess::spawn(spec);
    if (!started) {
        std::error_code ec;
        fs::remove_all(user_data_dir_, ec);
        throw std::runtime_error(started.error().message);
    }
    child_ = std::move(started).value();
    group_ = child_->pid();
    // commands_theirs and answers_theirs close here: the browser holds the only copies, so its exit is
    // our end of file.
}

std::unique_ptr<CdpConnection> ChromiumProcess::connect(Clock::time_point deadline) {
    if (!to_browser_) throw std::runtime_error("the browser's DevTools pipes were handed on already");
    auto cdp = std::make_unique<CdpConnection>(std::move(to_browser_), std::move(from_browser_));
    try {
        cdp->call("Browser.getVersion", nlohmann::json::object(), "", deadline);
        return cdp;
    } catch (const CdpClosed &) {
        cdp.reset();
        // Its end of the pipe closed: it exited (or is exiting) during start-up.
        for (int i = 0; i < 100 && running(); ++i) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        throw std::runtime_error("chromium exited during start-up: " + log_tail());
    } catch (const CdpTimeout &) {
        throw std::runtime_error("chromium did not answer on its DevTools pipe in time: " + log_tail());
    }
}

std::string ChromiumProcess::log_tail() const { return common::io::file_tail(log_.get(), 2000); }

ChromiumProcess::~ChromiumProcess() { stop(); }

pid_t ChromiumProcess::pid() const { return child_ ? child_->pid() : -1; }

bool ChromiumProcess::running() {
    if (!child_) return false;
    if (child_->running()) return true;
    child_->signal_group(SIGKILL);  // exited: its helpers go too
    return false;
}

std::vector<pid_t> ChromiumProcess::group_pids() const {
    std::vector<pid_t> out;
    const pid_t group = group_;
    if (group <= 0) return out;
    DIR *d = ::opendir("/proc");
    if (d == nullptr) return out;
    while (dirent *e = ::readdir(d)) {
        pid_t p = std::atoi(e->d_name);
        if (p <= 0) continue;
        if (::getpgid(p) == group) out.push_back(p);
    }
    ::closedir(d);
    return out;
}

void ChromiumProcess::stop() {
    to_browser_.reset();
    from_browser_.reset();
    if (child_) {
        // SIGTERM to the browser process alone: it shuts down its helpers and reaps them (a host
        // running as PID 1 without a reaper would otherwise collect zombies). The group gets SIGKILL
        // afterwards for anything left.
        child_->terminate(std::chrono::seconds(3), /*term_group=*/false);
        // A killed helper takes a moment to end (tearing down a large address space, on a loaded
        // machine): wait, bounded, until none of the group runs, so nothing of the browser outlives
        // stop() and nothing writes into the profile while it is removed.
        for (int i = 0; i < 300; ++i) {
            bool live = false;
            for (pid_t p : group_pids()) live = live || common::process_is_live(p);
            if (!live) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        child_.reset();
        group_ = 0;
    }
    if (!user_data_dir_.empty()) {
        // Helpers may still be writing for a moment after the group was killed.
        for (int i = 0; i < 5; ++i) {
            std::error_code ec;
            fs::remove_all(user_data_dir_, ec);
            if (!fs::exists(user_data_dir_)) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
        user_data_dir_.clear();
    }
    log_.reset();
}

StartedChromium start_chromium(ChromiumOptions options, Clock::time_point deadline) {
    StartedChromium out;
    if (options.own_sandbox && g_own_sandbox_unusable.load()) options.own_sandbox = false;
    out.process = std::make_unique<ChromiumProcess>(options);
    try {
        out.cdp = out.process->connect(deadline);
        return out;
    } catch (const std::runtime_error &e) {
        if (!out.process->sandboxed()) throw;
        const std::string first = e.what();
        out.process->stop();
        options.own_sandbox = false;
        out.process = std::make_unique<ChromiumProcess>(options);
        out.cdp = out.process->connect(deadline);  // its failure is the one to report
        if (!g_own_sandbox_unusable.exchange(true)) {
            std::string why = first.substr(0, 300);
            for (char &c : why)
                if (c == '\n') c = ' ';
            out.note = "the browser runs without its own sandbox: it could not start with it here (" + why +
                       "). The sandbox around the host is its boundary.";
        }
        return out;
    }
}

}  // namespace actionhost::browser
