#include "sandbox_probe.hpp"

#include <dirent.h>
#include <unistd.h>

#include <random>
#include <sstream>

#include "support/proc_file.hpp"

namespace security_test {

using actionhost::testing::read_proc_file;

std::string random_tag() {
    std::random_device rd;
    std::ostringstream s;
    s << std::hex << rd() << rd();
    return s.str();
}

std::string outside_ids_of(const std::string &marker) {
    for (int attempt = 0; attempt < 100; ++attempt) {
        DIR *d = opendir("/proc");
        std::string found;
        for (dirent *e = d ? readdir(d) : nullptr; e != nullptr; e = readdir(d)) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            const std::string dir = std::string("/proc/") + e->d_name;
            std::string cmdline = read_proc_file(dir + "/cmdline");
            for (auto &c : cmdline)
                if (c == '\0') c = ' ';
            if (cmdline.find(marker) == std::string::npos || cmdline.rfind("python3 -c", 0) != 0) continue;
            std::istringstream status(read_proc_file(dir + "/status"));
            for (std::string line; std::getline(status, line);)
                if (line.rfind("Uid:", 0) == 0 || line.rfind("Gid:", 0) == 0) found += line + "\n";
        }
        if (d) closedir(d);
        if (!found.empty()) return found;
        usleep(50000);
    }
    return "";
}

std::vector<long> ids_on(const std::string &lines) {
    std::vector<long> ids;
    std::istringstream in(lines);
    for (std::string word; in >> word;)
        if (word != "Uid:" && word != "Gid:") ids.push_back(std::stol(word));
    return ids;
}

}  // namespace security_test
