#include "bash_session.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/stat.h>
#include <termios.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <utility>

#include "command_splitter.hpp"
#include "messages.hpp"
#include <actionhost/common/shell_quote.hpp>

namespace actionhost::bash {

namespace {

using Clock = std::chrono::steady_clock;

constexpr auto kStartTimeout = std::chrono::seconds(30);
// Hidden observations are not truncated by OpenHands; this bounds what one may hold.
constexpr size_t kHiddenLimitChars = 4'000'000;
// A terminal in canonical mode keeps at most 4095 bytes of one input line; longer lines are sourced
// from a file instead of typed.
constexpr size_t kMaxTypedLine = 4000;
// How long a key sent beside a running call waits for that call's command to end.
constexpr auto kKeyBesideWait = std::chrono::seconds(10);
// How often a key sent beside a running call checks whether it reached the shell instead of the job.
constexpr auto kKeyResendCheck = std::chrono::milliseconds(100);
// How often a command's stdin pipe is looked at until the command opens it (see try_open_stdin).
constexpr auto kStdinOpenCheck = std::chrono::milliseconds(2);
// How long POST /stdin waits for a command of the session to read stdin, and at most for its bytes to go.
constexpr auto kStdinCommandWait = std::chrono::seconds(5);
// How long the terminal stays with the action thread after an action ends before the reader thread
// takes it back. An agent in a loop sends its next action sooner, and then neither handover costs a
// wake-up; between slower steps, output of background jobs waits this long in the terminal's buffer.
constexpr auto kReaderResumeDelay = std::chrono::milliseconds(50);
constexpr common::LogLevel kLogWarning = common::LogLevel::Warning;
constexpr common::LogLevel kLogInfo = common::LogLevel::Info;

std::string strip(std::string_view s) {
    const char *ws = " \t\n\r\f\v";
    const size_t b = s.find_first_not_of(ws);
    if (b == std::string_view::npos) return "";
    const size_t e = s.find_last_not_of(ws);
    return std::string(s.substr(b, e - b + 1));
}

std::string shell_quote(std::string_view s) { return common::shell_word(s); }

}  // namespace

// The observation's metadata of the prompt a command ended at (OpenHands' CmdOutputMetadata), with the
// python interpreter that prompt's PATH and directory give the shell's user (python_lookup.hpp). Under mu_.
RunMetadata BashSession::metadata_of(const PromptInfo &p) {
    RunMetadata m;
    m.exit_code = p.exit_code;
    m.pid = p.pid;
    m.username = p.username;
    m.hostname = p.hostname;
    m.working_dir = p.working_dir;
    m.py_interpreter_path = python_lookup_.find(p.path, p.working_dir, *config_.identity);
    return m;
}

bool is_special_key(std::string_view command) {
    const std::string c = strip(command);
    return c.size() == 3 && c[0] == 'C' && c[1] == '-';
}

std::string special_key_bytes(std::string_view command) {
    const std::string c = strip(command);
    const char k = c[2];
    if (k >= 'a' && k <= 'z') return std::string(1, static_cast<char>(k - 'a' + 1));
    if (k >= '@' && k <= '_') return std::string(1, static_cast<char>(k - '@'));
    if (k == '?') return std::string(1, '\x7f');
    if (k == ' ') return std::string(1, '\0');
    return c;  // not a control key: typed as text, as tmux would
}

BashSession::BashSession(SessionConfig config)
    : config_(std::move(config)), marker_(random_nonce()), output_(), after_() {}

BashSession::~BashSession() {
    shutdown();
    stop_reader();
    shell_.reset();
    for (int fd : {stderr_read_fd_, stderr_hold_fd_, stdout_read_fd_, stdout_hold_fd_})
        if (fd >= 0) close(fd);
    close_stdin();
    if (!private_dir_.empty()) {
        std::error_code ec;
        std::filesystem::remove_all(private_dir_, ec);
    }
}

void BashSession::log(common::LogLevel level, const std::string &msg) const {
    if (config_.log) config_.log(level, "bash session '" + config_.name + "': " + msg);
}

std::string BashSession::current_dir() const {
    std::lock_guard<std::mutex> lk(mu_);
    return last_prompt_.working_dir.empty() ? config_.working_dir : last_prompt_.working_dir;
}

pid_t BashSession::shell_pid() const {
    std::lock_guard<std::mutex> lk(mu_);
    return shell_ ? shell_->pid() : -1;
}

// ---- starting -------------------------------------------------------------------------------------------

common::Status BashSession::ensure_private_dir() {
    if (!private_dir_.empty()) return common::ok();
    const char *tmp = std::getenv("TMPDIR");
    std::string templ = std::string(tmp && *tmp ? tmp : "/tmp") + "/actionhost-bash-XXXXXX";
    if (mkdtemp(templ.data()) == nullptr)
        return common::fail(std::string("cannot create a private directory: ") + std::strerror(errno), errno);
    // Held before the shell's user may touch it: a rename or a link swapped in later never redirects us.
    common::io::UniqueFd dir(::open(templ.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!dir) {
        const int err = errno;
        ::rmdir(templ.c_str());
        return common::fail("cannot open the private directory " + templ + ": " + std::strerror(err), err);
    }
    private_dir_ = templ;
    private_dir_fd_ = std::move(dir);
    if (config_.identity->switch_user && fchown(private_dir_fd_.get(), config_.identity->uid, config_.identity->gid) != 0)
        log(kLogWarning, "cannot hand " + private_dir_ + " to the shell's user: " + std::strerror(errno));
    return common::ok();
}

common::Status BashSession::make_fifo(const std::string &name) {
    const int dir = private_dir_fd_.get();
    if (unlinkat(dir, name.c_str(), 0) != 0 && errno != ENOENT)
        return common::fail("cannot replace " + private_dir_ + "/" + name + ": " + std::strerror(errno), errno);
    if (mkfifoat(dir, name.c_str(), 0600) != 0)
        return common::fail("cannot create the FIFO " + private_dir_ + "/" + name + ": " + std::strerror(errno), errno);
    // Not following a link: one swapped in since is changed itself, never what it names.
    if (config_.identity->switch_user &&
        fchownat(dir, name.c_str(), config_.identity->uid, config_.identity->gid, AT_SYMLINK_NOFOLLOW) != 0)
        log(kLogWarning, "cannot hand " + private_dir_ + "/" + name + " to the shell's user: " + std::strerror(errno));
    return common::ok();
}

int BashSession::open_private_fifo(const std::string &name, int flags) {
    const int fd = openat(private_dir_fd_.get(), name.c_str(), flags | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return -1;
    struct stat st {};
    if (fstat(fd, &st) != 0 || !S_ISFIFO(st.st_mode)) {
        close(fd);
        errno = EINVAL;
        return -1;
    }
    return fd;
}

common::Result<std::string> BashSession::write_private_file(const std::string &name, const std::string &content) {
    const int dir = private_dir_fd_.get();
    const std::string path = private_dir_ + "/" + name;
    if (unlinkat(dir, name.c_str(), 0) != 0 && errno != ENOENT)
        return common::fail("cannot replace " + path + ": " + std::strerror(errno), errno);
    // O_EXCL: a name planted again since the unlink (a link, a FIFO) fails the write, never redirects it.
    common::io::UniqueFd out(openat(dir, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644));
    if (!out) return common::fail("cannot write " + path + ": " + std::strerror(errno), errno);
    for (size_t done = 0; done < content.size();) {
        const ssize_t n = ::write(out.get(), content.data() + done, content.size() - done);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) return common::fail("cannot write " + path + ": " + std::strerror(errno), errno);
        done += static_cast<size_t>(n);
    }
    fchmod(out.get(), 0644);  // the shell's user reads it whatever the umask
    return path;
}

common::Status BashSession::open_output_fifo(const std::string &name, std::string &path, int &read_fd, int &hold_fd) {
    if (read_fd >= 0) return common::ok();
    const std::string at = private_dir_ + "/" + name;
    if (auto made = make_fifo(name); !made) return made;
    // The read end first (a non-blocking open of a FIFO's write end fails without a reader).
    const int rd = open_private_fifo(name, O_RDONLY | O_NONBLOCK);
    const int hold = rd >= 0 ? open_private_fifo(name, O_WRONLY | O_NONBLOCK) : -1;
    if (hold < 0) {
        const int err = errno;
        if (rd >= 0) close(rd);
        return common::fail("cannot open the " + name + " FIFO " + at + ": " + std::strerror(err), err);
    }
    path = at;
    read_fd = rd;
    hold_fd = hold;
    return common::ok();
}

common::Result<std::string> BashSession::write_rcfile(const std::string &start_dir) {
    std::string rc;
    if (config_.identity->login_profile) {
        // What `su -` reads: the system profile, then the user's first login file.
        rc += "[ -r /etc/profile ] && . /etc/profile\n";
        rc += "if [ -r ~/.bash_profile ]; then . ~/.bash_profile; elif [ -r ~/.bash_login ]; then . ~/.bash_login; "
              "elif [ -r ~/.profile ]; then . ~/.profile; fi\n";
    } else {
        rc += "[ -r ~/.bashrc ] && . ~/.bashrc\n";
    }
    rc += "PS2=''\nexport PS2\n";
    rc += marker_.prompt_setup();
    // OpenHands' init command: no pager may wait for a key that never comes.
    rc += "alias git=\"git --no-pager\"\n";
    rc += "cd -- " + shell_quote(start_dir) + " 2>/dev/null\n";
    return write_private_file("bashrc", rc);
}

common::Status BashSession::start() {
    stop_reader();
    std::unique_ptr<common::ChildProcess> old;
    {
        std::lock_guard<std::mutex> lk(mu_);
        old = std::move(shell_);
    }
    old.reset();  // kills what is left of a previous shell's session
    if (auto dir = ensure_private_dir(); !dir) return dir;
    if (auto fifo = open_output_fifo("stderr", stderr_fifo_, stderr_read_fd_, stderr_hold_fd_); !fifo) return fifo;
    if (auto fifo = open_output_fifo("stdout", stdout_fifo_, stdout_read_fd_, stdout_hold_fd_); !fifo) return fifo;
    close_stdin();

    std::string start_dir = config_.working_dir;
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (!last_prompt_.working_dir.empty() && std::filesystem::is_directory(last_prompt_.working_dir))
            start_dir = last_prompt_.working_dir;
        scanner_ = std::make_unique<MarkerScanner>(marker_);
        normalizer_ = OutputNormalizer();
        emit_utf8_ = Utf8Chunker();
        emit_stderr_utf8_ = Utf8Chunker();
        stderr_normalizer_ = OutputNormalizer();
        stderr_text_ = ObservationText();
        stderr_separate_ = false;
        notty_ = false;
        emit_stdout_utf8_ = Utf8Chunker();
        stdout_normalizer_ = OutputNormalizer();
        command_typed_ = false;
        output_ = ObservationText();
        after_ = ObservationText();
        completed_.reset();
        awaiting_prompt_ = false;
        first_prompt_seen_ = false;
        shell_exited_ = false;
        shell_exit_code_ = -1;
        worker_reads_ = false;
        reader_resume_at_ = {};
        reader_polling_ = false;
        reader_stop_ = false;
    }
    const auto written = write_rcfile(start_dir);
    if (!written) return written.as_failure();
    const std::string &rcfile = written.value();

    common::SpawnSpec spec;
    spec.program = config_.bash_path;
    spec.argv = {"bash", "--noediting", "--rcfile", rcfile, "-i"};
    spec.identity = config_.identity.get();
    spec.working_dir = start_dir;
    spec.use_pty = true;
    auto started = common::ChildProcess::spawn(spec);
    if (!started) {
        unlink(rcfile.c_str());
        return started.as_failure();
    }
    std::unique_ptr<common::ChildProcess> shell = std::move(started).value();
    const int wake = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    {
        std::lock_guard<std::mutex> lk(mu_);
        shell_ = std::move(shell);
        wake_fd_ = wake;
        reader_ = std::thread(&BashSession::reader_loop, this, shell_.get(), wake);
    }
    bool ready = false;
    std::string why_not;
    {
        std::unique_lock<std::mutex> lk(mu_);
        cv_.wait_until(lk, Clock::now() + kStartTimeout,
                       [&] { return first_prompt_seen_ || shell_exited_ || stopping_; });
        ready = first_prompt_seen_;
        if (!ready) why_not = shell_exited_ ? "bash exited during start-up" : "bash showed no prompt within 30 s";
    }
    unlink(rcfile.c_str());
    if (ready) return common::ok();
    stop_reader();
    std::lock_guard<std::mutex> lk(mu_);
    shell_.reset();
    return common::fail(why_not);
}

void BashSession::stop_reader() {
    std::thread t;
    int wake = -1;
    {
        std::lock_guard<std::mutex> lk(mu_);
        t = std::move(reader_);
        wake = wake_fd_;
        wake_fd_ = -1;
        reader_stop_ = true;
    }
    reader_cv_.notify_all();
    if (wake >= 0) {
        const uint64_t one = 1;
        ssize_t ignored = write(wake, &one, sizeof one);
        (void)ignored;
    }
    if (t.joinable()) t.join();
    if (wake >= 0) close(wake);
}

void BashSession::shutdown() {
    std::lock_guard<std::mutex> lk(mu_);
    {
        std::lock_guard<std::mutex> in(stdin_mu_);
        stdin_stopping_ = true;
        stdin_cv_.notify_all();
    }
    stopping_ = true;
    if (shell_) shell_->kill_session();
    cv_.notify_all();
}

// ---- the reader thread ----------------------------------------------------------------------------------

void BashSession::reader_loop(common::ChildProcess *shell, int wake_fd) {
    std::vector<char> buf(1 << 16);
    // The FIFO last, so the shell's pidfd keeps its index; -1 entries are ignored by poll.
    pollfd fds[5] = {{shell->output_fd(), POLLIN, 0}, {wake_fd, POLLIN, 0}, {shell->pidfd(), POLLIN, 0},
                     {stderr_read_fd_, POLLIN, 0}, {stdout_read_fd_, POLLIN, 0}};
    const nfds_t nfds = 5;
    const bool has_pidfd = shell->pidfd() >= 0;
    for (;;) {
        {
            // Parked while an action reads the terminal itself, and for a moment after it (see
            // kReaderResumeDelay); bounded, so a missed notification costs at most that long.
            std::unique_lock<std::mutex> lk(mu_);
            reader_polling_ = false;
            for (int i = 0; i < 1'000'000 && !reader_stop_; ++i) {
                const auto now = Clock::now();
                if (!worker_reads_ && now >= reader_resume_at_) break;
                reader_cv_.wait_until(lk, worker_reads_ ? now + std::chrono::seconds(1) : reader_resume_at_);
            }
            if (reader_stop_) return;
            reader_polling_ = true;  // from here on, an action taking over must wake the poll below
        }
        const int r = poll(fds, nfds, -1);
        if (r < 0) {
            if (errno == EINTR) continue;
            break;
        }
        if (fds[1].revents) {  // stop_reader, or an action taking over the reading
            uint64_t count = 0;
            ssize_t ignored = read(wake_fd, &count, sizeof count);
            (void)ignored;
            continue;
        }
        std::unique_lock<std::mutex> reading(read_mu_);
        {
            std::lock_guard<std::mutex> lk(mu_);
            if (worker_reads_ || reader_stop_) continue;  // the action reads (and reports an exit)
        }
        if (fds[4].revents & POLLIN) drain_stdout();  // read_mu_ held, as the drains need
        if (fds[3].revents & POLLIN) drain_stderr();
        bool gone = has_pidfd && (fds[2].revents & POLLIN);
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            const ssize_t n = read(fds[0].fd, buf.data(), buf.size());
            if (n > 0) {
                on_bytes(std::string_view(buf.data(), static_cast<size_t>(n)));
                continue;
            }
            if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) gone = true;
        }
        if (gone) {
            // Take what the shell wrote before it went, then report its end.
            for (int i = 0; i < 1024; ++i) {
                const ssize_t n = read(fds[0].fd, buf.data(), buf.size());
                if (n <= 0) break;
                on_bytes(std::string_view(buf.data(), static_cast<size_t>(n)));
            }
            on_shell_exit(shell);
            return;
        }
    }
}

