#include "kernel/kernel_command.hpp"

#include "actionhost/common/json_io.hpp"

namespace actionhost::jupyter {

std::vector<std::string> default_kernel_command() {
    return {"/usr/bin/python3", "-m", "ipykernel_launcher", "-f", std::string(kConnectionFileToken)};
}

common::Result<std::vector<std::string>> parse_kernel_command(std::string_view spec) {
    std::vector<std::string> argv;
    size_t first = spec.find_first_not_of(" \t\r\n");
    if (first != std::string_view::npos && spec[first] == '[') {
        auto r = common::parse_json(spec);
        if (!r || !r.value().is_array())
            return common::fail("kernel command: not a JSON array of strings" + (r ? std::string() : ": " + r.error().message));
        for (const auto &v : r.value()) {
            if (!v.is_string()) return common::fail("kernel command: every element of the JSON array must be a string");
            argv.push_back(v.get<std::string>());
        }
    } else {
        size_t i = 0;
        while (i < spec.size()) {
            while (i < spec.size() && (spec[i] == ' ' || spec[i] == '\t' || spec[i] == '\n' || spec[i] == '\r')) ++i;
            size_t j = i;
            while (j < spec.size() && !(spec[j] == ' ' || spec[j] == '\t' || spec[j] == '\n' || spec[j] == '\r')) ++j;
            if (j > i) argv.emplace_back(spec.substr(i, j - i));
            i = j;
        }
    }
    if (argv.empty() || argv.front().empty()) return common::fail("kernel command is empty");
    return argv;
}

std::vector<std::string> expand_kernel_command(const std::vector<std::string> &command, const std::string &connection_file) {
    std::vector<std::string> argv;
    bool substituted = false;
    for (const std::string &word : command) {
        std::string w = word;
        for (size_t pos = w.find(kConnectionFileToken); pos != std::string::npos;
             pos = w.find(kConnectionFileToken, pos + connection_file.size())) {
            w.replace(pos, kConnectionFileToken.size(), connection_file);
            substituted = true;
        }
        argv.push_back(std::move(w));
    }
    if (!substituted) {
        argv.emplace_back("-f");
        argv.push_back(connection_file);
    }
    return argv;
}

}  // namespace actionhost::jupyter
