// The modal backend against ModalApiFake (Modal's gRPC API over h2c; sandboxes really run on this
// machine): app → image build → secret → sandbox → task → tunnel → actions → terminate, the shared
// conformance set, reattach by id, the fake's exec RPCs, and the error cases. Every test ends with no
// sandbox left running.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <actionhost/client/errors.hpp>
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>

#include "cloud_runtime.hpp"
#include "modal_api.grpc.pb.h"
#include "modal_api_fake.hpp"
#include "process_box.hpp"
#include "support/cloud_fakes/test_tls.hpp"

using namespace cloud_fakes;
using actionhost::client::Config;
using actionhost::client::RuntimeError;
using nlohmann::json;

namespace {

class ModalApiFakeTest : public ::testing::Test {
  protected:
    void TearDown() override {
        EXPECT_TRUE(fake.live_sandboxes().empty()) << ::testing::PrintToString(fake.live_sandboxes());
    }
    CloudRuntimeOptions options(std::function<void(Config &)> more = {}) {
        int port = free_port();
        return {"modal", [port, more](Config &c) {
                    c.set("modal.port", port);
                    c.set("modal.image", "registry.example/actionhost:test");
                    c.set("modal.unencrypted", true);  // the fake serves plain TCP tunnels, no TLS
                    if (more) more(c);
                }};
    }
    std::vector<std::string> rpcs() const {
        std::vector<std::string> out;
        for (const auto &c : fake.calls()) out.push_back(c.substr(0, c.find(' ')));
        return out;
    }
    ModalApiFake fake{"ak-test", "as-test"};
    ScopedEnv id{"MODAL_TOKEN_ID", "ak-test"};
    ScopedEnv secret{"MODAL_TOKEN_SECRET", "as-test"};
    ScopedEnv server{"MODAL_SERVER_URL", fake.url()};
    ScopedEnv environment{"MODAL_ENVIRONMENT", std::nullopt};
};

std::string connect_error(runtimes_test::StartedRuntime &s) {
    try {
        s.runtime->connect();
    } catch (const RuntimeError &e) {
        return e.what();
    }
    ADD_FAILURE() << "connect succeeded";
    return "";
}

}  // namespace

TEST_F(ModalApiFakeTest, ProvisionRunTerminate) {
    auto s = start_cloud_runtime(options());
    // Sandbox.create's call order in modal-client, then the task and its tunnel.
    std::vector<std::string> expected = {"AppGetOrCreate", "EnvironmentGetOrCreate", "ImageGetOrCreate", "ImageJoinStreaming",
                                         "SecretGetOrCreate", "SandboxCreate"};
    auto seen = rpcs();
    ASSERT_GE(seen.size(), expected.size());
    EXPECT_EQ(std::vector<std::string>(seen.begin(), seen.begin() + 6), expected);
    EXPECT_NE(std::find(seen.begin(), seen.end(), "SandboxGetTaskId"), seen.end());
    EXPECT_NE(std::find(seen.begin(), seen.end(), "SandboxGetTunnels"), seen.end());
    auto env = fake.last_secret();
    EXPECT_TRUE(env.count("SESSION_API_KEY"));
    EXPECT_EQ(env["PYTHONUNBUFFERED"], "1");
    EXPECT_EQ(env["OPENHANDS_SESSION_ID"], s->runtime->session_id());
    ASSERT_EQ(fake.sandboxes().size(), 1u);
    EXPECT_EQ(fake.sandboxes().begin()->second, "running");

    runtimes_test::check_bash(*s);
    // Modal sandboxes cannot be paused: a clear "unsupported", and the sandbox keeps running.
    try {
        s->runtime->pause();
        ADD_FAILURE() << "pause succeeded";
    } catch (const RuntimeError &e) {
        EXPECT_NE(std::string(e.what()).find("not supported"), std::string::npos) << e.what();
    }
    EXPECT_EQ(runtimes_test::run(*s->runtime, "echo still").value("content", ""), "still");
    s->runtime->close();
    EXPECT_EQ(fake.sandboxes().begin()->second, "GENERIC_STATUS_TERMINATED");
}

TEST_F(ModalApiFakeTest, ConformanceSet) {
    auto s = start_cloud_runtime(options());
    runtimes_test::check_read_write(*s);
    runtimes_test::check_edit(*s);
    runtimes_test::check_upload_download(*s);
    s->runtime->close();
}

