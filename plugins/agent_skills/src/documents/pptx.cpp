// PPTX: slides in presentation order, each shape's text, titles marked.
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

}  // namespace

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

}  // namespace actionhost::agent_skills
