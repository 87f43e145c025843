// The client against a hostile host: the archive /download_files answers is the host's to make, and a
// sandbox's host is the agent's (it can replace the server, or answer through a proxy of its own). Before,
// the client read the whole archive into memory and unpacked every entry into memory before checking
// names: a 3 MB zip reached 4.2 GB of the client's memory before its `../` entry was refused. Now the
// archive goes to a temporary file, every entry is checked before anything is read, and the bytes are
// counted as they come. Each archive is made by Python's zipfile (and patched where it must lie) and
// served by a real HTTP server of the test's. Runs as root and, as AsUser.*, as nobody.
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/file_copy.hpp>
#include <actionhost/client/wire_client.hpp>
#include <actionhost/common/http/server.hpp>

#include <filesystem>
#include <fstream>
#include <string>

#include "support/proc_file.hpp"
#include "support/run_process.hpp"
#include "support/temp_dir.hpp"

using actionhost::testing::read_file;
using actionhost::testing::run_process;
using actionhost::testing::TempDir;
namespace client = actionhost::client;
namespace http = actionhost::common::http;
namespace fs = std::filesystem;

namespace {

// A host that answers every /download_files with `zip`.
class HostileHost {
  public:
    explicit HostileHost(std::string zip)
        : zip_(std::move(zip)),
          server_("127.0.0.1", 0, [this](http::Request &req, http::Response &resp) {
              if (req.target().rfind("/download_files", 0) == 0) resp.send(200, "application/zip", zip_);
              else resp.send(404, "application/json", R"({"detail":"Not Found"})");
          }) {
        server_.start();
    }
    std::string url() const { return "http://127.0.0.1:" + std::to_string(server_.port()); }

  private:
    std::string zip_;
    http::Server server_;
};

// An archive written by Python's zipfile from `script` (which gets `z`, a ZipFile on `path`), then
// patched by `patch` (Python code on `data`, a bytearray of the archive) when given.
std::string python_zip(const TempDir &dir, const std::string &script, const std::string &patch = "") {
    const std::string path = dir / "made.zip";
    const std::string code = "import zipfile, struct\n"
                             "path = '" + path + "'\n"
                             "with zipfile.ZipFile(path, 'w', zipfile.ZIP_DEFLATED, compresslevel=9) as z:\n" +
                             script +
                             "data = bytearray(open(path, 'rb').read())\n" + patch +
                             "open(path, 'wb').write(data)\n";
    auto r = run_process({"/usr/bin/python3", "-c", code}, 120);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    return read_file(path);
}

// The peak resident memory of this process since the last reset (KiB), and the reset.
void reset_peak() { std::ofstream("/proc/self/clear_refs") << "5"; }
long peak_kib() { return actionhost::testing::status_number("/proc/self/status", "VmHWM"); }

bool empty_dir(const fs::path &p) { return !fs::exists(p) || fs::is_empty(p); }

}  // namespace

