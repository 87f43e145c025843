// The one rule for which absolute paths a file operation may touch: those under one of a set of root
// directories, judged after resolving the symbolic links (and `..`) of the path's existing part, so a
// link inside a root that points out, or a `..` that climbs out, is refused. No roots: every path, as
// OpenHands allows. Used by the host's own file actions and endpoints (ACTIONHOST_EDITOR_ROOTS) and by
// the agent_skills editor (its `roots` option).
#pragma once

#include <string>
#include <vector>

#include "actionhost/common/result.hpp"

namespace actionhost::common {

class PathPolicy {
  public:
    // `roots_spec`: colon-separated absolute directories (entries that are not absolute are ignored);
    // empty: the whole file system. Each root is resolved once, here. `scope` and `setting` word the
    // refusal: "The path P is outside the directories <scope>: <roots> (<setting>)." (no parenthesis
    // when `setting` is empty).
    PathPolicy(const std::string &roots_spec, std::string scope, std::string setting = "");

    bool confined() const { return !roots_.empty(); }
    const std::vector<std::string> &roots() const { return roots_; }

    // Success when `abs_path`, resolved, lies under a root (or there are none); else why not, naming the
    // resolved path when it differs. Reads the file system (realpath of the existing part); any thread.
    Status check(const std::string &abs_path) const;

  private:
    std::vector<std::string> roots_;
    std::string scope_;
    std::string setting_;
};

}  // namespace actionhost::common
