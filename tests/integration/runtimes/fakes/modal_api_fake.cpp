#include "modal_api_fake.hpp"

#include <grpcpp/grpcpp.h>

#include <actionhost/runtime_support/cloud_backend.hpp>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "modal_api.grpc.pb.h"
#include "process_box.hpp"
#include "tunnel_proxy.hpp"

namespace cloud_fakes {

using namespace modal::client;
using Clock = std::chrono::steady_clock;

namespace {

const std::chrono::milliseconds kSchedule(300);  // time from SandboxCreate until the task runs
const uint32_t kDefaultTimeoutSecs = 300;         // Modal's sandbox timeout when the definition has none (5 minutes)

struct Image {
    bool built = false;
    std::string fail;
};

struct Exec {
    std::string output;
    std::optional<int> exit_code;
};

struct FakeSandbox {
    std::string id, task_id, name;
    Sandbox def;
    std::map<std::string, std::string> env;
    std::unique_ptr<ProcessBox> box;
    pid_t pid = -1;
    Clock::time_point scheduled_at;
    std::map<uint32_t, std::unique_ptr<TunnelProxy>> tunnels;
    std::optional<GenericResult> result;
    int running_execs = 0;           // ContainerExec commands not finished: activity
    Clock::time_point last_active;   // the last moment the sandbox was active (idle_timeout_secs)
};

}  // namespace

struct ModalApiFake::Impl final : public ModalClient::Service {
    std::string token_id, token_secret;
    std::optional<actionhost::testing::TlsServerFiles> tunnel_tls;
    mutable std::mutex mutex;
    std::condition_variable changed;
    std::map<std::string, std::string> apps;  // name → id
    std::map<std::string, std::map<std::string, std::string>> secrets;
    std::map<std::string, Image> images;
    std::map<std::string, std::string> image_by_recipe;
    std::map<std::string, std::shared_ptr<FakeSandbox>> boxes;
    std::map<std::string, std::shared_ptr<Exec>> execs;
    std::vector<std::thread> workers;
    std::vector<std::string> calls;
    std::vector<std::pair<std::string, std::pair<int, int>>> failures;
    std::string fail_image;
    std::map<std::string, std::string> last_secret;
    std::vector<std::string> last_entrypoint;
    std::string last_network_access;
    Sandbox last_definition;
    int next_id = 1;
    int port = 0;
    std::unique_ptr<grpc::Server> server;
    std::atomic<bool> stopping{false};
    std::thread clock;  // ends sandboxes whose timeout or idle timeout passed, as Modal's scheduler does

    // A sandbox's end by its timeout (definition.timeout_secs, counted from when its task runs) or its
    // idle timeout: Modal calls it idle when no exec runs, no stdin is written and no TCP connection is
    // open over one of its tunnels. Returns the sandboxes to stop (outside the lock: stopping waits).
    std::vector<std::shared_ptr<FakeSandbox>> expire(Clock::time_point now) {
        std::vector<std::shared_ptr<FakeSandbox>> ended;
        for (auto &[sid, s] : boxes) {
            refresh(*s);
            if (s->result || now < s->scheduled_at) continue;
            const uint32_t timeout = s->def.timeout_secs() ? s->def.timeout_secs() : kDefaultTimeoutSecs;
            std::optional<GenericResult::GenericStatus> why;
            if (now - s->scheduled_at >= std::chrono::seconds(timeout)) why = GenericResult::GENERIC_STATUS_TIMEOUT;
            if (!why && s->def.has_idle_timeout_secs()) {
                bool active = s->running_execs > 0;
                for (const auto &[p, t] : s->tunnels) active = active || t->open_connections() > 0;
                if (active) s->last_active = now;
                else if (now - s->last_active >= std::chrono::seconds(s->def.idle_timeout_secs()))
                    why = GenericResult::GENERIC_STATUS_IDLE_TIMEOUT;
            }
            if (!why) continue;
            GenericResult r;
            r.set_status(*why);
            s->result = r;
            for (auto &[p, t] : s->tunnels) t->set_open(false);
            ended.push_back(s);
        }
        return ended;
    }

    std::string id(const std::string &prefix) { return prefix + "-" + std::to_string(next_id++); }

