// ahctl: starts the configured actionhost runtime and runs actions in it (docs/runtimes.md).
#include <actionhost/common/text.hpp>
#include <signal.h>

#include <actionhost/client/errors.hpp>
#include <iostream>

#include "cli.hpp"
#include "commands.hpp"
#include "style.hpp"

namespace {
int fail(int code, const std::string &message) {
    // Messages quote names and text that came from a sandbox (an entry of its zip, a host's error): never
    // an escape sequence on the user's terminal.
    std::cerr << ahctl::red("ahctl: error:") << " " << actionhost::common::printable_for_terminal(message) << "\n";
    return code;
}
}  // namespace

int main(int argc, char **argv) {
    using namespace actionhost::client;
    signal(SIGPIPE, SIG_IGN);
    try {
        ahctl::Options options = ahctl::parse_command_line(argc, argv);
        if (options.version) {
            std::cout << "ahctl " << ACTIONHOST_VERSION << "\n";
            return ahctl::kOk;
        }
        if (options.help || options.command.empty()) {
            auto text = ahctl::help_text(options.help ? options.command : "");
            (options.help ? std::cout : std::cerr) << *text;
            return options.help ? ahctl::kOk : ahctl::kUsage;
        }
        return ahctl::run_command(options);
    } catch (const ahctl::UsageError &e) {
        return fail(ahctl::kUsage, e.what());
    } catch (const ConfigError &e) {
        return fail(ahctl::kConfig, e.what());
    } catch (const RuntimeNotFound &e) {
        return fail(ahctl::kConfig, e.what());
    } catch (const RuntimeError &e) {
        return fail(ahctl::kRuntime, e.what());
    } catch (const WireError &e) {
        return fail(ahctl::kWire, e.what());
    } catch (const std::exception &e) {
        return fail(ahctl::kActionFailed, e.what());
    }
}
