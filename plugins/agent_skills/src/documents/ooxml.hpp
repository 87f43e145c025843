// What the OOXML readers (docx, pptx, xlsx) share: a package (a zip of XML parts, read with Poco::Zip
// and pugixml), namespace-agnostic element and attribute names, the text of a DrawingML/WordprocessingML
// paragraph, and the Markdown table both the Word and the Excel renderings print.
#pragma once

#include <fstream>
#include <memory>
#include <pugixml.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace Poco::Zip {
class ZipArchive;
}

namespace actionhost::agent_skills::ooxml {

// Throws std::runtime_error("File is not a zip file") for anything that is not a non-empty zip.
class Package {
  public:
    explicit Package(const std::string &path);
    ~Package();
    bool has(const std::string &name) const;
    std::string read(const std::string &name);
    std::vector<std::string> names() const;
    pugi::xml_document xml(const std::string &name);

  private:
    std::ifstream in_;
    std::unique_ptr<Poco::Zip::ZipArchive> archive_;
};

// Local name of an element ("w:p" → "p").
std::string_view local(const pugi::xml_node &n);
std::string attr(const pugi::xml_node &n, std::string_view local_name);
// Text of a WordprocessingML / DrawingML paragraph: runs' <t>, tabs and breaks.
std::string paragraph_text(const pugi::xml_node &p);
std::string markdown_table(const std::vector<std::vector<std::string>> &rows);

}  // namespace actionhost::agent_skills::ooxml