void BashSession::on_bytes(std::string_view raw) {
    bool wake = false;
    {
        std::lock_guard<std::mutex> lk(mu_);
        scanner_->feed(
            raw, [this](std::string_view out) { on_output(out); }, [this](const PromptInfo &p) { on_prompt(p); });
        wake = std::exchange(wake_waiters_, false);
    }
    // Notified after unlocking, so the woken thread does not block on mu_ straight away.
    if (wake) cv_.notify_all();
}

void BashSession::drain_stderr() {
    // Bounded: a background job writing without pause cannot keep this thread here.
    for (int i = 0; i < 64 && stderr_read_fd_ >= 0; ++i) {
        const ssize_t n = read(stderr_read_fd_, read_buffer_.data(), read_buffer_.size());
        if (n <= 0) return;  // EAGAIN: empty (our own write end keeps it from ever reading EOF)
        on_stderr_bytes(std::string_view(read_buffer_.data(), static_cast<size_t>(n)));
    }
}

void BashSession::drain_stdout() {
    for (int i = 0; i < 64 && stdout_read_fd_ >= 0; ++i) {
        const ssize_t n = read(stdout_read_fd_, read_buffer_.data(), read_buffer_.size());
        if (n <= 0) return;
        on_stdout_bytes(std::string_view(read_buffer_.data(), static_cast<size_t>(n)));
    }
}

