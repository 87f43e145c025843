// actionhost._native: the Python binding of the C++ client library (runtimes/client). The Python package
// (python/actionhost) is a thin layer over it, so every behaviour — provisioning on each backend, the
// wire with its timeouts and retries, live output, file copies, shell quoting — has one implementation,
// the library's (docs/design.md, "Python").
//
// The binding speaks JSON text with the Python layer (options, actions, observations): one conversion,
// done by Python's json module and the library's own, instead of a second object mapping here.
//
// Threads: every call that waits (provisioning, an action, a copy) releases the GIL, so Python threads
// and asyncio's executor drive many sandboxes at once. A Runtime's wire is one connection, used by one
// thread at a time, so actions take a wire from a pool of the Runtime's (Runtime::open_wire) and give it
// back. Callbacks (status, live output) are called with the GIL taken, on whichever thread has the event.
#include <pybind11/functional.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <actionhost/client/errors.hpp>
#include <actionhost/client/file_copy.hpp>
#include <actionhost/client/runtime.hpp>
#include <actionhost/client/shell_quote.hpp>
#include <actionhost/client/state_store.hpp>
#include <actionhost/common/json_write.hpp>

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace py = pybind11;
using nlohmann::json;
namespace client = actionhost::client;

namespace {

json parse_options(const std::string &text) {
    json o = json::parse(text, nullptr, false);
    if (!o.is_object()) throw std::invalid_argument("options must be a JSON object");
    return o;
}

// The configuration the Python call describes: a TOML file (when given), then OpenHands' environment
// overrides (as OpenHands and ahctl apply them), then the call's own keys, which win.
client::Config config_of(const json &o) {
    client::Config config;
    if (auto f = o.find("config_file"); f != o.end() && f->is_string()) config = client::Config::from_file(f->get<std::string>());
    config.apply_env(client::current_environment());
    if (auto keys = o.find("config"); keys != o.end() && keys->is_object())
        for (const auto &[key, value] : keys->items()) config.set(key, value);
    return config;
}

std::string state_dir_of(const client::Config &config) {
    return client::StateStore::default_dir(config.get_text("core.state_dir"));
}

template <typename T>
std::vector<T> list_of(const json &o, const char *key) {
    std::vector<T> out;
    if (auto it = o.find(key); it != o.end() && it->is_array())
        for (const auto &v : *it) out.push_back(v.get<T>());
    return out;
}

// Calls a Python callable from any thread; a Python exception it raises is kept (the first one) and
// raised again by the call that triggered it, once the library returned.
class Callback {
  public:
    explicit Callback(py::object fn) : fn_(std::move(fn)) {}
    ~Callback() {
        py::gil_scoped_acquire gil;
        fn_ = py::object();
        error_.reset();
    }
    bool empty() const { return fn_.is_none() || !fn_; }
    template <typename... Args>
    void operator()(Args &&...args) {
        py::gil_scoped_acquire gil;
        if (error_) return;
        try {
            fn_(std::forward<Args>(args)...);
        } catch (py::error_already_set &e) {
            error_ = std::make_unique<py::error_already_set>(std::move(e));
        }
    }
    // With the GIL held.
    void raise_if_failed() {
        if (error_) {
            auto e = std::move(error_);
            e->restore();
            throw py::error_already_set();
        }
    }

  private:
    py::object fn_;
    std::unique_ptr<py::error_already_set> error_;
};

class NativeRuntime {
  public:
    NativeRuntime(const std::string &options_text, py::object on_status)
        : status_(std::make_shared<Callback>(std::move(on_status))) {
        const json o = parse_options(options_text);
        client::RuntimeOptions ro;
        ro.config = config_of(o);
        ro.session_id = o.value("session_id", "");
        if (o.value("attach", false)) {
            auto record = client::StateStore(state_dir_of(ro.config)).get(ro.session_id);
            if (!record)
                throw client::RuntimeNotFound("no sandbox with id " + ro.session_id +
                                              " (Sandbox.list() and `ahctl ps` list them)");
            ro.config.set("core.runtime", record->value("runtime", ro.config.runtime()));
        }
        if (o.value("keep_alive", false) || o.value("attach", false)) ro.config.set("sandbox.keep_runtime_alive", true);
        ro.install_dir = o.value("install_dir", "");
        ro.plugins = list_of<std::string>(o, "plugins");
        ro.plugin_dirs = list_of<std::string>(o, "plugin_dirs");
        if (auto env = o.find("envs"); env != o.end() && env->is_object())
            for (const auto &[k, v] : env->items()) ro.sandbox_env[k] = v.get<std::string>();
        if (!status_->empty())
            ro.on_status = [cb = status_](const std::string &s, const std::string &d) { (*cb)(s, d); };
        rt_ = client::Runtime::create(std::move(ro));
    }

    void connect() { without_gil([&] { rt_->connect(); }); }

