// The smallest complete actionhost plugin: provides the action "hello" and answers with a greeting.
// Request:  {"action": {"action": "hello", "args": {"name": "Ada"}}}
// Answer:   {"observation": "hello", "content": "Hello, Ada!", "message": "Greeted Ada.", "extras": {...}}
// Its manifest declares the action's arguments (name: a string, required; loud: a boolean, false by
// default), so the host refuses `{"name": 3}` or a missing name before execute runs, and fills `loud`.
#include <actionhost/plugin.hpp>

#include <string>

namespace {

// Pulls a string argument out of the action JSON. A real plugin would use a JSON library; this one
// keeps its dependencies to the SDK alone.
std::string string_arg(std::string_view json, const std::string &key) {
    const std::string needle = "\"" + key + "\":\"";
    const size_t at = json.find(needle);
    if (at == std::string_view::npos) return "";
    const size_t start = at + needle.size();
    const size_t end = json.find('"', start);
    return std::string(json.substr(start, end - start));
}

class HelloPlugin : public actionhost::sdk::Plugin {
  public:
    using Plugin::Plugin;

    ah_status_t init() override {
        host().log(AH_LOG_INFO, "hello plugin ready; working dir " + std::string(host().info().working_dir));
        return AH_OK;
    }

    ah_status_t execute(actionhost::sdk::Call &call) override {
        std::string name = string_arg(call.action_json(), "name");  // present and a string: the host checked
        if (call.action_json().find("\"loud\":true") != std::string_view::npos) name += " (LOUDLY)";
        call.emit_partial("greeting " + name + "...");
        call.reply("{\"observation\":\"hello\",\"content\":\"Hello, " + name + "!\",\"message\":\"Greeted " + name +
                   ".\",\"extras\":{\"session\":\"" + std::string(call.session()) + "\"}}");
        return AH_OK;
    }
};

}  // namespace

ACTIONHOST_PLUGIN(HelloPlugin, "hello", "1.2.0")
