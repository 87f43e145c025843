#include "documents/ooxml.hpp"

#include <Poco/Zip/ZipArchive.h>
#include <Poco/Zip/ZipStream.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace actionhost::agent_skills::ooxml {

Package::Package(const std::string &path) : in_(path, std::ios::binary) {
    if (!in_) throw std::runtime_error("cannot open " + path);
    try {
        archive_ = std::make_unique<Poco::Zip::ZipArchive>(in_);
    } catch (const std::exception &e) {
        throw std::runtime_error("File is not a zip file");
    }
    if (archive_->headerBegin() == archive_->headerEnd()) throw std::runtime_error("File is not a zip file");
}

Package::~Package() = default;

bool Package::has(const std::string &name) const { return archive_->findHeader(name) != archive_->headerEnd(); }

std::string Package::read(const std::string &name) {
    auto it = archive_->findHeader(name);
    if (it == archive_->headerEnd()) throw std::runtime_error("missing part " + name);
    in_.clear();
    Poco::Zip::ZipInputStream zis(in_, it->second, true);
    std::ostringstream out;
    out << zis.rdbuf();
    return out.str();
}

std::vector<std::string> Package::names() const {
    std::vector<std::string> out;
    for (auto it = archive_->headerBegin(); it != archive_->headerEnd(); ++it) out.push_back(it->first);
    return out;
}

pugi::xml_document Package::xml(const std::string &name) {
    pugi::xml_document doc;
    const std::string text = read(name);
    if (!doc.load_buffer(text.data(), text.size())) throw std::runtime_error("malformed XML in " + name);
    return doc;
}

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

}  // namespace actionhost::agent_skills::ooxml
