// ahctl plugin push|install|ls|rm|search: plugins over OCI registries (actionhost/client/plugins.hpp;
// docs/plugin-guide.md, "Publishing and installing").
#pragma once

#include "cli.hpp"

namespace ahctl {

int cmd_plugin(const Options &options);

}  // namespace ahctl