    // Token metadata and injected failures, checked before every RPC.
    grpc::Status admit(grpc::ServerContext *ctx, const std::string &rpc) {
        auto meta = ctx->client_metadata();
        auto get = [&](const char *k) {
            auto it = meta.find(k);
            return it == meta.end() ? std::string() : std::string(it->second.data(), it->second.size());
        };
        calls.push_back(rpc + " attempt=" + get("x-retry-attempt"));
        if (get("x-modal-token-id") != token_id || get("x-modal-token-secret") != token_secret)
            return {grpc::UNAUTHENTICATED, "Invalid token id or secret"};
        for (auto it = failures.begin(); it != failures.end(); ++it) {
            if (it->first != rpc) continue;
            auto code = static_cast<grpc::StatusCode>(it->second.first);
            if (--it->second.second <= 0) failures.erase(it);
            return {code, "injected failure"};
        }
        return grpc::Status::OK;
    }

    // Notices an exited entrypoint: the sandbox's result becomes SUCCESS/FAILURE with its exit code.
    void refresh(FakeSandbox &s) {
        if (s.result || s.pid < 0 || Clock::now() < s.scheduled_at) return;
        if (s.box->running(s.pid)) return;
        GenericResult r;
        std::string log = s.box->log(s.pid);
        r.set_status(GenericResult::GENERIC_STATUS_FAILURE);
        r.set_exception("entrypoint exited: " + log.substr(log.size() > 500 ? log.size() - 500 : 0));
        s.result = r;
        for (auto &[p, t] : s.tunnels) t->set_open(false);
    }

    std::shared_ptr<FakeSandbox> find(const std::string &sid) {
        auto it = boxes.find(sid);
        return it == boxes.end() ? nullptr : it->second;
    }

    grpc::Status AppGetOrCreate(grpc::ServerContext *ctx, const AppGetOrCreateRequest *req, AppGetOrCreateResponse *resp) override {
        std::lock_guard lock(mutex);
        if (auto st = admit(ctx, "AppGetOrCreate"); !st.ok()) return st;
        if (req->app_name().empty()) return {grpc::INVALID_ARGUMENT, "app_name is required"};
        auto it = apps.find(req->app_name());
        if (it == apps.end()) {
            if (req->object_creation_type() != OBJECT_CREATION_TYPE_CREATE_IF_MISSING)
                return {grpc::NOT_FOUND, "App '" + req->app_name() + "' not found"};
            it = apps.emplace(req->app_name(), id("ap")).first;
        }
        resp->set_app_id(it->second);
        return grpc::Status::OK;
    }

    grpc::Status EnvironmentGetOrCreate(grpc::ServerContext *ctx, const EnvironmentGetOrCreateRequest *req,
                                        EnvironmentGetOrCreateResponse *resp) override {
        std::lock_guard lock(mutex);
        if (auto st = admit(ctx, "EnvironmentGetOrCreate"); !st.ok()) return st;
        resp->set_environment_id("en-main");
        resp->mutable_metadata()->set_name(req->deployment_name().empty() ? "main" : req->deployment_name());
        resp->mutable_metadata()->mutable_settings()->set_image_builder_version("2024.10");
        return grpc::Status::OK;
    }

    grpc::Status SecretGetOrCreate(grpc::ServerContext *ctx, const SecretGetOrCreateRequest *req, SecretGetOrCreateResponse *resp) override {
        std::lock_guard lock(mutex);
        if (auto st = admit(ctx, "SecretGetOrCreate"); !st.ok()) return st;
        if (req->object_creation_type() == OBJECT_CREATION_TYPE_ANONYMOUS_OWNED_BY_APP && !appExists(req->app_id()))
            return {grpc::NOT_FOUND, "App " + req->app_id() + " not found"};
        std::string sid = id("st");
        secrets[sid] = {req->env_dict().begin(), req->env_dict().end()};
        last_secret = secrets[sid];
        resp->set_secret_id(sid);
        return grpc::Status::OK;
    }

    bool appExists(const std::string &app_id) const {
        for (const auto &[n, i] : apps)
            if (i == app_id) return true;
        return false;
    }