// An entry named `../` after 64 MiB of honest zeros: refused before a byte is unpacked.
TEST(ClientArchive, AnEscapingNameIsRefusedBeforeAnythingIsUnpacked) {
    TempDir dir("ahsec-zip"), dest("ahsec-dest");
    const std::string zip = python_zip(dir,
                                       "    z.writestr('ok.txt', 'fine')\n"
                                       "    z.writestr('big.bin', bytes(64 << 20))\n"
                                       "    z.writestr('../escape.txt', 'out')\n");
    ASSERT_LT(zip.size(), 1u << 20);
    HostileHost host(zip);
    client::WireClient wire(host.url(), "");
    reset_peak();
    const long before = peak_kib();
    try {
        client::copy_from_into(wire, "/workspace/x", dest / "in");
        ADD_FAILURE() << "the archive was accepted";
    } catch (const client::WireError &e) {
        EXPECT_NE(std::string(e.what()).find("outside the destination"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("nothing was written"), std::string::npos) << e.what();
    }
    EXPECT_TRUE(empty_dir(dest / "in"));
    EXPECT_FALSE(fs::exists(dest / "escape.txt"));
    EXPECT_LT(peak_kib() - before, 16 * 1024) << "the refusal cost " << (peak_kib() - before) << " KiB";
}

// A bomb whose headers say what it unpacks to (96 MiB of zeros in ~100 KB) against a 32 MiB limit, and
// one whose headers lie (10 bytes declared, 64 MiB inside): the first refused before reading, the
// second as the bytes come, with what it had written removed. Memory stays flat either way.
TEST(ClientArchive, BombsAndLyingSizesAreRefusedWithMemoryFlat) {
    TempDir dir("ahsec-zip"), dest("ahsec-dest");
    {
        HostileHost host(python_zip(dir, "    z.writestr('zeros.bin', bytes(96 << 20))\n"));
        client::WireClient wire(host.url(), "");
        client::CopyOptions small;
        small.max_bytes = 32ull << 20;
        reset_peak();
        const long before = peak_kib();
        try {
            client::copy_from_into(wire, "/workspace/x", dest / "bomb", small);
            ADD_FAILURE() << "the bomb was accepted";
        } catch (const client::WireError &e) {
            EXPECT_NE(std::string(e.what()).find("more than"), std::string::npos) << e.what();
        }
        EXPECT_TRUE(empty_dir(dest / "bomb"));
        EXPECT_LT(peak_kib() - before, 16 * 1024);
    }
    {
        // Local header: uncompressed size at +22; central directory: at +24.
        const std::string lie = "i = data.find(b'PK\\x03\\x04'); data[i+22:i+26] = struct.pack('<I', 10)\n"
                                "j = data.find(b'PK\\x01\\x02'); data[j+24:j+28] = struct.pack('<I', 10)\n";
        HostileHost host(python_zip(dir, "    z.writestr('liar.bin', bytes(64 << 20))\n    z.writestr('z.txt', 'after')\n", lie));
        client::WireClient wire(host.url(), "");
        reset_peak();
        const long before = peak_kib();
        try {
            client::copy_from_into(wire, "/workspace/x", dest / "liar");
            ADD_FAILURE() << "the lying archive was accepted";
        } catch (const client::WireError &e) {
            EXPECT_NE(std::string(e.what()).find("liar.bin"), std::string::npos) << e.what();
        }
        EXPECT_FALSE(fs::exists(dest / "liar/x/liar.bin"));
        EXPECT_FALSE(fs::exists(dest / "liar/x/z.txt"));
        EXPECT_LT(peak_kib() - before, 16 * 1024);
    }
}

// An answer larger than any archive of the limit could be (80 MiB against 1 byte + 64 MiB of framing):
// the download stops at the limit; and garbage within it is not a zip.
TEST(ClientArchive, AnOversizedAnswerStopsAtTheLimit) {
    TempDir dest("ahsec-dest");
    {
        HostileHost host(std::string(80u << 20, 'P'));
        client::WireClient wire(host.url(), "");
        client::CopyOptions tiny;
        tiny.max_bytes = 1;
        try {
            client::copy_from_into(wire, "/workspace/x", dest / "in", tiny);
            ADD_FAILURE() << "an oversized answer was accepted";
        } catch (const client::WireError &e) {
            EXPECT_NE(std::string(e.what()).find("is larger than"), std::string::npos) << e.what();
        }
    }
    {
        HostileHost host(std::string(1u << 20, 'P'));
        client::WireClient wire(host.url(), "");
        try {
            client::copy_from_into(wire, "/workspace/x", dest / "in");
            ADD_FAILURE() << "garbage accepted";
        } catch (const client::WireError &e) {
            EXPECT_NE(std::string(e.what()).find("not a valid zip"), std::string::npos) << "[" << e.what() << "]";
        }
    }
    EXPECT_TRUE(empty_dir(dest / "in"));
}
