// `ahctl log SESSION [-f] [--json] [--verify]`: a session's audit trail (client/audit_log.hpp).
#pragma once

#include "cli.hpp"

namespace ahctl {

int cmd_log(const Options &options);

}  // namespace ahctl
