// Rules of the source tree a reviewer would otherwise have to remember, checked on every run.
//
// One JSON writer: nlohmann's dump() throws on the first invalid UTF-8 byte — of a user's environment
// value, a file name, a command's output — so every serialisation goes through common::dump_json (or
// dump_ordered_json), which replaces such bytes (common/json/include/actionhost/common/json_write.hpp).
// A dump() elsewhere must say error_handler_t::strict: invalid UTF-8 is then an error it means to raise.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path &p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Every "file:line: text" of a dump( call in the product's sources that neither is the writer nor says
// error_handler_t::strict in its statement.
std::vector<std::string> bare_dumps() {
    const fs::path root = AH_SOURCE_DIR;
    const fs::path writer = root / "common/json/include/actionhost/common/json_write.hpp";
    const std::regex call(R"((\.|->)dump\s*\()");
    std::vector<std::string> found;
    for (const char *top : {"common", "host", "plugins", "runtimes", "sdk"}) {
        for (auto it = fs::recursive_directory_iterator(root / top); it != fs::recursive_directory_iterator(); ++it) {
            const fs::path &p = it->path();
            const std::string ext = p.extension().string();
            if (!it->is_regular_file() || (ext != ".cpp" && ext != ".hpp" && ext != ".h") || p == writer) continue;
            const std::string text = read_all(p);
            for (auto m = std::sregex_iterator(text.begin(), text.end(), call); m != std::sregex_iterator(); ++m) {
                const size_t at = static_cast<size_t>(m->position());
                const size_t end = text.find(';', at);
                const std::string statement = text.substr(at, end == std::string::npos ? std::string::npos : end - at);
                if (statement.find("error_handler_t::strict") != std::string::npos) continue;
                const size_t line = static_cast<size_t>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n')) + 1;
                const size_t bol = text.rfind('\n', at) + 1;
                found.push_back(fs::relative(p, root).string() + ":" + std::to_string(line) + ": " +
                                text.substr(bol, text.find('\n', at) - bol));
            }
        }
    }
    return found;
}

}  // namespace

TEST(SourceRules, NoBareJsonDumpOutsideTheWriter) {
    const auto found = bare_dumps();
    std::string list;
    for (const auto &f : found) list += "  " + f + "\n";
    EXPECT_TRUE(found.empty()) << "use common::dump_json (or dump_ordered_json), or say error_handler_t::strict:\n" << list;
}
