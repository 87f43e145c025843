// <workspace>/.vscode/settings.json as OpenHands' VSCodePlugin writes it.
#pragma once

#include <actionhost/common/result.hpp>
#include <string>

namespace actionhost::vscode {

// OpenHands' plugins/vscode/settings.json, byte for byte.
const std::string &default_settings_json();

// Creates <workspace>/.vscode/ and writes settings.json there with mode 0666 (replacing an existing
// file, as OpenHands' shutil.copy does), or says why it could not.
common::Status write_workspace_settings(const std::string &workspace);

}  // namespace actionhost::vscode
