// ahctl: starts the configured actionhost runtime and runs actions in it (docs/runtimes.md).
#include <signal.h>

#include <actionhost/client/errors.hpp>
#include <iostream>

#include "cli.hpp"
#include "commands.hpp"

int main(int argc, char **argv) {
    using namespace actionhost::client;
    signal(SIGPIPE, SIG_IGN);
    try {
        ahctl::Options options = ahctl::parse_command_line(argc, argv);
        if (options.help || options.command.empty()) {
            auto text = ahctl::help_text(options.help ? options.command : "");
            if (!text) {
                std::cerr << "ahctl: no help for '" << options.command << "'\n";
                return ahctl::kUsage;
            }
            (options.help ? std::cout : std::cerr) << *text;
            return options.help ? ahctl::kOk : ahctl::kUsage;
        }
        return ahctl::run_command(options);
    } catch (const ahctl::UsageError &e) {
        std::cerr << "ahctl: " << e.what() << "\n";
        return ahctl::kUsage;
    } catch (const ConfigError &e) {
        std::cerr << "ahctl: " << e.what() << "\n";
        return ahctl::kConfig;
    } catch (const RuntimeNotFound &e) {
        std::cerr << "ahctl: " << e.what() << "\n";
        return ahctl::kConfig;
    } catch (const RuntimeError &e) {
        std::cerr << "ahctl: " << e.what() << "\n";
        return ahctl::kRuntime;
    } catch (const WireError &e) {
        std::cerr << "ahctl: " << e.what() << "\n";
        return ahctl::kWire;
    } catch (const std::exception &e) {
        std::cerr << "ahctl: " << e.what() << "\n";
        return ahctl::kActionFailed;
    }
}
