// The C ABI face of the browser module: `browse` and `browse_interactive` go to one BrowserService.
#include <actionhost/plugin.hpp>

#include "browser_service.hpp"

namespace actionhost::browser {

class BrowserPlugin : public sdk::Plugin {
  public:
    explicit BrowserPlugin(sdk::Host host) : sdk::Plugin(host) {
        ServiceOptions o;
        const auto &info = host.info();
        o.working_dir = info.working_dir != nullptr ? info.working_dir : ".";
        o.username = info.username != nullptr ? info.username : "";
        o.log = [host](const std::string &note) { host.log(AH_LOG_WARNING, "browser: " + note); };
        // Both set by the options this plugin's manifest declares (OpenHands' --no-enable-browser and
        // --browsergym-eval-env), or by --set / the environment.
        if (auto e = host.config("ACTIONHOST_BROWSER_ENABLED")) o.browser_enabled = *e != "0" && *e != "false";
        if (auto p = host.config("ACTIONHOST_BROWSER_CHROMIUM")) o.chromium_path = *p;
        if (auto env = host.config("ACTIONHOST_BROWSERGYM_EVAL_ENV")) o.eval_env = *env;
        if (auto u = host.config("MINIWOB_URL")) o.miniwob_url = *u;
        if (auto t = host.config("ACTIONHOST_BROWSER_STEP_TIMEOUT")) {
            try {
                o.default_timeout_s = std::stod(*t);
            } catch (...) {
            }
        }
        service_ = std::make_unique<BrowserService>(o);
    }

    ah_status_t init() override {
        auto when = host().config("ACTIONHOST_BROWSER_START");
        if (when && (*when == "init" || *when == "eager")) {
            if (auto started = service_->start_now(); !started)
                host().log(AH_LOG_WARNING, "browser: could not start at init: " + started.error().message);
        }
        return AH_OK;
    }

    ah_status_t execute(sdk::Call &call) override {
        call.reply(service_->execute(std::string(call.action_json()), std::string(call.cwd())));
        return AH_OK;
    }

    void shutdown() override { service_->shutdown(); }

  private:
    std::unique_ptr<BrowserService> service_;
};

}  // namespace actionhost::browser

ACTIONHOST_PLUGIN(actionhost::browser::BrowserPlugin, "browser", "0.1.0")
