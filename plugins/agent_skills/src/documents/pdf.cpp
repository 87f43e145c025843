// PDF: each page's text through poppler-cpp.
#include "documents.hpp"

#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-page.h>

#include <memory>
#include <mutex>
#include <stdexcept>
#include <string>
#include <vector>

#include "py_text.hpp"

namespace actionhost::agent_skills {

namespace {

void quiet_poppler(const std::string &, void *) {}

std::vector<std::string> pdf_pages(const std::string &path) {
    static std::once_flag once;
    std::call_once(once, [] { poppler::set_debug_error_function(&quiet_poppler, nullptr); });
    std::unique_ptr<poppler::document> doc(poppler::document::load_from_file(path));
    if (!doc) throw std::runtime_error("cannot read PDF file " + path);
    if (doc->is_locked()) throw std::runtime_error("the PDF file " + path + " is encrypted");
    std::vector<std::string> pages;
    for (int i = 0; i < doc->pages(); ++i) {
        std::unique_ptr<poppler::page> page(doc->create_page(i));
        if (!page) {
            pages.emplace_back();
            continue;
        }
        const poppler::byte_array bytes = page->text().to_utf8();
        pages.emplace_back(bytes.data(), bytes.size());
    }
    return pages;
}

std::string rstrip_copy(std::string_view s) { return std::string(py_rstrip(s)); }

}  // namespace

std::string pdf_markdown(const std::string &path) {
    std::string out;
    const auto pages = pdf_pages(path);
    for (size_t i = 0; i < pages.size(); ++i) out += (i ? "\n\n" : "") + rstrip_copy(pages[i]);
    return out;
}

std::string parse_pdf(const std::string &path) {
    std::string text;
    const auto pages = pdf_pages(path);
    for (size_t i = 0; i < pages.size(); ++i) text += "@@ Page " + std::to_string(i + 1) + " @@\n" + rstrip_copy(pages[i]) + "\n\n";
    return "[Reading PDF file from " + path + "]\n" + std::string(py_strip(text)) + "\n";
}

}  // namespace actionhost::agent_skills