    grpc::Status ImageGetOrCreate(grpc::ServerContext *ctx, const ImageGetOrCreateRequest *req, ImageGetOrCreateResponse *resp) override {
        std::lock_guard lock(mutex);
        if (auto st = admit(ctx, "ImageGetOrCreate"); !st.ok()) return st;
        if (!appExists(req->app_id())) return {grpc::NOT_FOUND, "App " + req->app_id() + " not found"};
        if (req->builder_version().empty()) return {grpc::INVALID_ARGUMENT, "builder_version is required"};
        std::string recipe;
        for (const auto &c : req->image().dockerfile_commands()) recipe += c + "\n";
        if (recipe.rfind("FROM ", 0) != 0) return {grpc::INVALID_ARGUMENT, "the image's first command must be FROM"};
        auto it = image_by_recipe.find(recipe);
        if (it == image_by_recipe.end() || req->force_build() || !images[it->second].fail.empty()) {
            std::string iid = id("im");
            images[iid].fail = fail_image;
            fail_image.clear();
            it = image_by_recipe.insert_or_assign(recipe, iid).first;
        }
        resp->set_image_id(it->second);
        if (images[it->second].built) resp->mutable_result()->set_status(GenericResult::GENERIC_STATUS_SUCCESS);
        return grpc::Status::OK;
    }

    grpc::Status ImageJoinStreaming(grpc::ServerContext *ctx, const ImageJoinStreamingRequest *req,
                                    grpc::ServerWriter<ImageJoinStreamingResponse> *writer) override {
        Image *image;
        {
            std::lock_guard lock(mutex);
            if (auto st = admit(ctx, "ImageJoinStreaming"); !st.ok()) return st;
            auto it = images.find(req->image_id());
            if (it == images.end()) return {grpc::NOT_FOUND, "Image " + req->image_id() + " not found"};
            image = &it->second;
        }
        if (req->last_entry_id().empty()) {  // the build log, once; a resumed join skips it
            ImageJoinStreamingResponse log;
            log.add_task_logs()->set_data("Building image " + req->image_id() + "\n");
            log.set_entry_id("1");
            writer->Write(log);
        }
        ImageJoinStreamingResponse done;
        std::lock_guard lock(mutex);
        image->built = image->fail.empty();
        done.mutable_result()->set_status(image->built ? GenericResult::GENERIC_STATUS_SUCCESS : GenericResult::GENERIC_STATUS_FAILURE);
        if (!image->built) done.mutable_result()->set_exception(image->fail);
        done.set_entry_id("2");
        done.set_eof(true);
        writer->Write(done);
        return grpc::Status::OK;
    }

    grpc::Status SandboxCreate(grpc::ServerContext *ctx, const SandboxCreateRequest *req, SandboxCreateResponse *resp) override {
        std::lock_guard lock(mutex);
        if (auto st = admit(ctx, "SandboxCreate"); !st.ok()) return st;
        const Sandbox &def = req->definition();
        if (!appExists(req->app_id())) return {grpc::NOT_FOUND, "App " + req->app_id() + " not found"};
        auto image = images.find(def.image_id());
        if (image == images.end() || !image->second.built) return {grpc::FAILED_PRECONDITION, "Image " + def.image_id() + " is not built"};
        if (def.entrypoint_args().empty()) return {grpc::INVALID_ARGUMENT, "entrypoint_args is empty"};
        std::map<std::string, std::string> env;
        for (const auto &sid : def.secret_ids()) {
            auto s = secrets.find(sid);
            if (s == secrets.end()) return {grpc::NOT_FOUND, "Secret " + sid + " not found"};
            env.insert(s->second.begin(), s->second.end());
        }
        if (def.has_name())
            for (auto &[i, b] : boxes) {
                refresh(*b);
                if (b->name == def.name() && !b->result) return {grpc::ALREADY_EXISTS, "a sandbox named " + def.name() + " is running"};
            }
        auto s = std::make_shared<FakeSandbox>();
        s->id = id("sb");
        s->name = def.has_name() ? def.name() : "";
        s->def = def;
        s->env = env;
        s->box = std::make_unique<ProcessBox>(s->id);
        std::vector<std::string> args(def.entrypoint_args().begin(), def.entrypoint_args().end());
        last_entrypoint = args;
        last_definition = def;
        // NetworkAccess as Modal reads it: an ALLOWLIST lets out only its allowed_cidrs (none: nothing).
        const auto &access = def.network_access();
        last_network_access = access.network_access_type() == NetworkAccess::OPEN        ? "OPEN"
                              : access.network_access_type() == NetworkAccess::BLOCKED   ? "BLOCKED"
                              : access.network_access_type() == NetworkAccess::ALLOWLIST ? "ALLOWLIST"
                                                                                         : "UNSPECIFIED";
        for (const auto &cidr : access.allowed_cidrs()) last_network_access += " " + cidr;
        s->pid = s->box->start(actionhost::runtime_support::shell_join(args), env);
        s->scheduled_at = Clock::now() + kSchedule;
        s->last_active = s->scheduled_at;
        for (const auto &p : def.open_ports().ports())
            s->tunnels[p.port()] = std::make_unique<TunnelProxy>(static_cast<int>(p.port()), "", "",
                                                                 p.unencrypted() ? std::nullopt : tunnel_tls);
        boxes[s->id] = s;
        resp->set_sandbox_id(s->id);
        return grpc::Status::OK;
    }