TEST_F(ModalApiFakeTest, KeptAliveSandboxIsReattachedById) {
    actionhost::testing::TempDir state("md-state");
    int port = free_port();
    auto tweak = [port](bool keep) {
        return [port, keep](Config &c) {
            c.set("modal.port", port);
            c.set("modal.image", "registry.example/actionhost:test");
            c.set("modal.unencrypted", true);
            c.set("sandbox.keep_runtime_alive", keep);
        };
    };
    auto first = start_cloud_runtime({"modal", tweak(true), "mdsession1", state.path()});
    first->runtime->close();
    first.reset();
    ASSERT_EQ(fake.live_sandboxes().size(), 1u);
    auto second = start_cloud_runtime({"modal", tweak(false), "mdsession1", state.path()});
    EXPECT_EQ(fake.sandboxes().size(), 1u);
    EXPECT_EQ(runtimes_test::run(*second->runtime, "echo back").value("content", ""), "back");
    second->runtime->close();
}

TEST_F(ModalApiFakeTest, TransientUnavailableIsRetried) {
    fake.fail_next("SandboxCreate", grpc::UNAVAILABLE);
    auto s = start_cloud_runtime(options());
    auto calls = fake.calls();
    EXPECT_NE(std::find(calls.begin(), calls.end(), "SandboxCreate attempt=1"), calls.end()) << ::testing::PrintToString(calls);
    EXPECT_EQ(fake.sandboxes().size(), 1u);
    s->runtime->close();
}

TEST_F(ModalApiFakeTest, MissingTokensAreClearErrors) {
    {
        ScopedEnv none("MODAL_TOKEN_ID", std::nullopt);
        auto s = make_cloud_runtime(options());
        std::string e = connect_error(*s);
        EXPECT_NE(e.find("MODAL_API_TOKEN_ID (or MODAL_TOKEN_ID) is not set"), std::string::npos) << e;
    }
    {
        ScopedEnv none("MODAL_TOKEN_SECRET", std::nullopt);
        auto s = make_cloud_runtime(options());
        std::string e = connect_error(*s);
        EXPECT_NE(e.find("MODAL_API_TOKEN_SECRET (or MODAL_TOKEN_SECRET) is not set"), std::string::npos) << e;
    }
    EXPECT_TRUE(fake.calls().empty());
}

// OpenHands documents MODAL_API_TOKEN_ID / MODAL_API_TOKEN_SECRET and [core] modal_api_token_id/_secret;
// the modal CLI exports MODAL_TOKEN_ID / MODAL_TOKEN_SECRET. Each spelling alone reaches the API.
TEST_F(ModalApiFakeTest, BothTokenSpellingsWork) {
    ScopedEnv no_id("MODAL_TOKEN_ID", std::nullopt), no_secret("MODAL_TOKEN_SECRET", std::nullopt);
    {
        ScopedEnv id("MODAL_API_TOKEN_ID", "ak-test"), secret("MODAL_API_TOKEN_SECRET", "as-test");
        auto s = make_cloud_runtime(options());
        s->runtime->connect();
        EXPECT_EQ(s->runtime->last_status(), "STATUS$READY");
        s->runtime->close();
    }
    auto s = make_cloud_runtime(options([](Config &c) {
        c.set("core.modal_api_token_id", "ak-test");
        c.set("core.modal_api_token_secret", "as-test");
    }));
    s->runtime->connect();
    EXPECT_EQ(s->runtime->last_status(), "STATUS$READY");
    s->runtime->close();
}

TEST_F(ModalApiFakeTest, WrongTokenIsUnauthenticated) {
    ScopedEnv wrong("MODAL_TOKEN_SECRET", "nope");
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("refused the token"), std::string::npos) << e;
    EXPECT_TRUE(fake.sandboxes().empty());
}

TEST_F(ModalApiFakeTest, BadAndUnreachableServerUrls) {
    {
        ScopedEnv bad("MODAL_SERVER_URL", "api.modal.com:443");
        auto s = make_cloud_runtime(options());
        std::string e = connect_error(*s);
        EXPECT_NE(e.find("MODAL_SERVER_URL"), std::string::npos) << e;
    }
    {
        ScopedEnv gone("MODAL_SERVER_URL", "http://127.0.0.1:" + std::to_string(free_port()));
        auto s = make_cloud_runtime(options());
        std::string e = connect_error(*s);
        EXPECT_NE(e.find("cannot reach the Modal API"), std::string::npos) << e;
    }
}

TEST_F(ModalApiFakeTest, MissingImageIsAClearError) {
    auto s = make_cloud_runtime(options([](Config &c) { c.set("modal.image", ""); }));
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("needs an image"), std::string::npos) << e;
    EXPECT_TRUE(fake.sandboxes().empty());
}

TEST_F(ModalApiFakeTest, ImageBuildFailureIsReported) {
    fake.fail_next_image("pull access denied for registry.example/actionhost");
    auto s = make_cloud_runtime(options());
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("pull access denied"), std::string::npos) << e;
    EXPECT_TRUE(fake.sandboxes().empty());
}

