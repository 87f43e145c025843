// OpenHands' runtime_init (openhands/runtime/utils/runtime_init.py): make sure the user actions run as
// exists and owns the working directory.
#pragma once

#include <string>

#include <actionhost/common/result.hpp>

namespace actionhost::host {

struct UserInit {
    int user_id;       // the uid actually used (an existing user's uid wins, as in OpenHands)
    std::string note;  // what was done, for the log
};

// What was set up, or why the user or the working directory could not be.
common::Result<UserInit> init_user_and_working_dir(const std::string &username, int user_id, const std::string &working_dir);

}  // namespace actionhost::host
