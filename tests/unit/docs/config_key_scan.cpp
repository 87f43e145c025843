#include "config_key_scan.hpp"

#include <cctype>
#include <fstream>
#include <regex>
#include <sstream>

namespace actionhost::testing::config_keys {
namespace fs = std::filesystem;

namespace {

bool ident_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

// Whether a raw string literal (R"delim(...)delim", with an optional u8/u/U/L prefix) starts at s[i].
bool raw_string_at(const std::string &s, size_t i) {
    if (s[i] != 'R' || i + 1 >= s.size() || s[i + 1] != '"') return false;
    size_t b = i;
    while (b > 0 && ident_char(s[b - 1])) --b;
    const std::string prefix = s.substr(b, i - b);
    return prefix.empty() || prefix == "u8" || prefix == "u" || prefix == "U" || prefix == "L";
}

// Where the raw string literal starting at s[i] ends (one past its closing quote).
size_t raw_string_end(const std::string &s, size_t i) {
    const size_t paren = s.find('(', i + 2);
    if (paren == std::string::npos) return s.size();
    const std::string close = ")" + s.substr(i + 2, paren - i - 2) + "\"";
    const size_t end = s.find(close, paren);
    return end == std::string::npos ? s.size() : end + close.size();
}

// A ' that separates digits (1'000) rather than opening a character literal.
bool digit_separator_at(const std::string &s, size_t i) { return i > 0 && std::isxdigit(static_cast<unsigned char>(s[i - 1])); }

// A string literal of a source text: where its opening quote is, and its text (escapes left as written).
struct Literal {
    size_t open = 0;
    std::string text;
};

// Walks a comment-free text and returns its ordinary string literals; raw strings and character literals
// are skipped (they never hold a key here), as are digit separators (1'000).
std::vector<Literal> literals_of(const std::string &s) {
    std::vector<Literal> out;
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (raw_string_at(s, i)) {
            i = raw_string_end(s, i) - 1;
        } else if (c == '\'' && !digit_separator_at(s, i)) {
            for (++i; i < s.size() && s[i] != '\''; ++i)
                if (s[i] == '\\') ++i;
        } else if (c == '"') {
            Literal lit{i, ""};
            for (++i; i < s.size() && s[i] != '"'; ++i) {
                if (s[i] == '\\' && i + 1 < s.size()) lit.text += s[i++];
                lit.text += s[i];
            }
            out.push_back(std::move(lit));
        }
    }
    return out;
}

bool env_style(const std::string &k) {
    static const std::regex re("[A-Z][A-Z0-9]*(_[A-Z0-9]+)*");
    return std::regex_match(k, re);
}

// ENV_STYLE, section.key, or a name the code builds: <vendor>.port, SANDBOX_ENV_<NAME>.
bool key_shaped(const std::string &k) {
    static const std::regex dotted("(<[a-z_]+>|[a-z][a-z0-9_]*)\\.[a-z][a-z0-9_]*");
    static const std::regex built("[A-Z][A-Z0-9_]*<[A-Z_]+>");
    return env_style(k) || std::regex_match(k, dotted) || std::regex_match(k, built);
}

const std::set<std::string> &readers() {
    static const std::set<std::string> r = {
        "getenv",     "secure_getenv", "config_get", "config",     "config_string", "config_bool",
        "config_number", "config_int", "get",        "get_text",   "get_string",    "get_bool",
        "get_number", "is_explicit",   "setting",    "size_setting", "seconds_setting", "credential",
        "number"};
    return r;
}

// Readers that take two keys: the environment variable, then the config.toml key it overrides.
bool two_key_reader(const std::string &f) { return f == "setting" || f == "credential"; }

size_t skip_space_back(const std::string &s, size_t i) {  // i: one past the char to look at
    while (i > 0 && std::isspace(static_cast<unsigned char>(s[i - 1]))) --i;
    return i;
}

// The identifier that ends just before `end` (after skipping white space), and where it starts.
std::string identifier_before(const std::string &s, size_t end, size_t &start) {
    end = skip_space_back(s, end);
    start = end;
    while (start > 0 && ident_char(s[start - 1])) --start;
    return s.substr(start, end - start);
}

// The function called by the '(' at `paren`, and the object it is called on ("" for none).
std::string callee(const std::string &s, size_t paren, std::string &receiver) {
    size_t start = 0;
    std::string name = identifier_before(s, paren, start);
    receiver.clear();
    size_t before = skip_space_back(s, start);
    if (before >= 1 && s[before - 1] == '.') {
        receiver = identifier_before(s, before - 1, start);
    } else if (before >= 2 && s[before - 1] == '>' && s[before - 2] == '-') {
        receiver = identifier_before(s, before - 2, start);
    }
    return name;
}

bool reads(const std::string &name, const std::string &receiver) {
    if (readers().count(name)) return true;
    // env.find("DOCKER_HOST") on an environment map.
    return name == "find" && receiver.size() >= 3 && receiver.compare(receiver.size() - 3, 3, "env") == 0;
}

}  // namespace

