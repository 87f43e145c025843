// ahctl commands for the client's image store: snapshot, images, push, rmi (docs/runtimes.md, "Images").
#pragma once

#include "cli.hpp"
#include "workspace_commands.hpp"

namespace ahctl {

int cmd_snapshot(const Options &options, OpenRuntime open);
int cmd_images(const Options &options);
int cmd_push(const Options &options);
int cmd_rmi(const Options &options);

}  // namespace ahctl
