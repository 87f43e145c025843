// The smallest complete actionhost plugin: provides the action "hello" and answers with a greeting.
// Request:  {"action": {"action": "hello", "args": {"name": "Ada"}}}
// Answer:   {"observation": "hello", "content": "Hello, Ada!", "message": "Greeted Ada.", "extras": {...}}
// Its manifest declares the action's arguments (name: a string, required; loud: a boolean, false by
// default), so the host refuses `{"name": 3}` or a missing name before execute runs, and fills `loud`.
// JSON goes through the host's JSON service (JsonDoc, JsonWriter): a name with quotes, backslashes or
// newlines comes back exactly as it was sent.
#include <actionhost/plugin.hpp>

#include <string>

namespace {

class HelloPlugin : public actionhost::sdk::Plugin {
  public:
    using Plugin::Plugin;

    ah_status_t init() override {
        host().log(AH_LOG_INFO, "hello plugin ready; working dir " + std::string(host().info().working_dir));
        return AH_OK;
    }

    ah_status_t execute(actionhost::sdk::Call &call) override {
        const actionhost::sdk::JsonDoc action(host(), call.action_json());
        std::string name(action.string("/args/name").value_or(""));  // present and a string: the host checked
        if (action.boolean("/args/loud").value_or(false)) name += " (LOUDLY)";
        call.emit_partial("greeting " + name + "...");
        actionhost::sdk::JsonWriter answer(host());
        answer.begin_object()
            .string("observation", "hello")
            .string("content", "Hello, " + name + "!")
            .string("message", "Greeted " + name + ".")
            .begin_object("extras")
            .string("session", call.session())
            .end()
            .end();
        call.reply(answer.finish());
        return AH_OK;
    }
};

}  // namespace

ACTIONHOST_PLUGIN(HelloPlugin, "hello", "1.2.0")
