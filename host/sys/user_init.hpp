// OpenHands' runtime_init (openhands/runtime/utils/runtime_init.py): make sure the user actions run as
// exists and owns the working directory.
#pragma once

#include <string>

namespace actionhost::host {

struct UserInitResult {
    int user_id;        // the uid actually used (an existing user's uid wins, as in OpenHands)
    std::string error;  // "" on success
    std::string note;   // what was done, for the log
};

UserInitResult init_user_and_working_dir(const std::string &username, int user_id, const std::string &working_dir);

}  // namespace actionhost::host