    // One action; `on_event(type, data_json)` follows its live output when given. Returns the
    // observation as JSON text.
    std::string execute(const std::string &action_text, const std::string &session, py::object on_event) {
        json action = json::parse(action_text, nullptr, false);
        if (!action.is_object()) throw std::invalid_argument("an action must be a JSON object");
        auto events = std::make_shared<Callback>(std::move(on_event));
        client::LiveEventFn follow;
        if (!events->empty())
            follow = [events](const client::LiveEvent &e) { (*events)(e.type, actionhost::common::dump_json(e.data)); };
        std::string out;
        {
            py::gil_scoped_release nogil;
            out = actionhost::common::dump_json(on_a_wire([&](client::WireClient &w) { return rt_->execute(w, action, session, follow); }));
        }
        events->raise_if_failed();
        return out;
    }

    std::string list_files(const std::string &path, bool detail) {
        py::gil_scoped_release nogil;
        return actionhost::common::dump_json(on_a_wire([&](client::WireClient &w) { return w.list_files(path, detail); }));
    }

    void upload_bytes(const std::string &filename, const py::bytes &content, const std::string &dest) {
        std::string data = content;
        py::gil_scoped_release nogil;
        on_a_wire([&](client::WireClient &w) { return w.upload_bytes(filename, data, dest); });
    }

    void copy_to(const std::string &local, const std::string &dest, bool recursive) {
        py::gil_scoped_release nogil;
        on_a_wire([&](client::WireClient &w) { client::copy_to(w, local, dest, recursive); });
    }

    // The file at `path`, byte for byte (through the zip /download_files makes).
    py::bytes read_file(const std::string &path, uint64_t max_bytes) {
        std::string content;
        {
            py::gil_scoped_release nogil;
            client::CopyOptions options;
            options.max_bytes = max_bytes;
            const std::string zip = on_a_wire([&](client::WireClient &w) { return client::copy_from(w, path, options); });
            auto entries = client::read_zip(zip, max_bytes);
            // A file arrives as one entry of its own name; a directory as its entries (or none).
            std::string name = path;
            while (name.size() > 1 && name.back() == '/') name.pop_back();
            name = name.substr(name.rfind('/') + 1);
            if (entries.size() != 1 || entries.front().name != name)
                throw std::invalid_argument(path + " is not a file (a directory is copied with download())");
            content = std::move(entries.front().content);
        }
        return py::bytes(content);
    }

    std::vector<std::string> copy_from_into(const std::string &path, const std::string &local_dir) {
        py::gil_scoped_release nogil;
        return on_a_wire([&](client::WireClient &w) { return client::copy_from_into(w, path, local_dir); });
    }

    void pause() { without_gil([&] { rt_->pause(); }); }
    void resume() { without_gil([&] { rt_->resume(); }); }
    void close() {
        without_gil([&] {
            drop_wires();
            rt_->close();
        });
    }
    void kill() {
        without_gil([&] {
            drop_wires();
            rt_->stop_kept_alive();
        });
    }
    std::string snapshot(const std::string &name) {
        std::string digest;
        without_gil([&] { digest = rt_->snapshot(name); });
        return digest;
    }
    std::string publish_port(int port, int machine_port, const std::string &address) {
        std::string where;
        without_gil([&] { where = rt_->publish_port(port, machine_port, address); });
        return where;
    }
    void unpublish_port(int port) { without_gil([&] { rt_->unpublish_port(port); }); }
    std::string published_ports() {
        json out = json::array();
        without_gil([&] {
            for (const auto &p : rt_->published_ports()) out.push_back({{"port", p.port}, {"address", p.address}});
        });
        return actionhost::common::dump_json(out);
    }
    std::string http_url() {
        std::string url;
        without_gil([&] { url = rt_->http_url(); });
        return url;
    }
    std::string workspace_dir() {
        std::string dir;
        without_gil([&] { dir = rt_->workspace_dir(); });
        return dir;
    }
    std::string session_api_key() { return rt_->wire().session_api_key(); }
    client::Runtime &runtime() { return *rt_; }

  private:
    template <typename F>
    void without_gil(F &&f) {
        {
            py::gil_scoped_release nogil;
            f();
        }
        status_->raise_if_failed();
    }

    std::unique_ptr<client::WireClient> take_wire() {
        {
            std::lock_guard lock(pool_mu_);
            if (!pool_.empty()) {
                auto w = std::move(pool_.back());
                pool_.pop_back();
                return w;
            }
        }
        return rt_->open_wire();
    }
    // A wire whose call threw is dropped with the exception (its connection may be mid-reply); one that
    // answered goes back for the next call.
    void give_back(std::unique_ptr<client::WireClient> wire) {
        std::lock_guard lock(pool_mu_);
        if (pool_.size() < 16) pool_.push_back(std::move(wire));
    }
    // Runs `f(wire)` on a wire of the pool (the caller released the GIL) and returns what it returns; the
    // wire goes back only when `f` returned.
    template <typename F>
    auto on_a_wire(F &&f) -> std::invoke_result_t<F &, client::WireClient &> {
        auto wire = take_wire();
        if constexpr (std::is_void_v<std::invoke_result_t<F &, client::WireClient &>>) {
            f(*wire);
            give_back(std::move(wire));
        } else {
            auto result = f(*wire);
            give_back(std::move(wire));
            return result;
        }
    }
    void drop_wires() {
        std::lock_guard lock(pool_mu_);
        pool_.clear();
    }

