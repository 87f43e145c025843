#include "progress.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>

#include "style.hpp"

namespace ahctl {

namespace {
std::string seconds(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2fs", s);
    return buf;
}
}  // namespace

std::string describe_status(const std::string &status) {
    std::string s = status.rfind("STATUS$", 0) == 0 ? status.substr(7) : status;
    for (auto &c : s) c = c == '_' ? ' ' : static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

Progress::Progress(std::string runtime_name, bool enabled)
    : runtime_(std::move(runtime_name)), enabled_(enabled), tty_(isatty(2) != 0), start_(std::chrono::steady_clock::now()),
      phase_("starting runtime") {
    if (enabled_ && tty_) {
        ticker_ = std::thread([this] {
            for (int i = 0; i < 36000 && !done_; ++i) {  // bounded: an hour of ticks at most
                draw(false);
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
            }
        });
    }
}

Progress::~Progress() { finish(); }

void Progress::on_status(const std::string &status, const std::string &detail) {
    if (!enabled_ || done_) return;
    {
        std::lock_guard lock(mutex_);
        phase_ = describe_status(status);
        if (!detail.empty() && status != "STATUS$READY") phase_ += " (" + detail + ")";
        if (status == "STATUS$READY") phase_ = "ready";
    }
    if (!tty_) draw(true);
}

void Progress::draw(bool final_line) {
    std::lock_guard lock(mutex_);
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    std::string phase = phase_;
    if (tty_ && phase.size() > 100) phase = phase.substr(0, 100) + "...";
    std::fprintf(stderr, "%s%s%s", tty_ ? "\r\033[K" : "",
                 dim("[ahctl] " + runtime_ + ": " + phase + " " + seconds(s)).c_str(), final_line ? "\n" : "");
    std::fflush(stderr);
}

void Progress::finish() {
    if (done_.exchange(true)) return;
    if (ticker_.joinable()) ticker_.join();
    // On a terminal the line goes once the runtime is ready: what follows is the command's output.
    if (enabled_ && tty_) {
        std::lock_guard lock(mutex_);
        if (phase_ == "ready") std::fputs("\r\033[K", stderr);
        else std::fputc('\n', stderr);  // a failure: the line says where it stopped
        std::fflush(stderr);
    }
}

}  // namespace ahctl