void BashSession::on_stdout_bytes(std::string_view raw) {
    std::lock_guard<std::mutex> lk(mu_);
    if (!notty_) {
        // A background job of an earlier tty-less command: its stdout joins the terminal's output.
        on_output(raw);
        return;
    }
    last_output_ = Clock::now();
    if (emit_ && *emit_) {
        std::string chunk;
        emit_stdout_utf8_.feed(raw, chunk);
        if (!chunk.empty()) (*emit_)(chunk);
    }
    output_.append(stdout_normalizer_.feed(raw));
}

void BashSession::on_stderr_bytes(std::string_view raw) {
    std::lock_guard<std::mutex> lk(mu_);
    if (!stderr_separate_) {
        // A background job of an earlier separate_stderr command: its stderr joins the terminal's output,
        // where it would have gone without the FIFO.
        on_output(raw);
        return;
    }
    last_output_ = Clock::now();
    if (emit_stderr_ && *emit_stderr_) {
        std::string chunk;
        emit_stderr_utf8_.feed(raw, chunk);
        if (!chunk.empty()) (*emit_stderr_)(chunk);
    }
    stderr_text_.append(stderr_normalizer_.feed(raw));
}

void BashSession::on_output(std::string_view raw) {
    if (!first_prompt_seen_) return;  // start-up noise (profile scripts, motd)
    last_output_ = Clock::now();
    if (notty_ && !completed_) {
        // The terminal while a tty-less command runs: only what opens /dev/tty itself (a password prompt)
        // or the shell's own notices reach it; told as stderr, never mixed into the command's stdout.
        if (emit_stderr_ && *emit_stderr_) {
            std::string chunk;
            emit_utf8_.feed(raw, chunk);
            if (!chunk.empty()) (*emit_stderr_)(chunk);
        }
        stderr_text_.append(normalizer_.feed(raw));
        return;
    }
    if (emit_ && *emit_ && !completed_) {
        std::string chunk;
        emit_utf8_.feed(raw, chunk);
        if (!chunk.empty()) (*emit_)(chunk);
    }
    const std::string text = normalizer_.feed(raw);
    (completed_ ? after_ : output_).append(text);
    // No wake-up for output: waiters only need prompts and exits; a non-blocking execute recomputes its
    // no-change deadline from last_output_ when its current deadline passes.
}

