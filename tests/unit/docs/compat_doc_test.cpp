// docs/compat.md's list of OpenHands configuration keys against the client's config.toml schema: every
// key of the schema is either honoured (its docs/configuration.md row names what reads it and does not say
// "unused") or in compat.md's "Configuration keys" table with the reason, and that table names only keys
// the schema has.
#include <actionhost/client/config.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>

namespace {

const std::filesystem::path kRoot = AH_SOURCE_DIR;

std::string read_doc(const std::string &name) {
    std::ifstream f(kRoot / name, std::ios::binary);
    std::ostringstream text;
    text << f.rdbuf();
    return text.str();
}

std::set<std::string> schema_keys() {
    std::set<std::string> keys;
    const actionhost::client::Config defaults;
    for (const auto &[section, fields] : defaults.sections().items())
        for (const auto &[key, value] : fields.items()) keys.insert(section + "." + key);
    return keys;
}

// section.key names in the first cell of each table row of `markdown` (after `from_heading` when given),
// each with its whole row.
std::map<std::string, std::string> rows_by_key(const std::string &markdown, const std::string &from_heading = "") {
    std::map<std::string, std::string> rows;
    std::istringstream in(markdown);
    bool inside = from_heading.empty();
    static const std::regex key(R"(`([a-z_]+\.[a-z0-9_]+)`)");
    for (std::string line; std::getline(in, line);) {
        if (!from_heading.empty() && line.rfind("## ", 0) == 0) inside = line == from_heading;
        if (!inside || line.rfind("|", 0) != 0) continue;
        const std::string first = line.substr(0, line.find('|', 1));
        for (std::sregex_iterator it(first.begin(), first.end(), key), end; it != end; ++it) rows[(*it)[1]] = line;
    }
    return rows;
}

// One message per schema key neither honoured in `configuration` nor listed in `compat`, and per listed
// key the schema does not have.
std::vector<std::string> problems(const std::set<std::string> &schema, const std::string &configuration, const std::string &compat) {
    std::vector<std::string> out;
    const auto documented = rows_by_key(configuration);
    const auto listed = rows_by_key(compat, "## Configuration keys");
    for (const auto &key : schema) {
        const auto row = documented.find(key);
        const bool honoured = row != documented.end() && row->second.find("unused") == std::string::npos;
        if (!honoured && !listed.count(key))
            out.push_back(key + " is neither honoured in docs/configuration.md nor listed in docs/compat.md");
    }
    for (const auto &[key, row] : listed)
        if (!schema.count(key)) out.push_back(key + " is listed in docs/compat.md but the schema has no such key");
    return out;
}

std::string without_line_containing(const std::string &text, const std::string &needle) {
    std::istringstream in(text);
    std::string out;
    for (std::string line; std::getline(in, line);)
        if (line.find(needle) == std::string::npos) out += line + "\n";
    return out;
}

}  // namespace

TEST(CompatDoc, EverySchemaKeyIsHonouredOrListedWithAReason) {
    const std::string configuration = read_doc("docs/configuration.md"), compat = read_doc("docs/compat.md");
    ASSERT_FALSE(configuration.empty());
    ASSERT_FALSE(compat.empty());
    const auto schema = schema_keys();
    EXPECT_GT(schema.size(), 80u);
    EXPECT_GE(rows_by_key(compat, "## Configuration keys").size(), 10u);
    for (const auto &p : problems(schema, configuration, compat)) ADD_FAILURE() << p;
}

// Not vacuous: a key losing its compat.md row, a row saying "unused" for a key compat.md does not list,
// and a listed key the schema lacks are each named.
TEST(CompatDoc, AnUnlistedOrStaleKeyIsNamed) {
    const std::string configuration = read_doc("docs/configuration.md"), compat = read_doc("docs/compat.md");
    const auto schema = schema_keys();
    ASSERT_TRUE(problems(schema, configuration, compat).empty());
    auto named = [](const std::vector<std::string> &ps, const std::string &key) {
        for (const auto &p : ps)
            if (p.rfind(key + " ", 0) == 0) return true;
        return false;
    };
    EXPECT_TRUE(named(problems(schema, configuration, without_line_containing(compat, "| `sandbox.close_delay` |")), "sandbox.close_delay"));
    const std::string unused_lint = std::regex_replace(configuration, std::regex(R"(\| `ENABLE_AUTO_LINT=true` in the sandbox)"), "| unused");
    ASSERT_NE(unused_lint, configuration);
    EXPECT_TRUE(named(problems(schema, unused_lint, compat), "sandbox.enable_auto_lint"));
    std::string stale = compat;
    const size_t row = stale.find("| `sandbox.close_delay` |");
    ASSERT_NE(row, std::string::npos);
    stale.insert(row, "| `sandbox.no_such_key` | x | y |\n");
    EXPECT_TRUE(named(problems(schema, configuration, stale), "sandbox.no_such_key"));
    EXPECT_FALSE(named(problems(schema, configuration, compat), "sandbox.no_such_key"));
}