    grpc::Status SandboxGetTaskId(grpc::ServerContext *ctx, const SandboxGetTaskIdRequest *req, SandboxGetTaskIdResponse *resp) override {
        std::unique_lock lock(mutex);
        if (auto st = admit(ctx, "SandboxGetTaskId"); !st.ok()) return st;
        auto s = find(req->sandbox_id());
        if (!s) return {grpc::NOT_FOUND, "Sandbox " + req->sandbox_id() + " not found"};
        changed.wait_until(lock, std::min(s->scheduled_at, Clock::now() + std::chrono::milliseconds(static_cast<long>(req->timeout() * 1000))));
        refresh(*s);
        if (s->result) *resp->mutable_task_result() = *s->result;
        if (Clock::now() >= s->scheduled_at) {
            if (s->task_id.empty()) s->task_id = id("ta");
            resp->set_task_id(s->task_id);
        }
        return grpc::Status::OK;
    }

    grpc::Status SandboxGetTunnels(grpc::ServerContext *ctx, const SandboxGetTunnelsRequest *req, SandboxGetTunnelsResponse *resp) override {
        std::unique_lock lock(mutex);
        if (auto st = admit(ctx, "SandboxGetTunnels"); !st.ok()) return st;
        auto s = find(req->sandbox_id());
        if (!s) return {grpc::NOT_FOUND, "Sandbox " + req->sandbox_id() + " not found"};
        // Tunnels exist once the task runs; until then the server waits (here ≤1 s) and answers TIMEOUT.
        auto limit = Clock::now() + std::chrono::milliseconds(static_cast<long>(std::min(req->timeout(), 1.0f) * 1000));
        changed.wait_until(lock, std::min(s->scheduled_at, limit));
        refresh(*s);
        if (s->result) return {grpc::FAILED_PRECONDITION, "Sandbox " + s->id + " has finished"};
        if (Clock::now() < s->scheduled_at) {
            resp->mutable_result()->set_status(GenericResult::GENERIC_STATUS_TIMEOUT);
            return grpc::Status::OK;
        }
        resp->mutable_result()->set_status(GenericResult::GENERIC_STATUS_SUCCESS);
        for (const auto &p : s->def.open_ports().ports()) {
            auto *t = resp->add_tunnels();
            t->set_container_port(p.port());
            t->set_host("127.0.0.1");
            t->set_port(static_cast<uint32_t>(s->tunnels[p.port()]->port()));
            if (p.unencrypted()) {
                t->set_unencrypted_host("127.0.0.1");
                t->set_unencrypted_port(static_cast<uint32_t>(s->tunnels[p.port()]->port()));
            }
        }
        return grpc::Status::OK;
    }

    grpc::Status SandboxWait(grpc::ServerContext *ctx, const SandboxWaitRequest *req, SandboxWaitResponse *resp) override {
        std::unique_lock lock(mutex);
        if (auto st = admit(ctx, "SandboxWait"); !st.ok()) return st;
        auto s = find(req->sandbox_id());
        if (!s) return {grpc::NOT_FOUND, "Sandbox " + req->sandbox_id() + " not found"};
        auto until = Clock::now() + std::chrono::milliseconds(static_cast<long>(std::min(req->timeout(), 5.0f) * 1000));
        for (int i = 0; i < 1000; ++i) {
            refresh(*s);
            if (s->result || Clock::now() >= until) break;
            changed.wait_for(lock, std::chrono::milliseconds(50));
        }
        if (s->result) *resp->mutable_result() = *s->result;
        return grpc::Status::OK;
    }

