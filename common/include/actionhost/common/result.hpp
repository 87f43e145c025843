// The one way a function of ours says "it worked" or "here is why not": Status (nothing to return) and
// Result<T> (a value, or why there is none), on Boost.Outcome (docs/design.md, "Errors").
//
//   common::Result<Options> parse(...);       // return options;  or  return common::fail("...");
//   common::Status save(...);                 // return common::ok();  or  return common::fail("...", errno);
//   auto r = parse(args);
//   if (!r) { show(r.error().message); ... }  // r.value() is the options
//   if (!r) return r.as_failure();            // hands the error on, unchanged
//
// Nothing of this crosses the C ABI: modules still get and set C strings (sdk/include/actionhost).
#pragma once

#include <boost/outcome/basic_result.hpp>
#include <boost/outcome/policy/terminate.hpp>
#include <boost/outcome/success_failure.hpp>
#include <string>
#include <utility>

namespace actionhost::common {

// Why something failed. `message` is complete as it stands: the person reading a 4xx body, an error
// observation or a log line sees exactly this text ("command not found: x", "cannot read /etc/y: No
// such file or directory"), so it names the thing and the reason, never just a code.
struct Error {
    std::string message;
    int sys_errno = 0;  // the errno of the failed system call, for callers that branch on it (0: none)
};

// A value of T, or the Error saying why there is none. Reading value() of a failed Result (or error()
// of a successful one) is a bug of the caller and ends the process (policy::terminate), rather than
// being undefined behaviour or an exception somebody forgot to catch.
template <class T>
using Result = boost::outcome_v2::basic_result<T, Error, boost::outcome_v2::policy::terminate>;

// Success, or the Error saying why not.
using Status = Result<void>;

// A failure convertible to any Status or Result<T>.
inline auto fail(std::string message, int sys_errno = 0) {
    return boost::outcome_v2::failure(Error{std::move(message), sys_errno});
}

// Success of a Status.
inline auto ok() { return boost::outcome_v2::success(); }

}  // namespace actionhost::common
