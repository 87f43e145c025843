#include "keyboard.hpp"

#include <map>

namespace actionhost::browser {
namespace {

const std::map<std::string, KeyDefinition> &named_keys() {
    static const std::map<std::string, KeyDefinition> keys = [] {
        std::map<std::string, KeyDefinition> k;
        auto add = [&](const std::string &key, const std::string &code, int kc, const std::string &text = "", int loc = 0) {
            k[key] = KeyDefinition{key, code, kc, text, loc};
        };
        add("Backspace", "Backspace", 8);
        add("Tab", "Tab", 9);
        add("Enter", "Enter", 13, "\r");
        add("Shift", "ShiftLeft", 16, "", 1);
        add("Control", "ControlLeft", 17, "", 1);
        add("Alt", "AltLeft", 18, "", 1);
        add("Pause", "Pause", 19);
        add("CapsLock", "CapsLock", 20);
        add("Escape", "Escape", 27);
        add("PageUp", "PageUp", 33);
        add("PageDown", "PageDown", 34);
        add("End", "End", 35);
        add("Home", "Home", 36);
        add("ArrowLeft", "ArrowLeft", 37);
        add("ArrowUp", "ArrowUp", 38);
        add("ArrowRight", "ArrowRight", 39);
        add("ArrowDown", "ArrowDown", 40);
        add("Insert", "Insert", 45);
        add("Delete", "Delete", 46);
        add("Meta", "MetaLeft", 91, "", 1);
        add("ContextMenu", "ContextMenu", 93);
        for (int i = 1; i <= 12; ++i) add("F" + std::to_string(i), "F" + std::to_string(i), 111 + i);
        add("NumLock", "NumLock", 144);
        add("ScrollLock", "ScrollLock", 145);
        // Playwright also accepts code names for these.
        k["Space"] = KeyDefinition{" ", "Space", 32, " ", 0};
        k[" "] = KeyDefinition{" ", "Space", 32, " ", 0};
        k["ShiftLeft"] = k["Shift"];
        k["ControlLeft"] = k["Control"];
        k["AltLeft"] = k["Alt"];
        k["MetaLeft"] = k["Meta"];
        k["ShiftRight"] = KeyDefinition{"Shift", "ShiftRight", 16, "", 2};
        k["ControlRight"] = KeyDefinition{"Control", "ControlRight", 17, "", 2};
        k["AltRight"] = KeyDefinition{"Alt", "AltRight", 18, "", 2};
        k["MetaRight"] = KeyDefinition{"Meta", "MetaRight", 92, "", 2};
        // Linux: ControlOrMeta is Control.
        k["ControlOrMeta"] = k["Control"];
        // Punctuation and its shifted forms: (unshifted, shifted, code, keyCode).
        struct P { char plain, shifted; const char *code; int kc; };
        const P punct[] = {{'`', '~', "Backquote", 192}, {'-', '_', "Minus", 189}, {'=', '+', "Equal", 187},
                           {'[', '{', "BracketLeft", 219}, {']', '}', "BracketRight", 221}, {'\\', '|', "Backslash", 220},
                           {';', ':', "Semicolon", 186}, {'\'', '"', "Quote", 222}, {',', '<', "Comma", 188},
                           {'.', '>', "Period", 190}, {'/', '?', "Slash", 191}};
        for (const auto &p : punct) {
            k[std::string(1, p.plain)] = KeyDefinition{std::string(1, p.plain), p.code, p.kc, std::string(1, p.plain), 0};
            k[std::string(1, p.shifted)] = KeyDefinition{std::string(1, p.shifted), p.code, p.kc, std::string(1, p.shifted), 0};
        }
        const char *digit_shift = ")!@#$%^&*(";
        for (int d = 0; d <= 9; ++d) {
            std::string ds(1, static_cast<char>('0' + d));
            k[ds] = KeyDefinition{ds, "Digit" + ds, 48 + d, ds, 0};
            std::string sh(1, digit_shift[d]);
            k[sh] = KeyDefinition{sh, "Digit" + ds, 48 + d, sh, 0};
        }
        for (char c = 'a'; c <= 'z'; ++c) {
            std::string lo(1, c), up(1, static_cast<char>(c - 'a' + 'A'));
            k[lo] = KeyDefinition{lo, "Key" + up, 65 + (c - 'a'), lo, 0};
            k[up] = KeyDefinition{up, "Key" + up, 65 + (c - 'a'), up, 0};
            k["Key" + up] = k[lo];
        }
        for (int d = 0; d <= 9; ++d) k["Digit" + std::to_string(d)] = k[std::to_string(d)];
        return k;
    }();
    return keys;
}

}  // namespace

std::optional<KeyDefinition> lookup_key(const std::string &name) {
    const auto &keys = named_keys();
    auto it = keys.find(name);
    if (it != keys.end()) return it->second;
    // Any other single character (non-ASCII letters, symbols) types itself.
    if (!name.empty()) {
        auto b = static_cast<unsigned char>(name[0]);
        size_t len = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
        if (len == name.size() && len > 1) return KeyDefinition{name, "", 0, name, 0};
    }
    return std::nullopt;
}

std::vector<std::string> split_key_combination(const std::string &combination) {
    std::vector<std::string> keys;
    std::string building;
    for (char c : combination) {
        if (c == '+' && !building.empty()) {
            keys.push_back(building);
            building.clear();
        } else {
            building += c;
        }
    }
    keys.push_back(building);
    return keys;
}

int modifier_bit(const std::string &key) {
    if (key == "Alt") return 1;
    if (key == "Control") return 2;
    if (key == "Meta") return 4;
    if (key == "Shift") return 8;
    return 0;
}

}  // namespace actionhost::browser