std::string without_comments(const std::string &s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size(); ++i) {
        const char c = s[i];
        if (c == '/' && i + 1 < s.size() && s[i + 1] == '/') {
            while (i < s.size() && s[i] != '\n') ++i;
            if (i < s.size()) out += '\n';
        } else if (c == '/' && i + 1 < s.size() && s[i + 1] == '*') {
            const size_t end = s.find("*/", i + 2);
            i = end == std::string::npos ? s.size() : end + 1;
            out += ' ';
        } else if (raw_string_at(s, i)) {
            const size_t stop = raw_string_end(s, i);
            out.append(s, i, stop - i);
            i = stop - 1;
        } else if (c == '"' || (c == '\'' && !digit_separator_at(s, i))) {
            out += c;
            for (++i; i < s.size() && s[i] != c; ++i) {
                if (s[i] == '\\' && i + 1 < s.size()) out += s[i++];
                out += s[i];
            }
            if (i < s.size()) out += s[i];
        } else {
            out += c;
        }
    }
    return out;
}

std::set<std::string> string_literals(const std::string &text) {
    std::set<std::string> out;
    for (auto &l : literals_of(without_comments(text))) out.insert(l.text);
    return out;
}

std::set<std::string> keys_read_in(const std::string &text) {
    const std::string s = without_comments(text);
    const std::vector<Literal> lits = literals_of(s);
    std::set<std::string> keys;
    std::string receiver;
    for (size_t n = 0; n < lits.size(); ++n) {
        const Literal &lit = lits[n];
        const size_t p = skip_space_back(s, lit.open);
        if (p == 0) continue;
        std::string key = lit.text;
        bool read = false;
        if (s[p - 1] == '(') {  // f("KEY" ...
            read = reads(callee(s, p - 1, receiver), receiver);
        } else if (s[p - 1] == ',') {
            const size_t q = skip_space_back(s, p - 1);
            if (q > 0 && s[q - 1] == '"' && n > 0 && lits[n - 1].open < q) {  // setting("ENV", "section.key" ...
                const size_t r = skip_space_back(s, lits[n - 1].open);
                read = r > 0 && s[r - 1] == '(' && two_key_reader(callee(s, r - 1, receiver));
            } else {  // f(simple_argument, "KEY" ...: config_get(raw, "K"), size_setting(*env_, "K", 1)
                size_t a = q;
                while (a > 0 && (ident_char(s[a - 1]) || std::string_view(".*&->: ").find(s[a - 1]) != std::string_view::npos))
                    --a;
                read = a > 0 && a < q && s[a - 1] == '(' && reads(callee(s, a - 1, receiver), receiver);
            }
        } else if (s[p - 1] == '+' && !key.empty() && key[0] == '.') {  // config_string(vendor + ".port", ...)
            size_t start = 0;
            const std::string var = identifier_before(s, p - 1, start);
            const size_t q = skip_space_back(s, start);
            if (!var.empty() && q > 0 && s[q - 1] == '(' && reads(callee(s, q - 1, receiver), receiver)) {
                key = "<" + var + ">" + key;
                read = true;
            }
        }
        if (read && key_shaped(key)) keys.insert(key);
    }
    return keys;
}

std::set<std::string> manifest_keys(const nlohmann::json &m) {
    std::set<std::string> keys;
    if (m.contains("options") && m["options"].is_object()) {
        for (const auto &[flag, option] : m["options"].items()) {
            if (option.contains("sets") && option["sets"].is_object())
                for (const auto &[k, v] : option["sets"].items()) keys.insert(k);
            if (option.contains("value_of") && option["value_of"].is_string()) keys.insert(option["value_of"].get<std::string>());
        }
    }
    if (m.contains("disabled_when") && m["disabled_when"].is_object())
        for (const auto &[k, v] : m["disabled_when"].items()) keys.insert(k);
    return keys;
}

