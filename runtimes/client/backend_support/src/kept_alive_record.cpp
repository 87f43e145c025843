#include "actionhost/runtime_support/kept_alive_record.hpp"

#include <cctype>
#include <filesystem>
#include <fstream>

#include <actionhost/common/json_io.hpp>

#include "actionhost/runtime_support/owned_dir.hpp"
#include "actionhost/runtime_support/process.hpp"

namespace actionhost::runtime_support {

namespace fs = std::filesystem;

std::string kept_alive_record_path(const std::string &state_dir, const std::string &kind, const std::string &session_id) {
    return state_dir + "/" + kind + "-" + session_id + ".backend.json";
}

std::string client_record_path(const std::string &state_dir, const std::string &session_id) {
    std::string safe;
    for (char c : session_id) safe += (std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.') ? c : '_';
    return state_dir + "/" + safe + ".json";
}

bool kept_alive_record_is_live(const nlohmann::json &record) {
    std::string run_dir = record.value("run_dir", "");
    if (!run_dir.empty()) {
        std::error_code ec;
        if (!fs::exists(run_dir, ec)) return false;  // a reboot emptied the temporary directory, say
        const DirOwner owner = dir_owner(run_dir);
        if (owner != DirOwner::Unknown) return owner == DirOwner::Alive;
    }
    if (record.contains("pid_start") && record["pid_start"].is_number_unsigned())
        return is_running({record.value("pid", 0), record["pid_start"].get<unsigned long long>(), record.value("boot_id", "")});
    return process_exists(record.value("pid", 0));
}

std::optional<nlohmann::json> load_kept_alive_record(const std::string &path) {
    std::optional<nlohmann::json> record = common::read_json_object_file(path);
    if (!record) return std::nullopt;
    if (!kept_alive_record_is_live(*record)) {
        std::error_code ec;
        fs::remove(path, ec);
        return std::nullopt;
    }
    return record;
}

std::optional<nlohmann::json> take_dead_kept_alive_record(const std::string &path) {
    std::optional<nlohmann::json> record = common::read_json_object_file(path);
    if (!record || kept_alive_record_is_live(*record)) return std::nullopt;
    std::error_code ec;
    fs::remove(path, ec);
    return record;
}

void save_kept_alive_record(const std::string &path, const nlohmann::json &record) {
    fs::create_directories(fs::path(path).parent_path());
    // Written aside and renamed into place: a client killed while writing leaves no half a record.
    const std::string pending = path + ".new";
    {
        std::ofstream out(pending, std::ios::trunc);
        out << actionhost::common::dump_json(record);
    }
    fs::rename(pending, path);
}

}  // namespace actionhost::runtime_support
