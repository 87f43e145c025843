// Document readers: PDF (poppler-cpp), DOCX / PPTX / XLSX (OOXML parts read with Poco::Zip and
// pugixml) and LaTeX (a small macro stripper). Two renderings each:
//  - *_markdown: what the editor's `view` shows for .pdf .docx .pptx .xlsx (markitdown-like Markdown);
//  - parse_* : the printed text of OpenHands' agent skills (`[Reading PDF file from <p>]`, `@@ Page N @@`).
// Failures throw std::runtime_error with a readable reason.
#pragma once

#include <string>

namespace actionhost::agent_skills {

std::string pdf_markdown(const std::string &path);
std::string docx_markdown(const std::string &path);
std::string pptx_markdown(const std::string &path);
std::string xlsx_markdown(const std::string &path);
// Dispatches on the (lower-case) suffix; throws for other suffixes.
std::string document_markdown(const std::string &path, const std::string &suffix);

std::string parse_pdf(const std::string &path);
std::string parse_docx(const std::string &path);
std::string parse_pptx(const std::string &path);
std::string parse_xlsx(const std::string &path);
std::string parse_latex(const std::string &path);
std::string latex_to_text(const std::string &latex);

}  // namespace actionhost::agent_skills
