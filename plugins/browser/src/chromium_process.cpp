#include "chromium_process.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <thread>

#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/process_state.hpp>

extern char **environ;

namespace actionhost::browser {
namespace fs = std::filesystem;

namespace {

bool executable_file(const std::string &p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && fs::is_regular_file(p); }

std::string on_path(const std::string &name) {
    const char *path = std::getenv("PATH");
    return path == nullptr ? "" : common::find_on_path(name, path);
}

// Chromium's first-run preferences: PDFs are downloaded instead of shown in the viewer (as Playwright's
// headless shell does, which has no viewer), downloads never prompt, and a site may download more
// than one file (Chromium blocks repeated automatic downloads by default).
void write_preferences(const std::string &user_data_dir) {
    fs::create_directories(user_data_dir + "/Default");
    std::ofstream prefs(user_data_dir + "/Default/Preferences");
    prefs << R"({"plugins":{"always_open_pdf_externally":true},"download":{"prompt_for_download":false,"directory_upgrade":true},)"
             R"("profile":{"default_content_setting_values":{"automatic_downloads":1}}})";
}

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
    write_preferences(user_data_dir_);

    std::vector<std::string> args = {
        options.executable,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--remote-debugging-port=0",
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
    for (const auto &a : options.extra_args) args.push_back(a);
    args.emplace_back("about:blank");

    // Chromium's own temporary files (the singleton socket dir) go inside the profile, so removing the
    // profile leaves nothing behind.
    const std::string own_tmp = user_data_dir_ + "/tmp";
    fs::create_directories(own_tmp);
    common::SpawnSpec spec;
    spec.argv = args;
    spec.env.emplace();
    for (char **e = environ; *e != nullptr; ++e)
        if (std::strncmp(*e, "TMPDIR=", 7) != 0) spec.env->emplace_back(*e);
    spec.env->push_back("TMPDIR=" + own_tmp);
    spec.use_pty = false;
    const std::string log_path = user_data_dir_ + "/chromium.log";
    spec.out = common::Stream::file(log_path, /*append=*/false);
    spec.err = common::Stream::to_stdout();
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

    // Chromium writes "<port>\n<browser ws path>" once the DevTools server listens.
    const auto deadline = std::chrono::steady_clock::now() + options.start_timeout;
    const std::string port_file = user_data_dir_ + "/DevToolsActivePort";
    while (true) {
        std::ifstream in(port_file);
        std::string port_line, path_line;
        if (in && std::getline(in, port_line) && std::getline(in, path_line) && !path_line.empty()) {
            port_ = std::atoi(port_line.c_str());
            ws_path_ = path_line;
            if (port_ > 0) break;
        }
        if (!running()) {
            std::string log;
            std::ifstream lf(log_path);
            std::getline(lf, log, '\0');
            if (log.size() > 2000) log = log.substr(log.size() - 2000);
            stop();
            throw std::runtime_error("chromium exited during start-up: " + log);
        }
        if (std::chrono::steady_clock::now() > deadline) {
            stop();
            throw std::runtime_error("chromium did not open its DevTools endpoint within " +
                                     std::to_string(options.start_timeout.count()) + " ms");
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

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
}

}  // namespace actionhost::browser
