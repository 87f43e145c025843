// LaTeX: a small macro stripper that renders as pylatexenc does.
#include "documents.hpp"

#include <cctype>
#include <map>
#include <stdexcept>
#include <string>

#include "file_access.hpp"
#include "py_text.hpp"

namespace actionhost::agent_skills {

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
    auto bytes = read_bytes(path, 0);
    if (!bytes) throw std::runtime_error(bytes.error().message);
    return "[Reading LaTex file from " + path + "]\n" + std::string(py_strip(latex_to_text(bytes.value()))) + "\n";
}

}  // namespace actionhost::agent_skills
