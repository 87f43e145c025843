#include "audit/changed_files.hpp"

#include <filesystem>

namespace actionhost::host::audit {

namespace {

bool edit_changes(const nlohmann::json &args) {
    const auto c = args.find("command");
    if (c == args.end() || c->is_null() || (c->is_string() && c->get_ref<const std::string &>().empty())) return true;  // LLM-based edit
    if (!c->is_string()) return false;
    const std::string &command = c->get_ref<const std::string &>();
    return command == "create" || command == "str_replace" || command == "insert" || command == "undo_edit";
}

}  // namespace

std::vector<std::string> files_changed_by(const std::string &action, const nlohmann::json &args, const std::string &cwd) {
    if (!args.is_object() || (action != "write" && !(action == "edit" && edit_changes(args)))) return {};
    const auto p = args.find("path");
    if (p == args.end() || !p->is_string() || p->get_ref<const std::string &>().empty()) return {};
    std::filesystem::path path(p->get_ref<const std::string &>());
    if (path.is_relative()) path = std::filesystem::path(cwd.empty() ? "/" : cwd) / path;
    return {path.lexically_normal().string()};
}

}  // namespace actionhost::host::audit