void BashSession::on_prompt(const PromptInfo &info) {
    const std::string rest = normalizer_.flush();
    const bool command_terminal_is_stderr = notty_ && !completed_;
    (command_terminal_is_stderr ? stderr_text_ : completed_ ? after_ : output_).append(rest);
    const EmitFn *terminal_emit = command_terminal_is_stderr ? emit_stderr_ : emit_;
    if (terminal_emit && *terminal_emit && !completed_) {
        std::string chunk;
        emit_utf8_.flush(chunk);
        if (!chunk.empty()) (*terminal_emit)(chunk);
    }
    last_prompt_ = info;
    if (!awaited_sync_.empty() && info.sync == awaited_sync_) sync_seen_ = true;
    if (!first_prompt_seen_) {
        first_prompt_seen_ = true;
    } else if (awaiting_prompt_ && !completed_) {
        completed_ = info;
    }
    // A prompt nobody waits for (e.g. a nested shell starting) only refreshes the metadata.
    wake_waiters_ = true;
}

void BashSession::on_shell_exit(common::ChildProcess *shell) {
    int code = -1;
    // The pidfd or EIO says the shell is gone; reaping may lag by a moment.
    for (int i = 0; i < 200 && !shell->try_reap(&code); ++i) usleep(5000);
    std::lock_guard<std::mutex> lk(mu_);
    const std::string held = scanner_->flush();
    on_output(held);
    const std::string rest = normalizer_.flush();
    (completed_ ? after_ : output_).append(rest);
    shell_exited_ = true;
    shell_exit_code_ = code;
    cv_.notify_all();
}

void BashSession::begin_worker_reading() {
    worker_reads_ = true;
    if (reader_polling_ && wake_fd_ >= 0) {  // out of its poll, so it parks instead of reading
        const uint64_t one = 1;
        ssize_t ignored = write(wake_fd_, &one, sizeof one);
        (void)ignored;
    }
}

void BashSession::end_worker_reading(bool hand_back_now) {
    if (!worker_reads_) return;
    worker_reads_ = false;
    reader_resume_at_ = Clock::now() + (hand_back_now ? Clock::duration::zero() : kReaderResumeDelay);
    // Woken only to take over at once; otherwise its timed wait ends by itself unless the next action
    // takes the terminal first.
    if (hand_back_now) reader_cv_.notify_all();
}