std::vector<DocumentedKey> documented_keys(const std::string &markdown) {
    std::vector<DocumentedKey> out;
    std::istringstream in(markdown);
    std::string line, heading;
    bool fenced = false;
    static const std::regex tick("`([^`]+)`");
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.rfind("```", 0) == 0) fenced = !fenced;
        if (fenced) continue;
        if (line.rfind("#", 0) == 0) {
            heading = line;
            continue;
        }
        if (line.rfind("|", 0) != 0) continue;
        const size_t end = line.find('|', 1);
        const std::string first = line.substr(1, end == std::string::npos ? std::string::npos : end - 1);
        for (std::sregex_iterator it(first.begin(), first.end(), tick), stop; it != stop; ++it) {
            std::string k = (*it)[1];
            if (key_shaped(k)) out.push_back({k, heading, number});
        }
    }
    return out;
}

Inventory scan_tree(const fs::path &root) {
    Inventory inv;
    auto slurp = [](const fs::path &p) {
        std::ifstream f(p, std::ios::binary);
        std::ostringstream text;
        text << f.rdbuf();
        return text.str();
    };
    // The Python package's modules too: the OpenHands runtime class reads an environment variable of its own.
    static const std::set<std::string> sources = {".c", ".cc", ".cpp", ".h", ".hpp", ".py"};
    for (const char *top : {"host", "plugins", "runtimes", "common", "sdk", "python"}) {
        if (!fs::is_directory(root / top)) continue;
        for (const auto &e : fs::recursive_directory_iterator(root / top)) {
            if (!e.is_regular_file()) continue;
            const fs::path &p = e.path();
            const std::string rel = fs::relative(p, root).string();
            if (p.filename() == "manifest.json") {
                auto m = nlohmann::json::parse(slurp(p), nullptr, false);
                if (m.is_discarded()) continue;
                for (const auto &k : manifest_keys(m)) inv.declared[k] = m.value("name", p.parent_path().filename().string());
            } else if (sources.count(p.extension().string())) {
                const std::string text = slurp(p);
                ++inv.files_scanned;
                for (const auto &k : keys_read_in(text)) inv.read[k].insert(rel);
                auto lits = string_literals(text);
                inv.literals.insert(lits.begin(), lits.end());
            }
        }
    }
    return inv;
}

std::vector<std::string> doc_problems(const Inventory &inv, const std::string &doc) {
    std::vector<std::string> problems;
    const std::vector<DocumentedKey> listed = documented_keys(doc);
    std::set<std::string> documented;
    for (const auto &d : listed) documented.insert(d.key);

    auto missing = [&](const std::string &key, const std::string &where) {
        if (!documented.count(key)) problems.push_back(key + " (" + where + ") is missing from docs/configuration.md");
    };
    for (const auto &[key, files] : inv.read) {
        std::string where = "read in";
        size_t shown = 0;
        for (const auto &f : files)
            if (shown++ < 3) where += " " + f;
        missing(key, where);
    }
    for (const auto &[key, plugin] : inv.declared) missing(key, "declared by the " + plugin + " plugin's manifest");
    for (const auto &key : inv.schema) missing(key, "a config.toml key of the client's schema");

    for (const auto &d : listed) {
        if (inv.read.count(d.key) || inv.declared.count(d.key) || inv.schema.count(d.key) || inv.literals.count(d.key)) continue;
        const size_t lt = d.key.find('<');  // SANDBOX_ENV_<NAME>: the code builds it from "SANDBOX_ENV_"
        if (lt != std::string::npos && lt > 0 && inv.literals.count(d.key.substr(0, lt))) continue;
        problems.push_back(d.key + " is documented in docs/configuration.md (line " + std::to_string(d.line) +
                           ") but no code reads or names it any more");
    }
    for (const auto &[key, plugin] : inv.declared) {
        bool placed = false;
        for (const auto &d : listed) placed = placed || (d.key == key && d.heading.find("`" + plugin + "`") != std::string::npos);
        if (!placed && documented.count(key))
            problems.push_back(key + " (declared by the " + plugin + " plugin's manifest) is not listed under a heading naming `" +
                               plugin + "` in docs/configuration.md");
    }
    return problems;
}

}  // namespace actionhost::testing::config_keys
