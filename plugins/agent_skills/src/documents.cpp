#include "documents.hpp"

#include <Poco/Zip/ZipArchive.h>
#include <Poco/Zip/ZipStream.h>
#include <poppler/cpp/poppler-document.h>
#include <poppler/cpp/poppler-global.h>
#include <poppler/cpp/poppler-page.h>

#include <algorithm>
#include <cctype>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <pugixml.hpp>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "file_access.hpp"
#include "py_text.hpp"

namespace actionhost::agent_skills {

namespace {

// ---- OOXML packages --------------------------------------------------------------------------------

class Package {
  public:
    explicit Package(const std::string &path) : in_(path, std::ios::binary) {
        if (!in_) throw std::runtime_error("cannot open " + path);
        try {
            archive_ = std::make_unique<Poco::Zip::ZipArchive>(in_);
        } catch (const std::exception &e) {
            throw std::runtime_error("File is not a zip file");
        }
        if (archive_->headerBegin() == archive_->headerEnd()) throw std::runtime_error("File is not a zip file");
    }
    bool has(const std::string &name) const { return archive_->findHeader(name) != archive_->headerEnd(); }
    std::string read(const std::string &name) {
        auto it = archive_->findHeader(name);
        if (it == archive_->headerEnd()) throw std::runtime_error("missing part " + name);
        in_.clear();
        Poco::Zip::ZipInputStream zis(in_, it->second, true);
        std::ostringstream out;
        out << zis.rdbuf();
        return out.str();
    }
    std::vector<std::string> names() const {
        std::vector<std::string> out;
        for (auto it = archive_->headerBegin(); it != archive_->headerEnd(); ++it) out.push_back(it->first);
        return out;
    }
    pugi::xml_document xml(const std::string &name) {
        pugi::xml_document doc;
        const std::string text = read(name);
        if (!doc.load_buffer(text.data(), text.size())) throw std::runtime_error("malformed XML in " + name);
        return doc;
    }

