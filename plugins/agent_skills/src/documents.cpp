// Picks the Markdown converter by suffix; each format lives in documents/<format>.cpp.
#include "documents.hpp"

#include <stdexcept>

namespace actionhost::agent_skills {

std::string document_markdown(const std::string &path, const std::string &suffix) {
    if (suffix == ".pdf") return pdf_markdown(path);
    if (suffix == ".docx") return docx_markdown(path);
    if (suffix == ".pptx") return pptx_markdown(path);
    if (suffix == ".xlsx") return xlsx_markdown(path);
    throw std::runtime_error("no converter for " + suffix + " files");
}

}  // namespace actionhost::agent_skills