bool BashSession::worker_read_once(common::ChildProcess *shell, int timeout_ms) {
    // The shell's pidfd last: -1 entries are ignored by poll.
    pollfd fds[4] = {{shell->output_fd(), POLLIN, 0}, {stderr_read_fd_, POLLIN, 0}, {stdout_read_fd_, POLLIN, 0},
                     {shell->pidfd(), POLLIN, 0}};
    const int r = poll(fds, 4, timeout_ms);
    if (r <= 0) return r == 0 || errno == EINTR;
    if (fds[2].revents & POLLIN) {
        std::lock_guard<std::mutex> reading(read_mu_);
        drain_stdout();
    }
    if (fds[1].revents & POLLIN) {
        std::lock_guard<std::mutex> reading(read_mu_);
        drain_stderr();
    }
    if (fds[3].fd >= 0 && (fds[3].revents & POLLIN)) return false;
    if (fds[0].revents & POLLIN) {
        std::lock_guard<std::mutex> reading(read_mu_);
        const ssize_t n = read(fds[0].fd, read_buffer_.data(), read_buffer_.size());
        if (n > 0) {
            on_bytes(std::string_view(read_buffer_.data(), static_cast<size_t>(n)));
            return true;
        }
        return n < 0 && (errno == EAGAIN || errno == EINTR);
    }
    return (fds[0].revents & (POLLHUP | POLLERR | POLLNVAL)) == 0;
}

// ---- executing ------------------------------------------------------------------------------------------

std::string BashSession::typed_command(const std::string &command) {
    size_t line_start = 0;
    bool too_long = false;
    while (line_start <= command.size()) {
        size_t eol = command.find('\n', line_start);
        if (eol == std::string::npos) eol = command.size();
        if (eol - line_start > kMaxTypedLine) too_long = true;
        line_start = eol + 1;
    }
    if (!too_long) return command + "\n";
    auto path = write_private_file("command-" + std::to_string(++long_command_seq_) + ".sh", command + "\n");
    if (!path) {
        log(kLogWarning, path.error().message + "; typing the command as it is");
        return command + "\n";
    }
    return ". " + shell_quote(path.value()) + "\n";
}

void BashSession::sync_with_shell(std::unique_lock<std::mutex> &lk) {
    // Bash reads its input in order: once the prompt of this line shows, every stray line typed
    // before it has been read and prompted for. $( exit N ) keeps $? as the last command left it.
    const std::string seq = std::to_string(++sync_seq_);
    const std::string line = "__ah_sync=" + seq + "$(exit " + std::to_string(last_prompt_.exit_code & 255) + ")\n";
    awaited_sync_ = seq;
    sync_seen_ = false;
    common::ChildProcess *shell = shell_.get();
    lk.unlock();
    const auto deadline = Clock::now() + std::chrono::seconds(5);
    const bool ok = shell->write_all(line, deadline);
    lk.lock();
    if (ok) cv_.wait_until(lk, deadline, [&] { return sync_seen_ || shell_exited_ || stopping_; });
    if (!sync_seen_) log(kLogWarning, "no prompt after the sync line; continuing");
    awaited_sync_.clear();
}