  private:
    std::ifstream in_;
    std::unique_ptr<Poco::Zip::ZipArchive> archive_;
};

// Local name of an element ("w:p" → "p").
std::string_view local(const pugi::xml_node &n) {
    std::string_view name = n.name();
    const size_t c = name.find(':');
    return c == std::string_view::npos ? name : name.substr(c + 1);
}

std::string attr(const pugi::xml_node &n, std::string_view local_name) {
    for (auto a : n.attributes()) {
        std::string_view name = a.name();
        const size_t c = name.find(':');
        if ((c == std::string_view::npos ? name : name.substr(c + 1)) == local_name) return a.value();
    }
    return "";
}

// Text of a WordprocessingML / DrawingML paragraph: runs' <t>, tabs and breaks.
std::string paragraph_text(const pugi::xml_node &p) {
    std::string out;
    struct Walker : pugi::xml_tree_walker {
        std::string *out;
        bool for_each(pugi::xml_node &n) override {
            if (n.type() != pugi::node_element) return true;
            const std::string_view l = local(n);
            if (l == "t") out->append(n.text().get());
            else if (l == "tab") out->push_back('\t');
            else if (l == "br" || l == "cr") out->push_back('\n');
            return true;
        }
    } w;
    w.out = &out;
    pugi::xml_node copy = p;
    copy.traverse(w);
    return out;
}

std::string markdown_table(const std::vector<std::vector<std::string>> &rows) {
    if (rows.empty()) return "";
    size_t cols = 0;
    for (const auto &r : rows) cols = std::max(cols, r.size());
    auto cell = [](std::string s) {
        for (char &c : s)
            if (c == '\n' || c == '|') c = c == '|' ? '/' : ' ';
        return s;
    };
    std::string out;
    for (size_t i = 0; i < rows.size(); ++i) {
        out += "|";
        for (size_t c = 0; c < cols; ++c) out += " " + cell(c < rows[i].size() ? rows[i][c] : "") + " |";
        out += "\n";
        if (i == 0) {
            out += "|";
            for (size_t c = 0; c < cols; ++c) out += " --- |";
            out += "\n";
        }
    }
    return out;
}

// ---- DOCX ------------------------------------------------------------------------------------------

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

// ---- PPTX ------------------------------------------------------------------------------------------

// Slide part names in presentation order (presentation.xml's sldIdLst through its relationships).
std::vector<std::string> slide_parts(Package &pkg) {
    std::vector<std::string> out;
    std::map<std::string, std::string> rel_target;
    if (pkg.has("ppt/_rels/presentation.xml.rels")) {
        auto rels = pkg.xml("ppt/_rels/presentation.xml.rels");
        for (auto r : rels.document_element().children()) {
            std::string target = r.attribute("Target").value();
            if (!target.empty() && target.front() == '/') target = target.substr(1);
            else target = "ppt/" + target;
            rel_target[r.attribute("Id").value()] = target;
        }
    }
    if (pkg.has("ppt/presentation.xml")) {
        auto pres = pkg.xml("ppt/presentation.xml");
        for (auto n : pres.document_element().children()) {
            if (local(n) != "sldIdLst") continue;
            for (auto s : n.children()) {
                std::string rid;  // the relationship id is the *prefixed* id attribute (r:id), not "id"
                for (auto a : s.attributes()) {
                    const std::string_view nm = a.name();
                    if (nm.size() > 3 && nm.substr(nm.size() - 3) == ":id") rid = a.value();
                }
                auto it = rel_target.find(rid);
                if (it != rel_target.end()) out.push_back(it->second);
            }
        }
    }
    if (out.empty()) {  // fall back to slideN.xml by number
        std::vector<std::pair<int, std::string>> numbered;
        for (const auto &name : pkg.names()) {
            if (name.rfind("ppt/slides/slide", 0) == 0 && name.size() > 20 && name.substr(name.size() - 4) == ".xml" &&
                name.find('/', 11) == std::string::npos)
                numbered.emplace_back(std::atoi(name.c_str() + 16), name);
        }
        std::sort(numbered.begin(), numbered.end());
        for (auto &p : numbered) out.push_back(p.second);
    }
    return out;
}

struct SlideShape {
    bool is_title = false;
    std::string text;
};

std::vector<SlideShape> slide_shapes(pugi::xml_document &slide) {
    std::vector<SlideShape> out;
    for (auto sp : slide.select_nodes("//*[local-name()='sp']")) {
        SlideShape shape;
        pugi::xml_node node = sp.node();
        for (auto ph : node.select_nodes(".//*[local-name()='ph']")) {
            const std::string type = ph.node().attribute("type").value();
            shape.is_title |= type == "title" || type == "ctrTitle";
        }
        std::vector<std::string> paras;
        bool has_body = false;
        for (auto tx : node.children()) {
            if (local(tx) != "txBody") continue;
            has_body = true;
            for (auto p : tx.children())
                if (local(p) == "p") paras.push_back(paragraph_text(p));
        }
        if (!has_body) continue;
        for (size_t i = 0; i < paras.size(); ++i) shape.text += (i ? "\n" : "") + paras[i];
        out.push_back(shape);
    }
    return out;
}

// ---- XLSX ------------------------------------------------------------------------------------------

struct Sheet {
    std::string name;
    std::vector<std::vector<std::string>> rows;
};

size_t column_index(const std::string &ref) {
    size_t col = 0;
    for (char c : ref) {
        if (c < 'A' || c > 'Z') break;
        col = col * 26 + static_cast<size_t>(c - 'A' + 1);
    }
    return col == 0 ? 0 : col - 1;
}

std::vector<Sheet> read_sheets(Package &pkg) {
    std::vector<std::string> shared;
    if (pkg.has("xl/sharedStrings.xml")) {
        auto sst = pkg.xml("xl/sharedStrings.xml");
        for (auto si : sst.document_element().children()) {
            if (local(si) != "si") continue;
            std::string s;
            for (auto t : si.select_nodes(".//*[local-name()='t']")) s += t.node().text().get();
            shared.push_back(s);
        }
    }
    std::map<std::string, std::string> rel_target;
    if (pkg.has("xl/_rels/workbook.xml.rels")) {
        auto rels = pkg.xml("xl/_rels/workbook.xml.rels");
        for (auto r : rels.document_element().children()) {
            std::string target = r.attribute("Target").value();
            target = !target.empty() && target.front() == '/' ? target.substr(1) : "xl/" + target;
            rel_target[r.attribute("Id").value()] = target;
        }
    }
    std::vector<Sheet> out;
    auto wb = pkg.xml("xl/workbook.xml");
    for (auto s : wb.select_nodes("//*[local-name()='sheet']")) {
        Sheet sheet;
        sheet.name = s.node().attribute("name").value();
        const std::string part = rel_target[attr(s.node(), "id")];
        if (part.empty() || !pkg.has(part)) continue;
        auto doc = pkg.xml(part);
        for (auto row : doc.select_nodes("//*[local-name()='row']")) {
            std::vector<std::string> cells;
            for (auto c : row.node().children()) {
                if (local(c) != "c") continue;
                const size_t col = column_index(c.attribute("r").value());
                const std::string type = c.attribute("t").value();
                std::string value;
                for (auto v : c.children()) {
                    const std::string_view l = local(v);
                    if (l == "v") value = v.text().get();
                    else if (l == "is") value = paragraph_text(v);
                }
                if (type == "s") {
                    const size_t i = static_cast<size_t>(std::atol(value.c_str()));
                    value = i < shared.size() ? shared[i] : "";
                } else if (type == "b") {
                    value = value == "1" ? "True" : "False";
                }
                if (cells.size() <= col) cells.resize(col + 1, "NaN");
                cells[col] = value;
            }
            sheet.rows.push_back(cells);
        }
        out.push_back(sheet);
    }
    return out;
}

// ---- PDF -------------------------------------------------------------------------------------------

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

std::string docx_markdown(const std::string &path) {
    Package pkg(path);
    auto doc = pkg.xml("word/document.xml");
    std::string md;
    docx_body_paragraphs(doc, true, &md);
    return std::string(py_strip(md));
}

std::string pptx_markdown(const std::string &path) {
    Package pkg(path);
    std::string md;
    int n = 0;
    for (const auto &part : slide_parts(pkg)) {
        ++n;
        auto slide = pkg.xml(part);
        md += "\n\n<!-- Slide number: " + std::to_string(n) + " -->\n";
        for (const auto &shape : slide_shapes(slide)) {
            if (shape.is_title) md += "# " + std::string(py_strip(shape.text)) + "\n";
            else md += shape.text + "\n";
        }
    }
    return std::string(py_strip(md));
}

std::string xlsx_markdown(const std::string &path) {
    Package pkg(path);
    std::string md;
    for (const auto &sheet : read_sheets(pkg)) {
        md += "## " + sheet.name + "\n";
        std::vector<std::vector<std::string>> rows = sheet.rows;
        size_t cols = 0;
        for (const auto &r : rows) cols = std::max(cols, r.size());
        for (auto &r : rows) r.resize(cols, "NaN");
        md += markdown_table(rows) + "\n";
    }
    return std::string(py_strip(md));
}

std::string document_markdown(const std::string &path, const std::string &suffix) {
    if (suffix == ".pdf") return pdf_markdown(path);
    if (suffix == ".docx") return docx_markdown(path);
    if (suffix == ".pptx") return pptx_markdown(path);
    if (suffix == ".xlsx") return xlsx_markdown(path);
    throw std::runtime_error("no converter for " + suffix + " files");
}

std::string parse_pdf(const std::string &path) {
    std::string text;
    const auto pages = pdf_pages(path);
    for (size_t i = 0; i < pages.size(); ++i) text += "@@ Page " + std::to_string(i + 1) + " @@\n" + rstrip_copy(pages[i]) + "\n\n";
    return "[Reading PDF file from " + path + "]\n" + std::string(py_strip(text)) + "\n";
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

std::string parse_pptx(const std::string &path) {
    std::string out = "[Reading PowerPoint file from " + path + "]\n";
    try {
        Package pkg(path);
        std::string text;
        int n = 0;
        for (const auto &part : slide_parts(pkg)) {
            auto slide = pkg.xml(part);
            if (n > 0) text += "\n";
            ++n;
            text += "@@ Slide " + std::to_string(n) + " @@";
            for (const auto &shape : slide_shapes(slide)) text += "\n" + shape.text;
        }
        return out + text + "\n";
    } catch (const std::exception &e) {
        return out + "Error reading PowerPoint file: " + e.what() + "\n";
    }
}

std::string parse_xlsx(const std::string &path) {
    return "[Reading Excel file from " + path + "]\n" + xlsx_markdown(path) + "\n";
}

std::string latex_to_text(const std::string &src) {
    // Drops comments and the preamble macros, keeps the arguments of formatting macros, renders
    // sections as pylatexenc does ("§ Title"), \item as "  * ", \\ as a line break.
    static const std::map<std::string, std::string> kSections = {
        {"chapter", "§§ "}, {"section", "§ "}, {"subsection", "§.§ "}, {"subsubsection", "§.§.§ "},
        {"paragraph", ""}, {"title", ""}, {"author", ""}};
    static const std::map<std::string, bool> kDropWithArgs = {
        {"documentclass", true}, {"usepackage", true}, {"label", true}, {"begin", true}, {"end", true},
        {"newcommand", true}, {"renewcommand", true}, {"bibliographystyle", true}, {"bibliography", true},
        {"date", true}, {"maketitle", true}, {"vspace", true}, {"hspace", true}, {"includegraphics", true}};
    std::string out;
    size_t i = 0;
    auto skip_args = [&](bool keep) {
        std::string kept;
        for (;;) {
            size_t j = i;
            while (j < src.size() && (src[j] == ' ')) ++j;
            if (j < src.size() && src[j] == '[') {
                const size_t e = src.find(']', j);
                if (e == std::string::npos) break;
                i = e + 1;
                continue;
            }
            if (j >= src.size() || src[j] != '{') break;
            int depth = 0;
            size_t k = j;
            for (; k < src.size(); ++k) {
                if (src[k] == '{') ++depth;
                else if (src[k] == '}' && --depth == 0) break;
            }
            if (keep) kept += latex_to_text(src.substr(j + 1, k - j - 1));
            i = k + 1;
            if (keep) break;
        }
        return kept;
    };
    while (i < src.size()) {
        const char c = src[i];
        if (c == '%') {
            while (i < src.size() && src[i] != '\n') ++i;
            if (i < src.size()) ++i;
            continue;
        }
        if (c == '\\') {
            if (i + 1 < src.size() && !std::isalpha(static_cast<unsigned char>(src[i + 1]))) {
                const char e = src[i + 1];
                i += 2;
                if (e == '\\') out += '\n';
                else if (e == ',' || e == ' ') out += ' ';
                else out += e;
                continue;
            }
            size_t j = i + 1;
            while (j < src.size() && std::isalpha(static_cast<unsigned char>(src[j]))) ++j;
            std::string name = src.substr(i + 1, j - i - 1);
            i = j;
            if (i < src.size() && src[i] == '*') ++i;
            if (auto s = kSections.find(name); s != kSections.end()) {
                out += "\n\n" + s->second + skip_args(true) + "\n\n";
            } else if (kDropWithArgs.count(name)) {
                skip_args(false);
            } else if (name == "item") {
                while (!out.empty() && (out.back() == ' ' || out.back() == '\n')) out.pop_back();
                out += "\n  * ";
                while (i < src.size() && (src[i] == ' ' || src[i] == '\t')) ++i;
            } else if (name == "cite") {
                skip_args(false);
                out += "<cit.>";
            } else if (name == "par") {
                out += "\n\n";
            } else {
                out += skip_args(true);
            }
            continue;
        }
        if (c == '{' || c == '}') {
            ++i;
            continue;
        }
        if (c == '~') {
            out += ' ';
            ++i;
            continue;
        }
        out += c;
        ++i;
    }
    // Collapse runs of 3+ newlines to two, as the renderer keeps paragraphs apart by one blank line.
    std::string collapsed;
    int nl = 0;
    for (char ch : out) {
        if (ch == '\n') {
            if (++nl > 2) continue;
        } else if (ch != ' ' || nl == 0) {
            nl = 0;
        }
        collapsed += ch;
    }
    return collapsed;
}

std::string parse_latex(const std::string &path) {
    std::string err;
    auto bytes = read_bytes(path, 0, err);
    if (!bytes) throw std::runtime_error(err);
    return "[Reading LaTex file from " + path + "]\n" + std::string(py_strip(latex_to_text(*bytes))) + "\n";
}

}  // namespace actionhost::agent_skills
