#include "fake_node.hpp"

#include <Poco/Net/ServerSocket.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <actionhost/runtime_support/process.hpp>
#include <filesystem>
#include <stdexcept>

namespace actionhost::testing {

namespace fs = std::filesystem;
namespace rs = actionhost::runtime_support;

FakeNode::FakeNode() : dir_(rs::make_temp_dir("ah-fake-node-")) {}

FakeNode::~FakeNode() {
    std::vector<int> ids;
    {
        std::lock_guard lock(mutex_);
        for (auto &[id, c] : containers_) ids.push_back(id);
    }
    for (int id : ids) stop(id);
    std::error_code ec;
    fs::remove_all(dir_, ec);
}

void FakeNode::add_image(const std::string &name, FakeImage image) {
    std::lock_guard lock(mutex_);
    images_[name] = std::move(image);
}

bool FakeNode::has_image(const std::string &name) const {
    std::lock_guard lock(mutex_);
    return images_.count(name) != 0;
}

std::string FakeNode::allocate_ip(int port) {
    std::lock_guard lock(mutex_);
    // A /16 per test process keeps two test binaries running at once apart; the bind test settles the rest.
    int block = 20 + static_cast<int>(getpid() % 200);
    for (int i = 0; i < 1000; ++i) {
        int n = next_ip_++;
        std::string ip = "127." + std::to_string(block) + "." + std::to_string((n / 250) % 250) + "." + std::to_string(n % 250 + 2);
        try {
            Poco::Net::ServerSocket probe;
            probe.bind(Poco::Net::SocketAddress(ip, static_cast<Poco::UInt16>(port)), false);
            probe.close();
            return ip;
        } catch (...) {
        }
    }
    throw std::runtime_error("fake node: no free loopback address for port " + std::to_string(port));
}

std::string FakeNode::translate(const FakeImage &image, const std::string &path) const {
    for (const auto &[prefix, node_dir] : image.paths)
        if (path == prefix || path.rfind(prefix + "/", 0) == 0) return node_dir + path.substr(prefix.size());
    return path;
}

int FakeNode::start(const ContainerSpec &spec) {
    std::lock_guard lock(mutex_);
    auto img = images_.find(spec.image);
    if (img == images_.end()) throw std::runtime_error("image " + spec.image + " not found");
    if (spec.argv.empty()) throw std::runtime_error("container has no command");
    int id = next_id_++;
    std::string cdir = dir_ + "/c" + std::to_string(id);
    fs::create_directories(cdir + "/home");
    rs::SpawnOptions o;
    o.argv = spec.argv;
    o.argv[0] = translate(img->second, o.argv[0]);
    // A program of the host bundle names its loader by its path in the image (PT_INTERP
    // /openhands/actionhost/lib/ld-linux-x86-64.so.2), which the kernel of a real container finds there;
    // here the image is a directory, so the bundle's loader is run with the program, as the kernel would.
    const fs::path program(o.argv[0]);
    const fs::path loader = program.parent_path().parent_path() / "lib/ld-linux-x86-64.so.2";
    if (program.parent_path().filename() == "bin" && fs::exists(loader))
        o.argv.insert(o.argv.begin(), {loader.string(), "--library-path", loader.parent_path().string()});
    o.env = spec.env;
    if (!o.env.count("PATH")) o.env["PATH"] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
    if (!o.env.count("HOME")) o.env["HOME"] = cdir + "/home";
    o.cwd = translate(img->second, spec.working_dir.empty() ? "/" : spec.working_dir);
    if (!fs::is_directory(o.cwd)) o.cwd = "/";
    o.log_path = cdir + "/log";
    o.die_with_parent = false;  // PDEATHSIG follows the spawning thread, and server pool threads come and go
    Container c;
    c.pid = rs::spawn_process(o);
    c.log = o.log_path;
    containers_[id] = c;
    return id;
}

void FakeNode::reap(Container &c) {
    if (c.status || c.pid <= 0) return;
    if (auto st = rs::try_reap(c.pid)) c.status = *st;
}

void FakeNode::stop(int id) {
    pid_t pid = -1;
    {
        std::lock_guard lock(mutex_);
        auto it = containers_.find(id);
        if (it == containers_.end() || it->second.stopped) return;
        reap(it->second);
        it->second.stopped = true;
        if (it->second.status) return;
        pid = it->second.pid;
    }
    kill(-pid, SIGCONT);  // a paused container still gets its SIGTERM
    rs::stop_process_group(pid, 5.0);
    std::lock_guard lock(mutex_);
    containers_[id].status = 0;
}

void FakeNode::pause(int id) {
    std::lock_guard lock(mutex_);
    auto it = containers_.find(id);
    if (it != containers_.end() && !it->second.stopped) kill(-it->second.pid, SIGSTOP);
}

void FakeNode::resume(int id) {
    std::lock_guard lock(mutex_);
    auto it = containers_.find(id);
    if (it != containers_.end() && !it->second.stopped) kill(-it->second.pid, SIGCONT);
}

bool FakeNode::running(int id) {
    std::lock_guard lock(mutex_);
    auto it = containers_.find(id);
    if (it == containers_.end() || it->second.stopped) return false;
    reap(it->second);
    return !it->second.status;
}

std::optional<int> FakeNode::exit_code(int id) {
    std::lock_guard lock(mutex_);
    auto it = containers_.find(id);
    if (it == containers_.end()) return std::nullopt;
    reap(it->second);
    if (!it->second.status || it->second.stopped) return std::nullopt;
    int st = *it->second.status;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

std::string FakeNode::log_tail(int id) {
    std::string path;
    {
        std::lock_guard lock(mutex_);
        auto it = containers_.find(id);
        if (it == containers_.end()) return "";
        path = it->second.log;
    }
    return rs::file_tail(path, 2000);
}

int FakeNode::running_count() {
    std::lock_guard lock(mutex_);
    int n = 0;
    for (auto &[id, c] : containers_) {
        if (c.stopped) continue;
        reap(c);
        if (!c.status) ++n;
    }
    return n;
}

}  // namespace actionhost::testing
