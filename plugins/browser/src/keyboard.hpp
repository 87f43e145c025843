// The US keyboard layout Playwright uses for press(): key names to DOM key/code/keyCode/text, and the
// splitting of "Control+Shift+a" combinations.
#pragma once

#include <optional>
#include <string>
#include <vector>

namespace actionhost::browser {

struct KeyDefinition {
    std::string key;   // KeyboardEvent.key
    std::string code;  // KeyboardEvent.code
    int key_code = 0;  // windowsVirtualKeyCode
    std::string text;  // text the key types ("" for none)
    int location = 0;
};

// Looks up a key name ("a", "A", "Enter", "ArrowLeft", "Control", "ControlOrMeta", "+", ...).
std::optional<KeyDefinition> lookup_key(const std::string &name);

// Playwright's split of a combination on '+': "Control++" -> {"Control", "+"}.
std::vector<std::string> split_key_combination(const std::string &combination);

// The CDP modifier bit of a modifier key name (Alt 1, Control 2, Meta 4, Shift 8), or 0.
int modifier_bit(const std::string &key);

}  // namespace actionhost::browser
