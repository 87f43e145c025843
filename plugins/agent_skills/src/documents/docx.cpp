// DOCX: word/document.xml's body paragraphs (headings by style) and tables.
#include "documents.hpp"

#include <string>
#include <vector>

#include "documents/ooxml.hpp"
#include "py_text.hpp"

namespace actionhost::agent_skills {

using namespace ooxml;

namespace {

int heading_level(const pugi::xml_node &p) {
    for (auto ppr : p.children()) {
        if (local(ppr) != "pPr") continue;
        for (auto st : ppr.children()) {
            if (local(st) != "pStyle") continue;
            const std::string v = lower_ascii(attr(st, "val"));
            if (v == "title") return 1;
            if (v.rfind("heading", 0) == 0 && v.size() == 8 && v[7] >= '1' && v[7] <= '6') return v[7] - '0';
        }
    }
    return 0;
}

std::vector<pugi::xml_node> docx_body_paragraphs(pugi::xml_document &doc, bool include_tables,
                                                 std::string *markdown) {
    std::vector<pugi::xml_node> paras;
    pugi::xml_node body;
    for (auto n : doc.document_element().children())
        if (local(n) == "body") body = n;
    for (auto n : body.children()) {
        const std::string_view l = local(n);
        if (l == "p") {
            paras.push_back(n);
            if (markdown) {
                const std::string text = paragraph_text(n);
                const int level = heading_level(n);
                if (text.empty()) continue;
                if (level) *markdown += std::string(static_cast<size_t>(level), '#') + " ";
                *markdown += text + "\n\n";
            }
        } else if (l == "tbl" && include_tables && markdown) {
            std::vector<std::vector<std::string>> rows;
            for (auto tr : n.children()) {
                if (local(tr) != "tr") continue;
                std::vector<std::string> row;
                for (auto tc : tr.children()) {
                    if (local(tc) != "tc") continue;
                    std::string cell;
                    for (auto cp : tc.children())
                        if (local(cp) == "p") cell += (cell.empty() ? "" : " ") + paragraph_text(cp);
                    row.push_back(cell);
                }
                rows.push_back(row);
            }
            *markdown += markdown_table(rows) + "\n";
        }
    }
    return paras;
}

}  // namespace

std::string docx_markdown(const std::string &path) {
    Package pkg(path);
    auto doc = pkg.xml("word/document.xml");
    std::string md;
    docx_body_paragraphs(doc, true, &md);
    return std::string(py_strip(md));
}

std::string parse_docx(const std::string &path) {
    Package pkg(path);
    auto doc = pkg.xml("word/document.xml");
    std::string text;
    int i = 0;
    for (const auto &p : docx_body_paragraphs(doc, false, nullptr))
        text += "@@ Page " + std::to_string(++i) + " @@\n" + paragraph_text(p) + "\n\n";
    return "[Reading DOCX file from " + path + "]\n" + text + "\n";
}

}  // namespace actionhost::agent_skills
