// XLSX: every sheet's cells (shared strings, booleans, inline strings) as a Markdown table.
#include "documents.hpp"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "documents/ooxml.hpp"
#include "py_text.hpp"

namespace actionhost::agent_skills {

using namespace ooxml;

namespace {

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

}  // namespace

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

std::string parse_xlsx(const std::string &path) {
    return "[Reading Excel file from " + path + "]\n" + xlsx_markdown(path) + "\n";
}

}  // namespace actionhost::agent_skills
