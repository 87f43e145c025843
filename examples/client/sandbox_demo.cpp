// Drives a sandbox from a program: starts one, streams a command's output as it runs, copies a file out.
#include <actionhost/client/file_copy.hpp>
#include <actionhost/client/live_output.hpp>
#include <actionhost/client/runtime.hpp>

#include <iostream>

int main() {
    namespace ahc = actionhost::client;
    ahc::RuntimeOptions options;
    options.config.set("core.runtime", "sandbox");  // fresh Linux namespaces; "docker", "local", ...
    options.on_status = [](const std::string &status, const std::string &) { std::cerr << status << "\n"; };
    auto sandbox = ahc::Runtime::create(options);
    sandbox->connect();  // ready in ~0.1 s
    nlohmann::json run = {{"action", "run"},
                          {"args", {{"command", "for i in 1 2 3; do echo tick $i | tee -a ticks.txt; sleep 0.2; done"}}}};
    auto obs = ahc::execute_following(sandbox->wire(), run, "", [](const ahc::LiveEvent &e) {
        if (e.type == "output") std::cout << e.data.value("chunk", "") << std::flush;  // as it is printed
    });
    for (const auto &path : ahc::copy_from_into(sandbox->wire(), sandbox->workspace_dir() + "/ticks.txt", "out"))
        std::cout << "copied out: " << path << "\n";
    sandbox->close();  // the sandbox and its temporary workspace are gone
    return obs["extras"]["metadata"]["exit_code"].get<int>();
}