    grpc::Status SandboxTerminate(grpc::ServerContext *ctx, const SandboxTerminateRequest *req, SandboxTerminateResponse *resp) override {
        std::shared_ptr<FakeSandbox> s;
        {
            std::lock_guard lock(mutex);
            if (auto st = admit(ctx, "SandboxTerminate"); !st.ok()) return st;
            s = find(req->sandbox_id());
            if (!s) return {grpc::NOT_FOUND, "Sandbox " + req->sandbox_id() + " not found"};
            refresh(*s);
            if (s->result) {  // already finished: a no-op
                *resp->mutable_existing_result() = *s->result;
                return grpc::Status::OK;
            }
            GenericResult r;
            r.set_status(GenericResult::GENERIC_STATUS_TERMINATED);
            s->result = r;
            for (auto &[p, t] : s->tunnels) t->set_open(false);
        }
        s->box->stop();
        changed.notify_all();
        return grpc::Status::OK;
    }

    std::shared_ptr<FakeSandbox> by_task(const std::string &task_id) {
        for (auto &[i, b] : boxes)
            if (!b->task_id.empty() && b->task_id == task_id) return b;
        return nullptr;
    }

    grpc::Status ContainerExec(grpc::ServerContext *ctx, const ContainerExecRequest *req, ContainerExecResponse *resp) override {
        std::lock_guard lock(mutex);
        if (auto st = admit(ctx, "ContainerExec"); !st.ok()) return st;
        auto s = by_task(req->task_id());
        if (!s) return {grpc::NOT_FOUND, "Task " + req->task_id() + " not found"};
        refresh(*s);
        if (s->result) return {grpc::FAILED_PRECONDITION, "Task " + req->task_id() + " has finished"};
        if (req->command().empty()) return {grpc::INVALID_ARGUMENT, "command is empty"};
        std::string eid = id("ex");
        auto e = std::make_shared<Exec>();
        execs[eid] = e;
        ++s->running_execs;
        std::string command = actionhost::runtime_support::shell_join({req->command().begin(), req->command().end()});
        if (req->has_workdir()) command = "cd " + actionhost::runtime_support::shell_quote(req->workdir()) + " && " + command;
        double timeout = req->timeout_secs() ? req->timeout_secs() : 600;
        workers.emplace_back([this, s, e, command, timeout] {
            auto r = s->box->run(command, s->env, timeout);
            std::lock_guard l(mutex);
            e->output = r.output;
            e->exit_code = r.exit_code;
            --s->running_execs;
            s->last_active = Clock::now();
            changed.notify_all();
        });
        resp->set_exec_id(eid);
        return grpc::Status::OK;
    }

    std::shared_ptr<Exec> wait_exec(std::unique_lock<std::mutex> &lock, const std::string &eid, float timeout) {
        auto it = execs.find(eid);
        if (it == execs.end()) return nullptr;
        auto e = it->second;
        changed.wait_for(lock, std::chrono::milliseconds(static_cast<long>(std::min(timeout, 55.0f) * 1000)), [&] { return e->exit_code.has_value(); });
        return e;
    }

    grpc::Status ContainerExecGetOutput(grpc::ServerContext *ctx, const ContainerExecGetOutputRequest *req,
                                        grpc::ServerWriter<RuntimeOutputBatch> *writer) override {
        std::unique_lock lock(mutex);
        if (auto st = admit(ctx, "ContainerExecGetOutput"); !st.ok()) return st;
        auto e = wait_exec(lock, req->exec_id(), req->timeout());
        if (!e) return {grpc::NOT_FOUND, "Exec " + req->exec_id() + " not found"};
        if (!e->exit_code) return grpc::Status::OK;  // nothing new within the timeout: the client asks again
        // Batch 1 carries the output (fd 1: the fake merges stderr into it), batch 2 the exit code.
        std::vector<RuntimeOutputBatch> batches(2);
        if (req->file_descriptor() != FILE_DESCRIPTOR_STDERR && !e->output.empty()) {
            auto *m = batches[0].add_items();
            m->set_file_descriptor(FILE_DESCRIPTOR_STDOUT);
            if (req->get_raw_bytes()) m->set_message_bytes(e->output);
            else m->set_message(e->output);
        }
        batches[0].set_batch_index(1);
        batches[1].set_batch_index(2);
        batches[1].set_exit_code(*e->exit_code);
        lock.unlock();
        for (auto &b : batches)
            if (b.batch_index() > req->last_batch_index()) writer->Write(b);
        return grpc::Status::OK;
    }

