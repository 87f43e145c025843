#include "network_commands.hpp"

#include <actionhost/client/runtime.hpp>
#include <actionhost/common/json_write.hpp>
#include <actionhost/common/process/child_process.hpp>
#include <actionhost/common/text.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>

#include "commands.hpp"

namespace ahctl {

using namespace actionhost::client;

namespace {

// "8000" → 8000; nullopt for anything but a whole number within 0..65535.
std::optional<int> port_number(const std::string &word) {
    int n = -1;
    const auto [end, ec] = std::from_chars(word.data(), word.data() + word.size(), n);
    if (word.empty() || ec != std::errc() || end != word.data() + word.size() || n < 0 || n > 65535) return std::nullopt;
    return n;
}

int port_or_usage(const std::string &word, const char *what, bool zero_allowed) {
    const auto n = port_number(word);
    if (!n || (*n == 0 && !zero_allowed))
        throw UsageError(std::string(what) + " must be a port number (1..65535" + (zero_allowed ? ", or 0: any free one" : "") + "), got: " + word);
    return *n;
}

// `ahctl port SID ...` reads as `ahctl -s SID port ...` (the and Docker's word order).
Options with_session_word(const Options &o) {
    Options out = o;
    if (!out.session && !out.args.empty() && !port_number(out.args[0])) {
        out.session = out.args[0];
        out.args.erase(out.args.begin());
    }
    if (!out.session) throw UsageError("ahctl " + o.command + " needs a kept-alive sandbox: ahctl -s SID " + o.command + " ... (ahctl ps lists them)");
    return out;
}

std::string single_value(const Options &o, const std::string &name) {
    const auto it = o.named.find(name);
    return it == o.named.end() || it->second.empty() ? "" : it->second.front();
}

}  // namespace

PortRequest parse_publish(const std::string &spec) {
    PortRequest r;
    std::string rest = spec;
    // An IPv6 address in brackets first: [::1]:8080:80.
    if (!rest.empty() && rest[0] == '[') {
        const size_t close = rest.find("]:");
        if (close == std::string::npos) throw UsageError("--publish: an IPv6 address goes in brackets: [::1]:MACHINE_PORT:PORT, got: " + spec);
        r.address = rest.substr(1, close - 1);
        rest = rest.substr(close + 2);
        const size_t colon = rest.find(':');
        if (colon == std::string::npos) throw UsageError("--publish [ADDRESS]:MACHINE_PORT:PORT, got: " + spec);
        r.machine_port = port_or_usage(rest.substr(0, colon), "--publish's machine port", true);
        r.port = port_or_usage(rest.substr(colon + 1), "--publish's sandbox port", false);
        return r;
    }
    std::vector<std::string> parts;
    for (size_t at = 0;;) {
        const size_t colon = rest.find(':', at);
        parts.push_back(rest.substr(at, colon == std::string::npos ? std::string::npos : colon - at));
        if (colon == std::string::npos) break;
        at = colon + 1;
    }
    if (parts.size() > 3) throw UsageError("--publish PORT, MACHINE_PORT:PORT or ADDRESS:MACHINE_PORT:PORT, got: " + spec);
    r.port = port_or_usage(parts.back(), "--publish's sandbox port", false);
    if (parts.size() >= 2) r.machine_port = port_or_usage(parts[parts.size() - 2], "--publish's machine port", true);
    if (parts.size() == 3) r.address = parts[0];
    return r;
}

void publish_requested(Runtime &runtime, const std::vector<PortRequest> &requests) {
    for (const auto &r : requests) {
        const std::string at = runtime.publish_port(r.port, r.machine_port, r.address);
        std::cerr << "[ahctl] port " << r.port << " of " << runtime.session_id() << " is published at " << at << "\n";
    }
}

int cmd_port(const Options &given, OpenRuntime open) {
    const Options o = with_session_word(given);
    const bool remove = o.named.count("--rm") > 0;
    const std::string address = single_value(o, "--address");
    if (remove && (o.args.empty() || !address.empty())) throw UsageError("usage: ahctl -s SID port --rm PORT... (see ahctl port --help)");
    if (!remove && o.args.size() > 2) throw UsageError("usage: ahctl -s SID port [PORT [MACHINE_PORT]] [--address IP] (see ahctl port --help)");
    if (o.args.empty() && !address.empty()) throw UsageError("--address goes with a PORT to publish");
    std::vector<int> ports;
    for (const auto &w : remove ? o.args : std::vector<std::string>(o.args.begin(), o.args.begin() + std::min<size_t>(1, o.args.size())))
        ports.push_back(port_or_usage(w, "the sandbox's port", false));
    const int machine_port = !remove && o.args.size() == 2 ? port_or_usage(o.args[1], "the machine's port", true) : 0;
    auto rt = open(o, false);
    try {
        if (remove) {
            for (int p : ports) rt->unpublish_port(p);
        } else if (!ports.empty()) {
            std::cout << rt->publish_port(ports[0], machine_port, address.empty() ? "127.0.0.1" : address) << "\n";
        } else {
            const auto list = rt->published_ports();
            if (o.json) {
                nlohmann::json out = nlohmann::json::array();
                for (const auto &p : list) out.push_back({{"port", p.port}, {"address", p.address}});
                std::cout << actionhost::common::dump_json(out, 2) << "\n";
            } else {
                for (const auto &p : list) std::cout << p.port << " " << p.address << "\n";
            }
        }
    } catch (const std::invalid_argument &e) {  // the sandbox's refusal: already published, not published
        std::cerr << "ahctl: error: " << actionhost::common::printable_for_terminal(e.what()) << "\n";
        rt->close();
        return kActionFailed;
    }
    rt->close();
    return kOk;
}

int cmd_ui(const Options &given, OpenRuntime open) {
    const Options o = with_session_word(given);
    if (!o.args.empty()) throw UsageError("usage: ahctl -s SID ui [--open] (see ahctl ui --help)");
    auto rt = open(o, false);
    const std::string url = rt->web_view_url() + "#key=" + rt->wire().session_api_key();
    rt->close();
    std::cout << url << "\n";
    if (o.named.count("--open")) {
        // Never the key in a command line (any local user reads those): the browser is handed a private
        // page (0600, in a 0700 directory of ours) that forwards to the address.
        char dir[] = "/tmp/ahctl-ui-XXXXXX";
        if (::mkdtemp(dir) == nullptr) {
            std::cerr << "ahctl: could not open a browser (no private directory: " << std::strerror(errno) << "); the address is above\n";
            return kActionFailed;
        }
        const std::string page = std::string(dir) + "/open.html";
        {
            std::ofstream out(page);
            ::chmod(page.c_str(), 0600);
            out << "<!doctype html><meta charset=\"utf-8\"><meta name=\"referrer\" content=\"no-referrer\">"
                << "<meta http-equiv=\"refresh\" content=\"0; url=" << url << "\"><title>actionhost</title>\n";
        }
        // xdg-open hands the page to the desktop's browser and returns.
        actionhost::common::SpawnSpec spec;
        spec.argv = {"xdg-open", page};
        spec.use_pty = false;
        spec.out = actionhost::common::Stream::null();
        spec.err = actionhost::common::Stream::null();
        auto child = actionhost::common::ChildProcess::spawn(spec);
        const auto ended = child ? child.value()->wait(std::chrono::seconds(10)) : std::nullopt;
        if (!child || !ended || ended->shell_code() != 0) {
            std::cerr << "ahctl: could not open a browser (xdg-open" << (child ? " failed" : ": " + child.error().message)
                      << "); the address is above\n";
            return kActionFailed;
        }
    }
    return kOk;
}

// ahctl -s SID net [--json]              the mode, the lists, the refusal counter
// ahctl -s SID net log [--json]          the refused destinations, most packets first
// ahctl -s SID net allow|deny|remove RULE...   (CIDRs, addresses, domain names)
int cmd_net(const Options &given, OpenRuntime open) {
    const Options o = with_session_word(given);
    const std::string verb = o.args.empty() ? "" : o.args[0];
    const std::vector<std::string> entries(o.args.begin() + std::min<size_t>(1, o.args.size()), o.args.end());
    const bool change = verb == "allow" || verb == "deny" || verb == "remove";
    if (!verb.empty() && verb != "log" && !change)
        throw UsageError("unknown net command '" + verb + "' (allow, deny, remove, log; see ahctl net --help)");
    if (change && entries.empty()) throw UsageError("ahctl net " + verb + " needs at least one CIDR or domain name");
    if (!change && !entries.empty()) throw UsageError("usage: ahctl -s SID net [log] (see ahctl net --help)");
    auto rt = open(o, false);
    nlohmann::json policy;
    try {
        if (change) {
            EgressChange c;
            (verb == "allow" ? c.allow : verb == "deny" ? c.deny : c.remove) = entries;
            policy = rt->change_network_policy(c);
        } else {
            policy = rt->network_policy();
        }
    } catch (const std::invalid_argument &e) {
        std::cerr << "ahctl: error: " << actionhost::common::printable_for_terminal(e.what()) << "\n";
        rt->close();
        return kActionFailed;
    }
    rt->close();
    if (o.json) {
        std::cout << actionhost::common::dump_json(verb == "log" ? policy.value("log", nlohmann::json::array()) : policy, 2) << "\n";
        return kOk;
    }
    const auto text = [](const nlohmann::json &v) { return actionhost::common::printable_for_terminal(v.is_string() ? v.get<std::string>() : actionhost::common::dump_json(v)); };
    if (verb == "log") {
        auto log = policy.value("log", nlohmann::json::array());
        std::sort(log.begin(), log.end(), [](const nlohmann::json &a, const nlohmann::json &b) { return a.value("packets", 0) > b.value("packets", 0); });
        for (const auto &e : log)
            std::cout << text(e.value("address", nlohmann::json(""))) << " " << text(e.value("protocol", nlohmann::json(""))) << " "
                      << e.value("port", 0) << " " << e.value("packets", 0ULL) << " packets\n";
        return kOk;
    }
    std::cout << "mode: " << text(policy.value("mode", nlohmann::json(""))) << "\n";
    if (policy.value("mode", "") != "internet") return kOk;
    for (const char *list : {"allow", "deny"}) {
        std::string line;
        for (const auto &e : policy.value(list, nlohmann::json::array())) line += " " + text(e);
        std::cout << list << ":" << (line.empty() ? " (none)" : line) << "\n";
    }
    if (policy.contains("refused")) std::cout << "refused: " << policy.value("refused", 0ULL) << " packets\n";
    return kOk;
}

}  // namespace ahctl
