// An action failed the way BrowserGym reports it: what() is "<ExceptionClass>: <message>", the text
// that becomes last_browser_action_error. The step stops at the first one; earlier effects stay.
#pragma once

#include <stdexcept>
#include <string>

namespace actionhost::browser {

struct ActionError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

}  // namespace actionhost::browser
