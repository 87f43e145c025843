// The prompt marker: how the plugin learns that bash finished a command, and with what result.
//
// Like OpenHands' PS1 JSON block (###PS1JSON### … ###PS1END###) it carries exit code, last background pid,
// user, host and working directory, re-installed by PROMPT_COMMAND before every prompt. Where OpenHands
// prints `which python` (a subshell per prompt), it carries the shell's PATH, and the plugin finds the
// interpreter on it (find_on_path, as the shell's user from its directory): a lookup in the shell cost
// more than the rest of the prompt, and could not notice a python that appears without PATH changing.
// Unlike OpenHands' block, the begin and end markers contain a random per-session nonce, and the shell
// variables hold them only in escaped form (`\043` for `#`), so neither command output nor `env`/`set`
// listings can forge or fake a prompt. Fields are separated by US (0x1f). PATH and the working directory
// may hold any byte, US included, so the prompt ends with the directory, PATH and the directory again:
// the longest directory that both opens and closes what is left splits it (see parse_fields).
// Bash prints both variables as they are, which costs it nothing; removing the US bytes from PATH cost a
// pattern substitution per prompt, about a sixth of bash's work for an `echo hi`.
#pragma once

#include <string>
#include <string_view>

namespace actionhost::bash {

struct PromptInfo {
    int exit_code = -1;
    int pid = -1;  // $! (last background job); -1 when none, as OpenHands
    std::string username;
    std::string hostname;
    std::string sync;  // $__ah_sync: lets the plugin tell its own sync line's prompt from stray ones
    std::string path;  // the shell's PATH, every byte of it
    std::string working_dir;
};

class PromptMarker {
  public:
    // `nonce`: letters and digits only (see random_nonce).
    explicit PromptMarker(std::string nonce);

    const std::string &begin() const { return begin_; }
    const std::string &end() const { return end_; }
    // Lines of bash for the rc file: PS1, kept in an exported variable, and a PROMPT_COMMAND that
    // re-installs it before each prompt (a command may change PS1, e.g. a virtualenv activation).
    std::string prompt_setup() const;
    // The PS1 value (bash prompt escapes), without quoting.
    std::string ps1() const;

    // Parses what lies between begin() and end().
    static PromptInfo parse_fields(std::string_view body);

  private:
    std::string nonce_;
    std::string begin_;
    std::string end_;
};

// 16 random hex digits from the kernel's generator.
std::string random_nonce();

// Streams terminal bytes, separating output from prompt markers, even when a marker is split across
// reads. A begin marker that is not closed within kMaxMarkerBody bytes is treated as output.
class MarkerScanner {
  public:
    // Room for a real prompt: the body holds the working directory twice and PATH, and bash keeps a
    // directory far longer than PATH_MAX when it is reached one `cd` at a time.
    static constexpr size_t kMaxMarkerBody = 256 * 1024;

    explicit MarkerScanner(const PromptMarker &marker) : begin_(marker.begin()), end_(marker.end()) {}

    // Calls on_output(std::string_view) for output bytes and on_prompt(const PromptInfo &) for each
    // marker, in stream order. Bytes that may start a marker are held back until decided.
    template <class OnOutput, class OnPrompt>
    void feed(std::string_view bytes, OnOutput &&on_output, OnPrompt &&on_prompt);

    // Output bytes held back (a possible marker start); call when no more bytes will come.
    std::string flush();

  private:
    std::string begin_;
    std::string end_;
    bool inside_ = false;
    std::string held_;  // outside: a possible partial begin marker; inside: the marker body so far
};

// ---- implementation of the template ------------------------------------------------------------------

namespace detail {
// Length of the longest suffix of `s` that is a proper prefix of `marker`.
size_t partial_marker_suffix(std::string_view s, std::string_view marker);
}  // namespace detail

template <class OnOutput, class OnPrompt>
void MarkerScanner::feed(std::string_view bytes, OnOutput &&on_output, OnPrompt &&on_prompt) {
    std::string joined;
    std::string_view rest = bytes;
    if (!held_.empty() && !inside_) {
        joined = std::move(held_);
        held_.clear();
        joined.append(bytes);
        rest = joined;
    }
    while (!rest.empty()) {
        if (!inside_) {
            const size_t at = rest.find(begin_);
            if (at == std::string_view::npos) {
                const size_t keep = detail::partial_marker_suffix(rest, begin_);
                if (rest.size() > keep) on_output(rest.substr(0, rest.size() - keep));
                held_.assign(rest.substr(rest.size() - keep));
                return;
            }
            if (at > 0) on_output(rest.substr(0, at));
            rest.remove_prefix(at + begin_.size());
            inside_ = true;
            held_.clear();
            continue;
        }
        const size_t search_from = held_.size() >= end_.size() ? held_.size() - end_.size() + 1 : 0;
        held_.append(rest);
        const size_t at = held_.find(end_, search_from);
        if (at == std::string::npos) {
            if (held_.size() > kMaxMarkerBody) {  // not a marker after all
                std::string as_output = begin_ + held_;
                held_.clear();
                inside_ = false;
                on_output(std::string_view(as_output));
            }
            return;
        }
        const PromptInfo info = PromptMarker::parse_fields(std::string_view(held_).substr(0, at));
        // What follows the end marker is output again; keep it alive past held_'s reuse.
        std::string after = held_.substr(at + end_.size());
        held_.clear();
        inside_ = false;
        on_prompt(info);
        joined = std::move(after);
        rest = joined;
    }
}

}  // namespace actionhost::bash