std::string BashSession::execute(const RunRequest &rq, const EmitFn &emit, const EmitFn &emit_stderr) {
    std::unique_lock<std::mutex> serial(exec_mu_, std::defer_lock);
    if (rq.is_input && is_special_key(rq.command) && !serial.try_lock()) return send_key_beside(rq);
    if (!serial.owns_lock()) serial.lock();
    const std::string command = strip(rq.command);

    bool restart = false;
    {
        std::lock_guard<std::mutex> lk(mu_);
        if (stopping_) return error_observation_json("ERROR: The bash session is shutting down.");
        restart = !shell_ || shell_exited_;
    }
    if (restart) {
        if (auto started = start(); !started)
            return error_observation_json("ERROR: Could not start bash: " + started.error().message);
        prev_status_ = Status::Completed;
        returned_partial_ = false;
        stray_input_possible_ = false;
    }

    if (prev_status_ == Status::Completed) {
        if (command.empty()) return run_observation_json("", std::string(kNoPreviousCommandLogs), RunMetadata{}, false);
        if (rq.is_input) return run_observation_json("", std::string(kNoPreviousCommandInput), RunMetadata{}, false);
    }
    const std::vector<std::string> parts = split_commands(command);
    if (parts.size() > 1) return error_observation_json(multiple_commands_error(parts));

    std::unique_lock<std::mutex> lk(mu_);
    const bool still_running = awaiting_prompt_ && !completed_ && !shell_exited_;
    if (prev_status_ != Status::Completed && still_running && !rq.is_input && !command.empty()) {
        RunMetadata m;
        m.prefix = returned_partial_ ? std::string(kContinuePrefix) : "";
        m.suffix = not_executed_suffix(command);
        const std::string content = output_.finish("", true);
        output_.clear();
        returned_partial_ = true;
        return observation_writer_.write(command, content, m, false);
    }

    const bool special = is_special_key(command);
    if (rq.is_input && !special && !command.empty() && notty_ && awaiting_prompt_ && !completed_ && !shell_exited_)
        return error_observation_json(
            "ERROR: The running command has no terminal (it was run with `tty` false), so input typed for it would "
            "reach the shell instead. Its stdin is a pipe only when it was run with `open_stdin`: send the input "
            "to POST /stdin?session=NAME.");
    std::string to_send;
    bool counts_oom_kills = false;  // a new command: its observation tells of OOM kills while it ran
    if (!command.empty()) {
        if (special) to_send = special_key_bytes(command);
        else if (rq.is_input) to_send = command + "\n";
        else if (!rq.tty) {
            auto typed = tty_less_command(command, rq.open_stdin);
            if (!typed) return error_observation_json("ERROR: " + typed.error().message);
            to_send = std::move(typed).value();
        } else if (rq.separate_stderr) to_send = typed_command("{ " + command + "\n} 2>" + shell_quote(stderr_fifo_));
        else to_send = typed_command(command);
        if (!special && !rq.is_input) {
            counts_oom_kills = true;
            stderr_separate_ = rq.separate_stderr || !rq.tty;
            notty_ = !rq.tty;
            command_typed_ = false;
        }
        if (!special && !rq.is_input && !completed_ && !awaiting_prompt_ && stray_input_possible_) {
            stray_input_possible_ = false;
            sync_with_shell(lk);
        }
        if (completed_) {
            // The previous command ended while nobody watched; as in OpenHands, its last output leads
            // this observation, and the next prompt is the one to wait for.
            output_.append(std::move(after_));
            completed_.reset();
        }
        if (!awaiting_prompt_) {
            awaiting_prompt_ = true;
            if (rq.hidden) output_.raise_limit(kHiddenLimitChars);
        }
    }

    emit_ = &emit;
    emit_stderr_ = &emit_stderr;
    struct ClearEmit {
        const EmitFn *&slot;
        const EmitFn *&stderr_slot;
        ~ClearEmit() { slot = stderr_slot = nullptr; }
    } clear_emit{emit_, emit_stderr_};

    const auto start = Clock::now();
    if (!to_send.empty()) {
        common::ChildProcess *shell = shell_.get();
        lk.unlock();
        const bool ok = shell->write_all(to_send, start + std::chrono::seconds(30));
        // Read once the command is on its way, while bash is still being woken to it (a kworker hop away):
        // the read then costs the round trip nothing. A kill goes unreported only if the command could
        // start, fork and exhaust the memory before this next line runs.
        const std::optional<uint64_t> oom_kills = counts_oom_kills ? memory_cgroup_.oom_kills() : std::nullopt;
        lk.lock();
        if (counts_oom_kills) oom_kills_at_start_ = oom_kills;
        if (!ok) log(kLogWarning, "could not write all input to the terminal");
        if (awaiting_prompt_) command_typed_ = true;
        cv_.notify_all();  // a key waiting in send_key_beside may go now
    }

    const auto never = Clock::time_point::max();
    const auto soft = std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(config_.no_change_timeout_s));
    const auto hard_deadline =
        rq.timeout ? start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*rq.timeout))
                   : never;
    // This thread reads the terminal until the prompt (see begin_worker_reading); declared after `lk`, so
    // the reader thread is released with mu_ still held, on every return.
    common::ChildProcess *const shell = shell_.get();
    bool self_read = shell != nullptr && !shell_exited_ && !stopping_;
    if (self_read) begin_worker_reading();
    struct EndWorkerReading {
        BashSession *s;
        ~EndWorkerReading() { s->end_worker_reading(false); }
    } end_reading{this};
    for (;;) {
        if ((completed_ || shell_exited_) && stderr_separate_) {
            // The command's last writes are in the FIFOs before its prompt shows: take them first.
            lk.unlock();
            {
                std::lock_guard<std::mutex> reading(read_mu_);
                drain_stdout();
                drain_stderr();
            }
            lk.lock();
        }
        if (completed_) return finish_completed(command, rq, special);
        if (shell_exited_) return finish_exited(command, rq);
        if (stopping_) return error_observation_json("ERROR: The bash session is shutting down.");
        const auto now = Clock::now();
        const auto soft_deadline = rq.blocking ? never : std::max(start, last_output_) + soft;
        if (now >= soft_deadline) return finish_timeout(command, rq, Status::NoChangeTimeout);
        if (now >= hard_deadline) return finish_timeout(command, rq, Status::HardTimeout);
        auto until = std::min(soft_deadline, hard_deadline);
        // A command's stdin pipe opens when the command opens its end (it waits for a writer): looked at
        // every few milliseconds until then.
        if (try_open_stdin()) until = std::min(until, now + kStdinOpenCheck);
        if (!self_read) {
            cv_.wait_until(lk, until);
            continue;
        }
        // Slices of at most 50 ms, so a shutdown is seen promptly even if the terminal stays quiet.
        const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - now).count() + 1;
        const int timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, 50));
        lk.unlock();
        const bool ok = worker_read_once(shell, timeout_ms);
        lk.lock();
        if (!ok) {  // the shell is going: the reader thread drains the terminal and reports the exit
            self_read = false;
            end_worker_reading(true);
        }
    }
}

std::string BashSession::finish_completed(const std::string &command, const RunRequest &rq, bool special_key) {
    const PromptInfo p = *completed_;
    RunMetadata m = metadata_of(p);
    m.suffix = special_key ? completed_with_key_suffix(p.exit_code, command) : completed_suffix(p.exit_code);
    if (const std::string note = memory_cgroup_.kill_note_since(oom_kills_at_start_); !note.empty()) m.suffix += "\n[" + note + "]";
    take_stdout(true);
    const std::string content = output_.finish(rq.is_input ? command : "", !rq.hidden);
    m.stderr_text = take_stderr(!rq.hidden, true);
    stray_input_possible_ = rq.is_input || special_key;
    output_ = std::move(after_);
    after_ = ObservationText();
    completed_.reset();
    awaiting_prompt_ = false;
    prev_status_ = Status::Completed;
    returned_partial_ = false;
    command_typed_ = false;
    ++commands_finished_;
    cv_.notify_all();
    return observation_writer_.write(command, content, m, rq.hidden);
}