TEST_F(ModalApiFakeTest, HostThatExitsIsReportedAndTerminated) {
    actionhost::testing::TempDir image("md-image");
    std::filesystem::create_directories(image / "bin");
    std::ofstream(image / "bin/actionhost") << "#!/bin/sh\necho bad start\nexit 4\n";
    std::filesystem::permissions(image / "bin/actionhost", std::filesystem::perms::owner_all);
    auto s = make_cloud_runtime(options([&](Config &c) { c.set("modal.install_dir", image.path()); }));
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("ended before"), std::string::npos) << e;
    EXPECT_NE(e.find("bad start"), std::string::npos) << e;
}

TEST_F(ModalApiFakeTest, HostThatNeverAnswersTimesOutAndIsTerminated) {
    actionhost::testing::TempDir image("md-image");
    std::filesystem::create_directories(image / "bin");
    std::ofstream(image / "bin/actionhost") << "#!/bin/sh\nexec sleep 300\n";
    std::filesystem::permissions(image / "bin/actionhost", std::filesystem::perms::owner_all);
    auto s = make_cloud_runtime(options([&](Config &c) {
        c.set("modal.install_dir", image.path());
        c.set("modal.init_timeout", 3);
    }));
    std::string e = connect_error(*s);
    EXPECT_NE(e.find("did not answer /alive"), std::string::npos) << e;
    EXPECT_EQ(fake.sandboxes().begin()->second, "GENERIC_STATUS_TERMINATED");
}

// The fake's exec RPCs as the Python client drives them (ContainerExec → GetOutput → Wait).
TEST_F(ModalApiFakeTest, ContainerExecStreamsOutputAndExitCode) {
    auto s = start_cloud_runtime(options());
    auto channel = grpc::CreateChannel(fake.url().substr(7), grpc::InsecureChannelCredentials());
    auto stub = modal::client::ModalClient::NewStub(channel);
    auto ctx = [] {
        auto c = std::make_unique<grpc::ClientContext>();
        c->AddMetadata("x-modal-token-id", "ak-test");
        c->AddMetadata("x-modal-token-secret", "as-test");
        c->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
        return c;
    };
    modal::client::SandboxGetTaskIdRequest treq;
    treq.set_sandbox_id(s->runtime->runtime_id());
    treq.set_timeout(5);
    modal::client::SandboxGetTaskIdResponse tresp;
    ASSERT_TRUE(stub->SandboxGetTaskId(ctx().get(), treq, &tresp).ok());
    ASSERT_FALSE(tresp.task_id().empty());
    modal::client::ContainerExecRequest ereq;
    ereq.set_task_id(tresp.task_id());
    for (const char *a : {"sh", "-c", "echo exec-out; exit 7"}) ereq.add_command(a);
    modal::client::ContainerExecResponse eresp;
    ASSERT_TRUE(stub->ContainerExec(ctx().get(), ereq, &eresp).ok());
    modal::client::ContainerExecGetOutputRequest oreq;
    oreq.set_exec_id(eresp.exec_id());
    oreq.set_timeout(30);
    oreq.set_file_descriptor(modal::client::FILE_DESCRIPTOR_STDOUT);
    oreq.set_get_raw_bytes(true);
    auto octx = ctx();
    auto reader = stub->ContainerExecGetOutput(octx.get(), oreq);
    std::string out;
    uint64_t last = 0;
    std::optional<int> code;
    for (modal::client::RuntimeOutputBatch b; reader->Read(&b);) {
        EXPECT_GT(b.batch_index(), last);
        last = b.batch_index();
        for (const auto &m : b.items()) out += m.message_bytes();
        if (b.has_exit_code()) code = b.exit_code();
    }
    EXPECT_TRUE(reader->Finish().ok());
    EXPECT_EQ(out, "exec-out\n");
    EXPECT_EQ(code, 7);
    // Resuming after the last batch yields nothing more.
    oreq.set_last_batch_index(last);
    auto rctx = ctx();
    auto again = stub->ContainerExecGetOutput(rctx.get(), oreq);
    modal::client::RuntimeOutputBatch none;
    EXPECT_FALSE(again->Read(&none));
    again->Finish();
    modal::client::ContainerExecWaitRequest wreq;
    wreq.set_exec_id(eresp.exec_id());
    modal::client::ContainerExecWaitResponse wresp;
    ASSERT_TRUE(stub->ContainerExecWait(ctx().get(), wreq, &wresp).ok());
    EXPECT_TRUE(wresp.completed());
    EXPECT_EQ(wresp.exit_code(), 7);
    s->runtime->close();
}