    grpc::Status ContainerExecWait(grpc::ServerContext *ctx, const ContainerExecWaitRequest *req, ContainerExecWaitResponse *resp) override {
        std::unique_lock lock(mutex);
        if (auto st = admit(ctx, "ContainerExecWait"); !st.ok()) return st;
        auto e = wait_exec(lock, req->exec_id(), req->timeout());
        if (!e) return {grpc::NOT_FOUND, "Exec " + req->exec_id() + " not found"};
        resp->set_completed(e->exit_code.has_value());
        if (e->exit_code) resp->set_exit_code(*e->exit_code);
        return grpc::Status::OK;
    }
};

ModalApiFake::ModalApiFake(std::string token_id, std::string token_secret, std::optional<actionhost::testing::TlsServerFiles> tunnel_tls)
    : impl_(std::make_unique<Impl>()) {
    impl_->tunnel_tls = std::move(tunnel_tls);
    impl_->token_id = std::move(token_id);
    impl_->token_secret = std::move(token_secret);
    grpc::ServerBuilder builder;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &impl_->port);
    builder.RegisterService(impl_.get());
    impl_->server = builder.BuildAndStart();
    if (!impl_->server || impl_->port == 0) throw std::runtime_error("ModalApiFake: cannot listen on 127.0.0.1");
    Impl *impl = impl_.get();
    impl_->clock = std::thread([impl] {
        while (!impl->stopping) {
            std::vector<std::shared_ptr<FakeSandbox>> ended;
            {
                std::lock_guard lock(impl->mutex);
                ended = impl->expire(Clock::now());
            }
            for (auto &s : ended) s->box->stop();
            if (!ended.empty()) impl->changed.notify_all();
            std::this_thread::sleep_for(std::chrono::milliseconds(50));
        }
    });
}

ModalApiFake::~ModalApiFake() {
    impl_->stopping = true;
    impl_->clock.join();
    impl_->server->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(2));
    {
        std::lock_guard lock(impl_->mutex);
        for (auto &[id, s] : impl_->boxes) s->box->stop();
    }
    for (auto &w : impl_->workers) w.join();
}

std::string ModalApiFake::url() const { return "http://127.0.0.1:" + std::to_string(impl_->port); }

void ModalApiFake::fail_next(const std::string &rpc, int code, int count) {
    std::lock_guard lock(impl_->mutex);
    impl_->failures.push_back({rpc, {code, count}});
}

void ModalApiFake::fail_next_image(const std::string &exception) {
    std::lock_guard lock(impl_->mutex);
    impl_->fail_image = exception;
}

std::map<std::string, std::string> ModalApiFake::sandboxes() const {
    std::lock_guard lock(impl_->mutex);
    std::map<std::string, std::string> out;
    for (auto &[id, s] : impl_->boxes) {
        impl_->refresh(*s);
        out[id] = s->result ? GenericResult::GenericStatus_Name(s->result->status()) : "running";
    }
    return out;
}

std::vector<std::string> ModalApiFake::live_sandboxes() const {
    std::lock_guard lock(impl_->mutex);
    std::vector<std::string> out;
    for (auto &[id, s] : impl_->boxes) {
        impl_->refresh(*s);
        if (!s->result || s->box->running_count() > 0) out.push_back(id);
    }
    return out;
}

std::vector<std::string> ModalApiFake::calls() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->calls;
}

std::map<std::string, std::string> ModalApiFake::last_secret() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->last_secret;
}

std::string ModalApiFake::last_network_access() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->last_network_access;
}

uint32_t ModalApiFake::last_timeout_secs() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->last_definition.timeout_secs();
}

std::optional<uint32_t> ModalApiFake::last_idle_timeout_secs() const {
    std::lock_guard lock(impl_->mutex);
    if (!impl_->last_definition.has_idle_timeout_secs()) return std::nullopt;
    return impl_->last_definition.idle_timeout_secs();
}

std::vector<std::string> ModalApiFake::last_entrypoint() const {
    std::lock_guard lock(impl_->mutex);
    return impl_->last_entrypoint;
}

}  // namespace cloud_fakes