std::string BashSession::finish_exited(const std::string &command, const RunRequest &rq) {
    // `exit`, C-d at the prompt, or a killed shell: report how it ended; the next action starts a new
    // shell in the last known directory.
    RunMetadata m = metadata_of(last_prompt_);
    m.exit_code = shell_exit_code_;
    m.pid = -1;  // no $! once the shell itself has ended
    m.suffix = completed_suffix(shell_exit_code_);
    if (const std::string note = memory_cgroup_.kill_note_since(oom_kills_at_start_); !note.empty()) m.suffix += "\n[" + note + "]";
    take_stdout(true);
    const std::string content = output_.finish(rq.is_input ? command : "", !rq.hidden);
    m.stderr_text = take_stderr(!rq.hidden, true);
    output_.clear();
    awaiting_prompt_ = false;
    prev_status_ = Status::Completed;
    returned_partial_ = false;
    command_typed_ = false;
    ++commands_finished_;
    cv_.notify_all();
    log(kLogInfo, "bash exited with status " + std::to_string(shell_exit_code_) + "; the next action restarts it");
    return observation_writer_.write(command, content, m, rq.hidden);
}

std::string BashSession::finish_timeout(const std::string &command, const RunRequest &rq, Status why) {
    RunMetadata m;
    m.prefix = returned_partial_ ? std::string(kContinuePrefix) : "";
    m.suffix = why == Status::NoChangeTimeout ? no_change_timeout_suffix(config_.no_change_timeout_text)
                                              : hard_timeout_suffix(*rq.timeout);
    take_stdout(false);
    const std::string content = output_.finish(rq.is_input ? command : "", true);
    m.stderr_text = take_stderr(true, false);
    output_.clear();
    returned_partial_ = true;
    prev_status_ = why;
    return observation_writer_.write(command, content, m, false);
}

void BashSession::take_stdout(bool command_ended) {
    if (!notty_) return;
    output_.append(stdout_normalizer_.flush());
    if (emit_ && *emit_) {
        std::string chunk;
        emit_stdout_utf8_.flush(chunk);
        if (!chunk.empty()) (*emit_)(chunk);
    }
    if (!command_ended) return;
    notty_ = false;
    close_stdin();
}

// ---- a tty-less command and its stdin -------------------------------------------------------------------

common::Result<std::string> BashSession::tty_less_command(const std::string &command, bool open_stdin) {
    // Sourced from a file, not typed: while bash sources a file it does not count as interactive, so an
    // `exit` in the command ends the shell without writing "exit" into the command's stderr. Its state
    // (cd, variables, functions) is the shell's as for any command. Typed only after the previous command
    // ended, so one file serves every command.
    auto written = write_private_file("tty-less-command.sh", command + "\n");
    if (!written) return written.as_failure();
    const std::string path = written.value();
    std::string in = "/dev/null";
    if (open_stdin) {
        const std::string name = "stdin-" + std::to_string(++stdin_seq_);
        const std::string fifo = private_dir_ + "/" + name;
        if (auto made = make_fifo(name); !made) return made.as_failure();
        std::lock_guard<std::mutex> lk(stdin_mu_);
        stdin_fifo_ = fifo;
        stdin_fifo_name_ = name;
        stdin_fd_ = -1;
        stdin_ended_ = false;
        ++stdin_generation_;
        stdin_cv_.notify_all();
        in = fifo;
    }
    return "{ . " + shell_quote(path) + "\n} <" + shell_quote(in) + " >" + shell_quote(stdout_fifo_) + " 2>" +
           shell_quote(stderr_fifo_) + "\n";
}

bool BashSession::try_open_stdin() {
    std::lock_guard<std::mutex> lk(stdin_mu_);
    return open_stdin_locked();
}

bool BashSession::open_stdin_locked() {
    if (stdin_fifo_.empty() || stdin_fd_ >= 0 || stdin_ended_) return false;
    // We never hold its read end, so this succeeds only once the command opened it: bash's open of the
    // read end waits for a writer, and this one is it.
    const int fd = open_private_fifo(stdin_fifo_name_, O_WRONLY | O_NONBLOCK);
    if (fd >= 0) {
        stdin_fd_ = fd;
        stdin_cv_.notify_all();
        return false;
    }
    if (errno == ENXIO || errno == EINTR) return true;
    log(kLogWarning, "cannot open " + stdin_fifo_ + ": " + std::strerror(errno));
    return false;
}

void BashSession::close_stdin() {
    std::lock_guard<std::mutex> lk(stdin_mu_);
    if (stdin_fd_ >= 0) close(stdin_fd_);
    stdin_fd_ = -1;
    if (!stdin_fifo_name_.empty() && private_dir_fd_) unlinkat(private_dir_fd_.get(), stdin_fifo_name_.c_str(), 0);
    stdin_fifo_.clear();
    stdin_fifo_name_.clear();
    stdin_ended_ = false;
    ++stdin_generation_;
    stdin_cv_.notify_all();
}

