// plugins/browser/src/chromium_process: the browser's log is the file the host made before the profile
// changed hands, written and read back through a descriptor. Before, it was opened (as root, following
// links, truncating) and read by its name in a directory the browser's user owns: that user pointed the
// name at any file and the host truncated it, or read it back into an error message.
#include "chromium_process.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <string>

#include "support/temp_dir.hpp"

using namespace actionhost::browser;
namespace at = actionhost::testing;
namespace fs = std::filesystem;

namespace {

// A "browser" that, as the browser's user, swaps its log for `planted` (a link or a FIFO made by
// `make_planted`), says something and exits during start-up.
std::string start_failure(const at::TempDir &dir, const std::string &make_planted) {
    const std::string script = dir / "fake-chromium";
    at::write_file(script,
                   "#!/bin/sh\n"
                   "for a in \"$@\"; do case \"$a\" in --user-data-dir=*) d=${a#--user-data-dir=};; esac; done\n"
                   "echo 'the fake browser gives up'\n"
                   "rm -f \"$d/chromium.log\"; " + make_planted + " \"$d/chromium.log\"\n"
                   "exit 1\n");
    ::chmod(script.c_str(), 0755);
    ChromiumOptions o;
    o.executable = script;
    o.own_sandbox = false;
    try {
        ChromiumProcess p(o);
        p.connect(std::chrono::steady_clock::now() + std::chrono::seconds(20));
        return "";
    } catch (const std::exception &e) {
        return e.what();
    }
}

}  // namespace

TEST(ChromiumProcess, ALogSwappedForALinkIsNeitherWrittenNorReadThroughIt) {
    at::TempDir dir("ah-chromium-log");
    at::write_file(dir / "victim", "VICTIM SECRET\n");
    const auto started = std::chrono::steady_clock::now();
    const std::string why = start_failure(dir, "ln -s " + (dir / "victim"));
    EXPECT_NE(why.find("the fake browser gives up"), std::string::npos) << why;
    EXPECT_EQ(why.find("VICTIM SECRET"), std::string::npos) << why;
    EXPECT_EQ(at::read_file(dir / "victim"), "VICTIM SECRET\n");
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(15));
}

TEST(ChromiumProcess, ALogSwappedForAFifoCannotHangTheHost) {
    at::TempDir dir("ah-chromium-fifo");
    const auto started = std::chrono::steady_clock::now();
    const std::string why = start_failure(dir, "mkfifo");
    EXPECT_NE(why.find("the fake browser gives up"), std::string::npos) << why;
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(15));
}
