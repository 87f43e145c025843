#include "sandbox_disk.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include <actionhost/common/io/unique_fd.hpp>
#include <actionhost/common/text.hpp>
#include <actionhost/runtime_support/process.hpp>

namespace actionhost::sandbox_runtime {

namespace {

using common::io::UniqueFd;

constexpr uint64_t kMinimumBytes = uint64_t{16} << 20;
constexpr uint64_t kMaximumBytes = uint64_t{16} << 40;

[[noreturn]] void fail(const std::string &what) { throw std::runtime_error(what + ": " + std::strerror(errno)); }

// mkfs.ext4 of `bytes` into `path`: no journal (the disk ends with the sandbox, a crash loses nothing a
// journal would keep), nothing reserved for root, inode tables left to the kernel to zero lazily.
void make_template(const std::string &path, uint64_t bytes) {
    {
        UniqueFd fd(::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
        if (!fd) fail("cannot create " + path);
        if (::ftruncate(fd.get(), static_cast<off_t>(bytes)) != 0) fail("cannot size " + path);
    }
    runtime_support::SpawnOptions spawn;
    spawn.argv = {"mkfs.ext4", "-q", "-F", "-O", "^has_journal", "-m", "0", "-E", "lazy_itable_init=1,nodiscard", "-L", "ah-disk", path};
    spawn.env = {{"PATH", "/usr/sbin:/sbin:/usr/bin:/bin"}, {"LANG", "C"}};
    spawn.log_path = path + ".log";
    const pid_t pid = runtime_support::spawn_process(spawn);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        const std::string log = runtime_support::file_tail(path + ".log", 2000);
        std::filesystem::remove(path);
        std::filesystem::remove(path + ".log");
        throw std::runtime_error("mkfs.ext4 could not make the sandbox's disk (e2fsprogs installed?): " + log);
    }
    std::filesystem::remove(path + ".log");
}

// The template's data (what mkfs wrote) into a new sparse file of the same size.
void copy_sparse(const std::string &from, const std::string &to, uint64_t bytes) {
    UniqueFd in(::open(from.c_str(), O_RDONLY | O_CLOEXEC));
    if (!in) fail("cannot read " + from);
    UniqueFd out(::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600));
    if (!out) fail("cannot create " + to);
    if (::ftruncate(out.get(), static_cast<off_t>(bytes)) != 0) fail("cannot size " + to);
    for (off_t at = 0; at < static_cast<off_t>(bytes);) {
        const off_t data = ::lseek(in.get(), at, SEEK_DATA);
        if (data < 0) break;  // ENXIO: holes to the end
        const off_t hole = ::lseek(in.get(), data, SEEK_HOLE);
        for (off_t done = data; done < hole;) {
            loff_t src = done, dst = done;
            const ssize_t n = ::copy_file_range(in.get(), &src, out.get(), &dst, static_cast<size_t>(hole - done), 0);
            if (n < 0 && errno == EINTR) continue;
            if (n <= 0) fail("cannot copy " + from + " to " + to);
            done += n;
        }
        at = hole;
    }
}

}  // namespace

uint64_t parse_disk_limit(const std::string &text) {
    if (text.empty() || text == "0") return 0;
    const auto bytes = common::parse_byte_size(text);
    if (!bytes) throw std::runtime_error("sandbox.disk_limit must be a size such as 2g or 512m, not '" + text + "'");
    if (*bytes < kMinimumBytes) throw std::runtime_error("sandbox.disk_limit must be at least 16m, not '" + text + "'");
    if (*bytes > kMaximumBytes) throw std::runtime_error("sandbox.disk_limit must be at most 16t, not '" + text + "'");
    return *bytes;
}

void make_disk_image(const std::string &template_dir, uint64_t bytes, const std::string &image) {
    std::error_code ec;
    std::filesystem::create_directories(template_dir, ec);
    if (ec) throw std::runtime_error("cannot create " + template_dir + ": " + ec.message());
    ::chmod(template_dir.c_str(), 0700);
    const std::string tmpl = template_dir + "/ext4-" + std::to_string(bytes) + ".img";
    struct stat st{};
    if (::lstat(tmpl.c_str(), &st) != 0 || !S_ISREG(st.st_mode) || static_cast<uint64_t>(st.st_size) != bytes) {
        const std::string mine = tmpl + ".tmp-" + std::to_string(::getpid()) + "-" + std::to_string(::gettid());
        std::filesystem::remove(mine, ec);
        make_template(mine, bytes);
        if (::rename(mine.c_str(), tmpl.c_str()) != 0) fail("cannot keep the disk template " + tmpl);
    }
    copy_sparse(tmpl, image, bytes);
}

}  // namespace actionhost::sandbox_runtime