StdinFeed BashSession::feed_stdin(std::string_view data, bool eof, std::chrono::milliseconds wait) {
    StdinFeed result;
    std::lock_guard<std::mutex> one_feeder(stdin_feed_mu_);  // chunks of concurrent callers never interleave
    const auto deadline = Clock::now() + wait;
    std::unique_lock<std::mutex> lk(stdin_mu_);
    // A client's first bytes may come before its command is typed: wait a moment for one to read them.
    stdin_cv_.wait_until(lk, std::min(deadline, Clock::now() + kStdinCommandWait),
                         [&] { return (!stdin_fifo_.empty() && !stdin_ended_) || stdin_stopping_; });
    if (stdin_fifo_.empty() || stdin_ended_ || stdin_stopping_) {
        result.no_command = true;
        return result;
    }
    const uint64_t generation = stdin_generation_;
    const auto same_command = [&] { return stdin_generation_ == generation && !stdin_stopping_; };
    // Until the command opens its end: a few milliseconds each (the running execute opens it too).
    for (int i = 0; i < 100'000 && stdin_fd_ < 0 && same_command() && Clock::now() < deadline; ++i) {
        if (!open_stdin_locked()) {
            if (stdin_fd_ < 0) result.error = "the command's stdin pipe cannot be opened";
            break;
        }
        stdin_cv_.wait_until(lk, std::min(deadline, Clock::now() + kStdinOpenCheck));
    }
    if (!same_command()) {
        result.closed = true;
        return result;
    }
    if (stdin_fd_ < 0) return result;  // not open yet (or an error): nothing taken
    // Written through a copy of the descriptor with stdin_mu_ released, so the command's end (which closes
    // the session's) never waits for a command that does not read; its end is noticed between slices.
    const int fd = fcntl(stdin_fd_, F_DUPFD_CLOEXEC, 0);
    if (fd < 0) {
        result.error = std::string("cannot duplicate the stdin pipe: ") + std::strerror(errno);
        return result;
    }
    lk.unlock();
    for (int i = 0; i < 1'000'000 && result.written < data.size() && Clock::now() < deadline; ++i) {
        const ssize_t n = write(fd, data.data() + result.written, data.size() - result.written);
        if (n > 0) {
            result.written += static_cast<size_t>(n);
            continue;
        }
        if (n < 0 && errno == EPIPE) {  // the command closed its stdin (or ended): nothing more is read
            result.closed = true;
            break;
        }
        if (n < 0 && errno != EAGAIN && errno != EINTR) {
            result.error = std::string("cannot write to the command's stdin: ") + std::strerror(errno);
            break;
        }
        pollfd p{fd, POLLOUT, 0};
        poll(&p, 1, 50);
        std::lock_guard<std::mutex> check(stdin_mu_);
        if (!same_command()) {
            result.closed = true;
            break;
        }
    }
    close(fd);
    lk.lock();
    if (!same_command()) result.closed = true;
    if (eof && !result.closed && result.error.empty() && result.written == data.size()) {
        // The last writer goes: the command reads what is left in the pipe, then end of file.
        if (stdin_fd_ >= 0) close(stdin_fd_);
        stdin_fd_ = -1;
        stdin_ended_ = true;
        result.closed = true;
    }
    return result;
}

std::optional<std::string> BashSession::take_stderr(bool truncate, bool command_ended) {
    if (!stderr_separate_) return std::nullopt;
    stderr_text_.append(stderr_normalizer_.flush());
    if (emit_stderr_ && *emit_stderr_) {
        std::string chunk;
        emit_stderr_utf8_.flush(chunk);
        if (!chunk.empty()) (*emit_stderr_)(chunk);
    }
    std::string text = stderr_text_.finish("", truncate);
    stderr_text_.clear();
    if (command_ended) stderr_separate_ = false;
    return text;
}

std::string BashSession::send_key_beside(const RunRequest &rq) {
    const std::string key = strip(rq.command);
    std::unique_lock<std::mutex> lk(mu_);
    // The running call may not have typed its command yet (an interrupt right after the start): a key
    // sent before would reach bash first and the command would still run.
    cv_.wait_until(lk, Clock::now() + std::chrono::seconds(5),
                   [&] { return (awaiting_prompt_ && command_typed_) || shell_exited_ || stopping_; });
    if (stopping_) return error_observation_json("ERROR: The bash session is shutting down.");
    if (!shell_ || shell_exited_ || !awaiting_prompt_ || !command_typed_)
        return observation_writer_.write("", std::string(kNoPreviousCommandInput), RunMetadata{}, false);
    const uint64_t finished_before = commands_finished_;
    common::ChildProcess *shell = shell_.get();
    const pid_t shell_group = shell->pid();  // the shell leads its own session, so its group is its pid
    // The terminal's foreground group when the key goes (tcgetpgrp on the master answers for the terminal).
    const pid_t sent_to = tcgetpgrp(shell->output_fd());
    auto send_key = [&] {
        lk.unlock();
        const bool ok = shell->write_all(special_key_bytes(key), Clock::now() + std::chrono::seconds(5));
        lk.lock();
        if (!ok) log(kLogWarning, "could not write " + key + " to the terminal");
    };
    send_key();
    // The running call reads the terminal and reports the command's end; this one only waits for it.
    auto wait = std::chrono::duration_cast<Clock::duration>(kKeyBesideWait);
    if (rq.timeout)
        wait = std::min(wait, std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(*rq.timeout)));
    const auto deadline = Clock::now() + wait;
    const auto ended = [&] { return commands_finished_ != finished_before || shell_exited_ || stopping_; };
    // A key that reached the shell itself while it was starting the command's next job (between its fork
    // and handing that job the terminal) is lost to the job: the shell notes the signal, then waits for
    // the job (seen with `echo started; sleep 100` and C-c sent on "started"). So when the key went to
    // the shell and the terminal then passes to a job while the same command runs, the key goes once
    // more, to that job. A key that went to a job is never sent again.
    for (int i = 0; sent_to == shell_group && i < 1000 && !ended() && Clock::now() < deadline; ++i) {
        cv_.wait_until(lk, std::min(deadline, Clock::now() + kKeyResendCheck), ended);
        if (ended() || Clock::now() >= deadline) break;
        const pid_t foreground = tcgetpgrp(shell->output_fd());
        if (foreground <= 0 || foreground == shell_group) continue;
        log(kLogInfo, key + " reached the shell as it started a job; sending it to the job");
        send_key();
        break;
    }
    cv_.wait_until(lk, deadline, ended);
    RunMetadata m;
    if (commands_finished_ == finished_before) {
        m.suffix = "\n[" + key + " was sent to the running command, which has not ended yet.]";
        return observation_writer_.write(key, "", m, false);
    }
    m = metadata_of(last_prompt_);
    m.suffix = completed_with_key_suffix(m.exit_code, key);
    return observation_writer_.write(key, "", m, false);
}

}  // namespace actionhost::bash
