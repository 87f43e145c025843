#include "output/cell_output.hpp"

namespace actionhost::jupyter {

CellOutput::CellOutput(size_t max_chars, size_t image_budget) : text_(max_chars), image_budget_(image_budget) {}

void CellOutput::add_text(std::string_view text) {
    has_text_ = true;
    text_.append(text);
}

void CellOutput::add_png_base64(std::string_view base64) {
    static constexpr std::string_view kPrefix = "data:image/png;base64,";
    if (image_bytes_ + base64.size() > image_budget_) {
        ++dropped_images_;
        return;
    }
    image_bytes_ += base64.size();
    std::string url;
    url.reserve(kPrefix.size() + base64.size());
    url.append(kPrefix).append(base64);
    image_urls_.push_back(std::move(url));
}

std::string CellOutput::text() const { return has_text_ ? text_.finish() : std::string(kNoOutputText); }

}  // namespace actionhost::jupyter
