#include "name_rules.hpp"

#include <actionhost/common/text.hpp>

#include <algorithm>
#include <cctype>
#include <stdexcept>

namespace sandbox {

bool looks_like_name(const std::string &text) {
    if (text.find_first_of(":/") != std::string::npos) return false;
    return std::any_of(text.begin(), text.end(), [](unsigned char c) { return std::isalpha(c) || c == '*'; });
}

std::string normalised_name(std::string name) {
    name = actionhost::common::ascii_lower(name);
    if (!name.empty() && name.back() == '.') name.pop_back();
    return name;
}

std::string normalise_name_entry(const std::string &text) {
    const std::string name = normalised_name(text);
    const auto bad = [&](const std::string &why) { return std::invalid_argument("'" + text + "' is not a domain name entry: " + why); };
    std::string rest = name.rfind("*.", 0) == 0 ? name.substr(2) : name;
    if (rest.empty()) throw bad("it names nothing");
    if (rest.size() > 253) throw bad("longer than 253 characters");
    size_t start = 0;
    for (size_t guard = 0; guard < 128 && start <= rest.size(); ++guard) {
        const size_t dot = rest.find('.', start);
        const std::string label = rest.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
        if (label.empty() || label.size() > 63) throw bad("a label is empty or longer than 63 characters");
        if (label.front() == '-' || label.back() == '-') throw bad("a label begins or ends with '-'");
        for (unsigned char c : label)
            if (!std::isalnum(c) && c != '-' && c != '_')
                throw bad(std::string("'") + static_cast<char>(c) + "' in a label (only a leading \"*.\" may be a wildcard)");
        if (dot == std::string::npos) break;
        start = dot + 1;
    }
    return name;
}

bool name_matches(const std::string &pattern, const std::string &name) {
    if (pattern.rfind("*.", 0) != 0) return pattern == name;
    const std::string suffix = pattern.substr(1);  // ".github.com"
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

NameVerdict name_verdict(const std::string &name, const std::vector<std::string> &allow_names,
                         const std::vector<std::string> &deny_names, bool allow_only) {
    const auto any = [&](const std::vector<std::string> &list) {
        return std::any_of(list.begin(), list.end(), [&](const std::string &p) { return name_matches(p, name); });
    };
    if (any(deny_names)) return NameVerdict::Refuse;
    if (any(allow_names)) return NameVerdict::Pin;
    return allow_only ? NameVerdict::Drop : NameVerdict::Pass;
}

}  // namespace sandbox