// Modal's default: an encrypted port, reached as https://<host>:<port> (the fake's tunnel serves TLS
// with a certificate of a test CA the client trusts through $SSL_CERT_FILE).
TEST(ModalApiFakeTls, EncryptedTunnelIsReachedOverHttps) {
    actionhost::testing::TestCertificateAuthority ca;
    ScopedEnv trust("SSL_CERT_FILE", ca.ca_cert_file());
    ModalApiFake fake("ak-test", "as-test", ca.server_files());
    ScopedEnv id("MODAL_TOKEN_ID", "ak-test");
    ScopedEnv secret("MODAL_TOKEN_SECRET", "as-test");
    ScopedEnv server("MODAL_SERVER_URL", fake.url());
    int port = free_port();
    auto s = start_cloud_runtime({"modal", [port](Config &c) {
                                      c.set("modal.port", port);
                                      c.set("modal.image", "registry.example/actionhost:test");
                                  }});
    EXPECT_EQ(s->runtime->url().rfind("https://127.0.0.1:", 0), 0u) << s->runtime->url();
    EXPECT_EQ(runtimes_test::run(*s->runtime, "echo tunnelled").value("content", ""), "tunnelled");
    s->runtime->close();
    EXPECT_TRUE(fake.live_sandboxes().empty());
}

// The network keys become the sandbox's NetworkAccess (runtimes/modal/network_access.hpp), and the host
// is reached through its tunnel whatever they say; what Modal cannot have is refused before any call.
TEST_F(ModalApiFakeTest, NetworkKeysBecomeTheSandboxsNetworkAccess) {
    struct Case {
        std::function<void(Config &)> set;
        std::string access;
    };
    const std::vector<Case> cases = {
        {{}, "OPEN"},
        {[](Config &c) { c.set("sandbox.network", "internet"); }, "OPEN"},
        {[](Config &c) { c.set("sandbox.network", "host"); }, "OPEN"},
        {[](Config &c) { c.set("sandbox.network", "none"); }, "ALLOWLIST"},  // no entry: nothing goes out
        {[](Config &c) {
             c.set("sandbox.network", "internet");
             c.set("sandbox.allow_out", json::array({"198.51.100.7", "203.0.113.9/24", "2001:db8::/32"}));
         },
         "ALLOWLIST 198.51.100.7/32 203.0.113.0/24 2001:db8::/32"},
    };
    for (const auto &c : cases) {
        auto s = start_cloud_runtime(options(c.set));
        EXPECT_EQ(fake.last_network_access(), c.access);
        EXPECT_EQ(runtimes_test::run(*s->runtime, "echo through-the-tunnel").value("content", ""), "through-the-tunnel");
        s->runtime->close();
    }
}

TEST_F(ModalApiFakeTest, NetworkKeysModalCannotHaveAreRefusedWithTheReason) {
    struct Case {
        std::function<void(Config &)> set;
        std::string key, reason;
    };
    const std::vector<Case> cases = {
        {[](Config &c) { c.set("sandbox.deny_out", json::array({"10.0.0.0/8"})); }, "sandbox.deny_out", "no deny list"},
        {[](Config &c) { c.set("sandbox.allow_out", json::array({"pypi.org"})); }, "sandbox.allow_out: 'pypi.org'", "takes CIDRs only"},
        {[](Config &c) {
             c.set("sandbox.network", "none");
             c.set("sandbox.allow_out", json::array({"198.51.100.7"}));
         },
         "sandbox.allow_out needs sandbox.network = \"internet\"", "it is \"none\""},
        {[](Config &c) { c.set("sandbox.dns", json::array({"192.0.2.53"})); }, "sandbox.dns", "resolver is its provider's"},
        {[](Config &c) { c.set("sandbox.secrets", json{{"api", {{"value", "v"}, {"hosts", json::array({"api.example"})}}}}); },
         "sandbox.secrets", "only the sandbox runtime keeps secrets outside"},
        {[](Config &c) { c.set("sandbox.upstream_ca_file", "/etc/ssl/certs/ca-certificates.crt"); }, "sandbox.upstream_ca_file", "no such proxy"},
    };
    for (const auto &c : cases) {
        std::string e;
        try {
            auto s = start_cloud_runtime(options(c.set));
            s->runtime->close();
        } catch (const std::exception &ex) {
            e = ex.what();
        }
        EXPECT_NE(e.find(c.key), std::string::npos) << c.key << ": " << (e.empty() ? "started" : e);
        EXPECT_NE(e.find(c.reason), std::string::npos) << c.key << ": " << e;
    }
    EXPECT_TRUE(fake.sandboxes().empty()) << "a refused start made a sandbox";
}
