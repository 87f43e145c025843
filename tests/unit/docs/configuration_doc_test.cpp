// docs/configuration.md against the code: every key the source tree reads (getenv, config_get,
// config_string, ...), every key a plugin manifest declares and every key of the client's config.toml
// schema is listed there, and everything listed there is still known to the code.
#include <actionhost/client/config.hpp>
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "config_key_scan.hpp"

namespace ck = actionhost::testing::config_keys;

namespace {

const std::filesystem::path kRoot = AH_SOURCE_DIR;

std::string read_doc() {
    std::ifstream f(kRoot / "docs/configuration.md", std::ios::binary);
    std::ostringstream text;
    text << f.rdbuf();
    return text.str();
}

// The source tree's inventory with the schema of the client's config.toml (the keys Config knows,
// with their defaults, section by section).
ck::Inventory inventory() {
    ck::Inventory inv = ck::scan_tree(kRoot);
    const actionhost::client::Config defaults;
    for (const auto &[section, fields] : defaults.sections().items())
        for (const auto &[key, value] : fields.items()) inv.schema.insert(section + "." + key);
    return inv;
}

// `doc` without the table rows whose first cell lists `key`.
std::string without_rows_of(const std::string &doc, const std::string &key) {
    std::istringstream in(doc);
    std::string out, line;
    while (std::getline(in, line)) {
        const bool row_of_key = line.rfind("|", 0) == 0 && line.substr(0, line.find('|', 1)).find("`" + key + "`") != std::string::npos;
        if (!row_of_key) out += line + "\n";
    }
    return out;
}

bool mentions(const std::vector<std::string> &problems, const std::string &key) {
    for (const auto &p : problems)
        if (p.rfind(key + " ", 0) == 0) return true;
    return false;
}

}  // namespace

TEST(ConfigurationDoc, ListsEveryKeyTheCodeKnowsAndNoOther) {
    const std::string doc = read_doc();
    ASSERT_FALSE(doc.empty()) << "cannot read " << (kRoot / "docs/configuration.md");
    const ck::Inventory inv = inventory();
    // Not vacuous: the scan found the tree and the keys in it.
    EXPECT_GT(inv.files_scanned, 200u);
    EXPECT_GT(inv.read.size(), 50u);
    EXPECT_GT(inv.schema.size(), 50u);
    EXPECT_FALSE(inv.declared.empty());
    EXPECT_GT(ck::documented_keys(doc).size(), 100u);
    for (const auto &problem : ck::doc_problems(inv, doc)) ADD_FAILURE() << problem;
}

TEST(ConfigurationDoc, TheScannerSeesEveryWayTheCodeReadsAKey) {
    const std::string source = R"cpp(
        // getenv("IN_A_COMMENT") is no read; nor is /* config_get("IN_A_BLOCK") */ this.
        const char *a = std::getenv("AH_GETENV");
        const char *b = secure_getenv("AH_SECURE");
        const char *c = env_->config_get("AH_CONFIG_GET");
        const char *d = raw->config_get(raw, "AH_RAW_CONFIG_GET");
        auto e = host().config("AH_SDK_CONFIG");
        auto f = config_string("modal.app_name", "NOT_A_KEY_BUT_A_DEFAULT");
        auto g = config_bool("sandbox.keep_runtime_alive", false) && config_number("kubernetes.ready_timeout_s", 300);
        auto h = setting("AH_ENV_NAME", "runloop.base_url", "https://x");
        auto i = credential("AH_CREDENTIAL", "core.some_api_key", "export AH_CREDENTIAL");
        auto j = size_setting(*env_, "AH_SIZE", 1'000'000) + seconds_setting(host, "AH_SECONDS", 30);
        auto k = config_int(settings_.config, "AH_INT", 8000);
        auto l = config_string(vendor + ".install_dir", "/openhands");
        auto m = env.find("AH_ENV_MAP");
        auto n = c.get_bool("core.enable_browser") || c.get_text("sandbox.volumes") || get("AH_LAMBDA");
        const char *raw = R"x(getenv("IN_A_RAW_STRING"))x";
        auto o = text.find("NOT_A_READ") + req.get("Upgrade") + api_->get("pods", pod_);
        char q = '"'; auto p = getenv("AH_AFTER_A_QUOTE_CHAR");
    )cpp";
    const std::set<std::string> expected = {
        "AH_GETENV",      "AH_SECURE",        "AH_CONFIG_GET",         "AH_RAW_CONFIG_GET", "AH_SDK_CONFIG",
        "modal.app_name", "sandbox.keep_runtime_alive", "kubernetes.ready_timeout_s", "AH_ENV_NAME",
        "runloop.base_url", "AH_CREDENTIAL", "core.some_api_key", "AH_SIZE",        "AH_SECONDS",
        "AH_INT",         "<vendor>.install_dir", "AH_ENV_MAP",      "core.enable_browser", "sandbox.volumes",
        "AH_LAMBDA",      "AH_AFTER_A_QUOTE_CHAR"};
    EXPECT_EQ(ck::keys_read_in(source), expected);
}

TEST(ConfigurationDoc, AManifestsKeysAreFound) {
    const auto m = nlohmann::json::parse(R"({"name": "p",
        "options": {"--on": {"sets": {"AH_P_ENABLED": "1"}}, "--x": {"value_of": "AH_P_X"}},
        "disabled_when": {"AH_P_OFF": "1"}})");
    EXPECT_EQ(ck::manifest_keys(m), (std::set<std::string>{"AH_P_ENABLED", "AH_P_X", "AH_P_OFF"}));
}

// The check fails, naming the key, when a key loses its row, when a row outlives its key, and when a
// plugin's declared key is listed under another heading.
TEST(ConfigurationDoc, AMissingOrStaleKeyIsNamed) {
    const std::string doc = read_doc();
    const ck::Inventory inv = inventory();
    ASSERT_TRUE(ck::doc_problems(inv, doc).empty()) << "fix ListsEveryKeyTheCodeKnowsAndNoOther first";

    for (const std::string &key : {inv.read.begin()->first, *inv.schema.begin(), inv.declared.begin()->first}) {
        const auto problems = ck::doc_problems(inv, without_rows_of(doc, key));
        EXPECT_TRUE(mentions(problems, key)) << key << " lost its row and no problem names it";
    }

    const auto stale = ck::doc_problems(inv, doc + "\n| `ACTIONHOST_NOTHING_READS_THIS` | host/main.cpp | | |\n");
    EXPECT_TRUE(mentions(stale, "ACTIONHOST_NOTHING_READS_THIS"));

    const auto &[declared, plugin] = *inv.declared.begin();
    const auto misplaced = ck::doc_problems(inv, without_rows_of(doc, declared) + "\n## elsewhere\n| `" + declared + "` | | |\n");
    ASSERT_EQ(misplaced.size(), 1u);
    EXPECT_NE(misplaced[0].find("heading naming `" + plugin + "`"), std::string::npos) << misplaced[0];
}
