#include "settings_file.hpp"

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <system_error>

namespace actionhost::vscode {

const std::string &default_settings_json() {
    static const std::string text =
#include "settings_json.inc"
        ;
    return text;
}

common::Status write_workspace_settings(const std::string &workspace) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path dir = fs::path(workspace) / ".vscode";
    fs::create_directories(dir, ec);
    if (ec) return common::fail("cannot create " + dir.string() + ": " + ec.message());
    fs::path file = dir / "settings.json";
    {
        std::ofstream out(file, std::ios::binary | std::ios::trunc);
        if (!out) return common::fail("cannot write " + file.string());
        out << default_settings_json();
        if (!out.flush()) return common::fail("cannot write " + file.string());
    }
    // chmod, not the umask-filtered create mode: OpenHands makes it writable for every user.
    if (::chmod(file.c_str(), 0666) != 0) return common::fail("cannot chmod " + file.string(), errno);
    return common::ok();
}

}  // namespace actionhost::vscode
