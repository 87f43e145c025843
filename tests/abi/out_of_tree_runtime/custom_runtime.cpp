// A third-party runtime backend written against the installed SDK headers only: it starts the host
// as a child process, using nothing but the C ABI's host services (config_get, wait_alive, set_status).
#include <actionhost/runtime.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

namespace {

struct Custom {
    const ah_runtime_host_t *host;
    pid_t pid = -1;
    std::string dir, url, key;
};

Custom *self(ah_runtime_t *rt) { return static_cast<Custom *>(rt->runtime_data); }

ah_status_t fail(Custom *c, const std::string &msg) {
    c->host->set_error(c->host, msg.c_str());
    return AH_ERR_IO;
}

ah_status_t do_connect(ah_runtime_t *rt) {
    Custom *c = self(rt);
    try {
        c->host->set_status(c->host, AH_STATUS_STARTING_RUNTIME, "vendor runtime starting");
        char tmpl[] = "/tmp/vendor-runtime-XXXXXX";
        if (!mkdtemp(tmpl)) return fail(c, "mkdtemp failed");
        c->dir = tmpl;
        auto args = nlohmann::json::parse(c->host->info->host_command_json);
        auto env = nlohmann::json::parse(c->host->info->env_json);
        c->key = env.value("SESSION_API_KEY", "");
        std::vector<std::string> argv = {std::string(c->host->info->install_dir) + "/bin/actionhost", "0",
                                         "--host", "127.0.0.1", "--port-file", c->dir + "/port"};
        // The workspace: this vendor always uses its own temp dir; user flags pass through after it.
        for (size_t i = 0; i < args.size(); ++i) {
            std::string a = args[i];
            if ((a == "--working-dir" || a == "--username" || a == "--user-id") && i + 1 < args.size()) {
                ++i;
                continue;
            }
            argv.push_back(a);
        }
        argv.insert(argv.end(), {"--working-dir", c->dir, "--username", "root", "--user-id", std::to_string(getuid())});
        const char *marker = c->host->config_get(c->host, "vendor.marker");
        std::vector<std::string> envs = {"PATH=/usr/bin:/bin", "HOME=" + c->dir, "USER=root",
                                         "VENDOR_MARKER=" + std::string(marker ? marker : "unset")};
        for (auto &[k, v] : env.items()) envs.push_back(k + "=" + v.get<std::string>());
        std::vector<char *> av, ev;
        for (auto &a : argv) av.push_back(a.data());
        av.push_back(nullptr);
        for (auto &e : envs) ev.push_back(e.data());
        ev.push_back(nullptr);
        c->pid = fork();
        if (c->pid == 0) {
            execve(av[0], av.data(), ev.data());
            _exit(127);
        }
        int port = 0;
        for (int i = 0; i < 3000 && port == 0; ++i) {
            std::ifstream in(c->dir + "/port");
            if (!(in >> port)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
        }
        if (port == 0) return fail(c, "the host never wrote its port");
        c->url = "http://127.0.0.1:" + std::to_string(port);
        ah_status_t st = c->host->wait_alive(c->host, c->url.c_str(), c->key.c_str(), 30);
        if (st != AH_OK) return fail(c, "the host did not become alive");
        return AH_OK;
    } catch (const std::exception &e) {
        return fail(c, e.what());
    }
}

ah_status_t do_endpoint(ah_runtime_t *rt, ah_runtime_endpoint_t *out) {
    Custom *c = self(rt);
    out->struct_size = sizeof *out;
    out->url = c->url.c_str();
    out->session_api_key = c->key.c_str();
    out->runtime_id = "vendor-1";
    return AH_OK;
}

ah_status_t unsupported(ah_runtime_t *) { return AH_ERR_UNSUPPORTED; }

ah_status_t do_close(ah_runtime_t *rt) {
    Custom *c = self(rt);
    if (c->pid > 0) {
        kill(c->pid, SIGTERM);
        waitpid(c->pid, nullptr, 0);
        c->pid = -1;
    }
    if (!c->dir.empty()) {
        std::string cmd = "rm -rf '" + c->dir + "'";
        (void)!system(cmd.c_str());
        c->dir.clear();
    }
    return AH_OK;
}

void do_destroy(ah_runtime_t *rt) {
    do_close(rt);
    delete self(rt);
    delete rt;
}

const void *no_extension(const ah_runtime_t *, const char *) { return nullptr; }

ah_runtime_t *create(const ah_runtime_host_t *host, const char *name) {
    if (std::string(name) != "vendor.CustomRuntime") {
        host->set_error(host, "vendor module provides only vendor.CustomRuntime");
        return nullptr;
    }
    auto *rt = new ah_runtime_t{};
    rt->struct_size = sizeof *rt;
    rt->runtime_data = new Custom{host};
    rt->connect = do_connect;
    rt->endpoint = do_endpoint;
    rt->pause = unsupported;
    rt->resume = unsupported;
    rt->close = do_close;
    rt->destroy = do_destroy;
    rt->get_extension = no_extension;
    return rt;
}

}  // namespace

AH_EXPORT const ah_runtime_entry_t *actionhost_runtime_entry(void) {
    static const ah_runtime_entry_t entry = {AH_ABI_VERSION_INIT, sizeof(ah_runtime_entry_t), "vendor", "1.0.0", create};
    return &entry;
}
