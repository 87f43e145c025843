// What the security tests read about a sandbox from the machine's side.
#pragma once

#include <string>
#include <vector>

namespace security_test {

// A random hex tag for names the test makes.
std::string random_tag();

// The "Uid:" and "Gid:" lines (real, effective, saved, filesystem ids) of the process whose command
// line starts with "python3 -c" and holds `marker`, read from the machine's /proc: the ids the kernel
// checks outside the sandbox. "" when no such process appears within 5 s.
std::string outside_ids_of(const std::string &marker);

// Every id on "Uid:\t0\t0\t0\t0" style lines.
std::vector<long> ids_on(const std::string &lines);

}  // namespace security_test