    std::shared_ptr<Callback> status_;
    std::unique_ptr<client::Runtime> rt_;
    std::mutex pool_mu_;
    std::vector<std::unique_ptr<client::WireClient>> pool_;
};

// The kept-alive records of the state directory the options' configuration names, without their keys.
std::string kept_alive_records(const std::string &options_text) {
    const json o = parse_options(options_text);
    client::Config config = config_of(o);
    json out = json::array();
    {
        py::gil_scoped_release nogil;
        for (auto r : client::StateStore(state_dir_of(config)).list()) {
            r.erase("session_api_key");
            out.push_back(std::move(r));
        }
    }
    return actionhost::common::dump_json(out);
}

// Raises the Python class of actionhost.errors named `name` with `message`, and the wire's status and
// detail as attributes.
[[noreturn]] void raise_as(const char *name, const std::string &message, int status = 0, const std::string &detail = "") {
    py::object cls = py::module_::import("actionhost.errors").attr(name);
    py::object err = cls(message);
    err.attr("status") = status;
    err.attr("detail") = detail;
    PyErr_SetObject(cls.ptr(), err.ptr());
    throw py::error_already_set();
}

void translate_errors(std::exception_ptr p) {
    try {
        if (p) std::rethrow_exception(p);
    } catch (const client::ConfigError &e) {
        raise_as("ConfigurationError", e.what());
    } catch (const client::RuntimeNotFound &e) {
        raise_as("AgentRuntimeNotFoundError", e.what());
    } catch (const client::WireTimeout &e) {
        raise_as("AgentRuntimeTimeoutError", e.what(), e.status(), e.detail());
    } catch (const client::RuntimeDisconnected &e) {
        raise_as("AgentRuntimeDisconnectedError", e.what(), e.status(), e.detail());
    } catch (const client::WireError &e) {
        // No answer at all: the sandbox went away under the call (OpenHands reports the same).
        if (e.status() == 0) raise_as("AgentRuntimeDisconnectedError", e.what(), 0, e.detail());
        // OpenHands' server answers a missing file with 500 and the detail "404: File not found".
        if (e.status() == 404 || e.detail().rfind("404:", 0) == 0)
            raise_as("AgentRuntimeNotFoundError", e.what(), e.status(), e.detail());
        if (e.status() == 503) raise_as("AgentRuntimeUnavailableError", e.what(), e.status(), e.detail());
        raise_as("AgentRuntimeError", e.what(), e.status(), e.detail());
    } catch (const client::RuntimeError &e) {
        raise_as("AgentRuntimeError", e.what());
    }
}

}  // namespace

PYBIND11_MODULE(_native, m) {
    m.doc() = "The C++ client library of actionhost, bound for the actionhost package (use actionhost.Sandbox).";
    py::register_exception_translator(&translate_errors);

    py::class_<NativeRuntime>(m, "Runtime")
        .def(py::init<const std::string &, py::object>(), py::arg("options"), py::arg("on_status") = py::none())
        .def("connect", &NativeRuntime::connect)
        .def("execute", &NativeRuntime::execute, py::arg("action"), py::arg("session") = "", py::arg("on_event") = py::none())
        .def("list_files", &NativeRuntime::list_files, py::arg("path"), py::arg("detail") = false)
        .def("upload_bytes", &NativeRuntime::upload_bytes)
        .def("copy_to", &NativeRuntime::copy_to)
        .def("read_file", &NativeRuntime::read_file, py::arg("path"), py::arg("max_bytes") = uint64_t(4) << 30)
        .def("copy_from_into", &NativeRuntime::copy_from_into)
        .def("pause", &NativeRuntime::pause)
        .def("resume", &NativeRuntime::resume)
        .def("close", &NativeRuntime::close)
        .def("kill", &NativeRuntime::kill)
        .def("snapshot", &NativeRuntime::snapshot)
        .def("publish_port", &NativeRuntime::publish_port)
        .def("unpublish_port", &NativeRuntime::unpublish_port)
        .def("published_ports", &NativeRuntime::published_ports)
        .def("workspace_dir", &NativeRuntime::workspace_dir)
        .def("http_url", &NativeRuntime::http_url)
        .def("session_api_key", &NativeRuntime::session_api_key)
        .def_property_readonly("session_id", [](NativeRuntime &r) { return r.runtime().session_id(); })
        .def_property_readonly("runtime_name", [](NativeRuntime &r) { return r.runtime().runtime_name(); })
        .def_property_readonly("url", [](NativeRuntime &r) { return r.runtime().url(); })
        .def_property_readonly("runtime_id", [](NativeRuntime &r) { return r.runtime().runtime_id(); })
        .def_property_readonly("last_status", [](NativeRuntime &r) { return r.runtime().last_status(); });

    m.def("kept_alive_records", &kept_alive_records, py::arg("options"));
    m.def("bash_quote", [](const std::string &v) { return client::bash_quote(v); }, py::arg("value"));
}
