// What one cell produced, assembled as OpenHands' Jupyter plugin does (execute_server.py): the text of
// `stream` messages, `execute_result`/`display_data` text/plain and the error traceback lines joined by
// "\n", all concatenated; image/png payloads as data URLs. Memory is bounded: text through BoundedText,
// images up to a byte budget (further images are counted, not kept).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "output/bounded_text.hpp"

namespace actionhost::jupyter {

inline constexpr std::string_view kNoOutputText = "[Code executed successfully with no output]";
inline constexpr size_t kDefaultImageBudgetBytes = 64u << 20;

class CellOutput {
  public:
    explicit CellOutput(size_t max_chars = common::kMaxObservationChars, size_t image_budget = kDefaultImageBudgetBytes);

    void add_text(std::string_view text);
    void add_png_base64(std::string_view base64);

    bool has_text() const { return has_text_; }
    // The cell's text as the peer returns it, then right-stripped and truncated to max_chars:
    // kNoOutputText when no text message arrived at all.
    std::string text() const;
    const std::vector<std::string> &image_urls() const { return image_urls_; }
    size_t dropped_images() const { return dropped_images_; }

  private:
    BoundedText text_;
    bool has_text_ = false;
    std::vector<std::string> image_urls_;
    size_t image_bytes_ = 0;
    size_t image_budget_;
    size_t dropped_images_ = 0;
};

}  // namespace actionhost::jupyter
