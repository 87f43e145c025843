// libah_agent_skills_py.so: the skills as two C functions for Python's ctypes, so IPython kernels run
// this same C++ implementation (python/actionhost_skills.py is only the calling convention).
//
//   char *ah_skills_run(const char *name, const char *args_json, const char *cwd);
//       Runs skill `name` with keyword arguments `args_json` (a JSON object) and relative paths resolved
//       against `cwd`; returns what the skill prints (UTF-8, malloc'ed). Never NULL. Thread-safe (calls
//       are serialised: the open file / window is one state per process, i.e. per kernel).
//   void ah_skills_free(char *text);
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>

#include "actionhost/common/json_io.hpp"
#include "skills.hpp"

namespace {

using namespace actionhost::agent_skills;

struct ProcessState {
    std::mutex mu;
    SkillState skills;
    std::unique_ptr<Editor> editor;
};

ProcessState &state() {
    static ProcessState s;
    return s;
}

char *copy_out(const std::string &s) {
    char *out = static_cast<char *>(std::malloc(s.size() + 1));
    if (out == nullptr) return nullptr;
    std::memcpy(out, s.data(), s.size());
    out[s.size()] = '\0';
    return out;
}

}  // namespace

extern "C" __attribute__((visibility("default"))) char *ah_skills_run(const char *name, const char *args_json, const char *cwd) {
    try {
        ProcessState &st = state();
        std::lock_guard<std::mutex> lock(st.mu);
        const std::string dir = cwd != nullptr ? cwd : "/";
        if (!st.editor) {
            const char *roots = std::getenv("ACTIONHOST_EDITOR_ROOTS");
            st.editor = std::make_unique<Editor>(dir, editor_path_policy(roots != nullptr ? roots : ""));
            st.editor->set_durable_writes(editor_fsync_enabled(std::getenv("ACTIONHOST_EDITOR_FSYNC")));
        }
        auto parsed = actionhost::common::parse_json(args_json != nullptr ? args_json : "{}");
        if (!parsed) return copy_out("ERROR: bad arguments: " + parsed.error().message + "\n");
        SkillContext ctx{dir, st.editor.get()};
        return copy_out(run_skill(st.skills, ctx, name != nullptr ? name : "", parsed.value()));
    } catch (const std::exception &e) {
        return copy_out(std::string("ERROR: ") + e.what() + "\n");
    } catch (...) {
        return copy_out("ERROR: unknown failure\n");
    }
}

extern "C" __attribute__((visibility("default"))) void ah_skills_free(char *text) { std::free(text); }
