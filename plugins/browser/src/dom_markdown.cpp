#include "dom_markdown.hpp"

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>

namespace actionhost::browser {
namespace {

std::string lower(std::string s) {
    for (auto &c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// Accumulates Markdown with html2text's whitespace rules: runs of whitespace collapse to one space,
// block boundaries become at most two newlines, line prefixes (quotes, pre indentation) are applied
// at the start of each line.
class Writer {
  public:
    void text(const std::string &s) {
        for (char c : s) {
            if (c == ' ' || c == '\n' || c == '\t' || c == '\r' || c == '\f') {
                if (!after_open_) space_ = true;  // "[ text" reads "[text"
                continue;
            }
            emit_char(c);
        }
    }
    void pre_text(const std::string &s) {
        for (char c : s) {
            if (c == '\n') {
                out_ += '\n';
                line_start_ = true;
                continue;
            }
            flush();
            out_ += c;
            line_start_ = false;
        }
    }
    // Markup such as "**" or "](href)": written like text, but a pending space stays pending only when
    // `keep_space` (opening markup goes after the space, closing markup before it).
    void markup(const std::string &s, bool opening) {
        if (opening) {
            flush();
            if (space_ && !line_start_) out_ += ' ';
            space_ = false;
            out_ += s;
            line_start_ = false;
            after_open_ = true;
        } else {
            bool had_space = space_;
            space_ = false;
            flush();
            out_ += s;
            line_start_ = false;
            space_ = had_space;
        }
    }
    void block(int newlines) {
        breaks_ = std::max(breaks_, newlines);
        space_ = false;
    }
    void hard_break() {  // <br>
        flush();
        out_ += "  \n";
        line_start_ = true;
        space_ = false;
    }
    void push_prefix(const std::string &p) { prefixes_.push_back(p); }
    void pop_prefix() {
        if (!prefixes_.empty()) prefixes_.pop_back();
    }
    std::string finish() {
        size_t end = out_.find_last_not_of(" \n");
        if (end == std::string::npos) return "\n";
        return out_.substr(0, end + 1) + "\n\n";
    }

  private:
    void emit_char(char c) {
        after_open_ = false;
        flush();
        if (space_ && !line_start_) out_ += ' ';
        space_ = false;
        out_ += c;
        line_start_ = false;
    }
    void flush() {
        if (breaks_ > 0 && !out_.empty()) {
            size_t have = 0;
            for (size_t i = out_.size(); i > 0 && out_[i - 1] == '\n'; --i) ++have;
            for (int k = static_cast<int>(have); k < breaks_; ++k) out_ += '\n';
            line_start_ = true;
        }
        breaks_ = 0;
        if (line_start_) {
            for (const auto &p : prefixes_) out_ += p;
            line_start_ = false;
            space_ = false;
            // Callers that write right after a prefix treat the line as started.
        }
    }

    std::string out_;
    int breaks_ = 0;
    bool line_start_ = true;
    bool space_ = false;
    bool after_open_ = false;
    std::vector<std::string> prefixes_;
};

struct ListState {
    bool ordered;
    int next;
};

class Renderer {
  public:
    std::string run(const DomNode &root) {
        walk(root);
        return w_.finish();
    }

  private:
    std::string inner_text(const DomNode &n) {
        if (n.kind == DomNode::Kind::Text) return n.text;
        std::string s;
        for (const auto &c : n.children) s += inner_text(c);
        return s;
    }

    void children(const DomNode &n) {
        for (const auto &c : n.children) walk(c);
    }

    void walk(const DomNode &n) {
        if (n.kind == DomNode::Kind::Text) {
            if (pre_ > 0)
                w_.pre_text(n.text);
            else
                w_.text(n.text);
            return;
        }
        if (n.kind != DomNode::Kind::Element) {
            children(n);
            return;
        }
        const std::string &t = n.tag;
        if (t == "head" || t == "script" || t == "style" || t == "template" || t == "img" || t.rfind("::", 0) == 0)
            return;
        if (t == "p" || t == "div") {
            w_.block(2);
            children(n);
            w_.block(2);
        } else if (t.size() == 2 && t[0] == 'h' && t[1] >= '1' && t[1] <= '6') {
            w_.block(2);
            w_.markup(std::string(static_cast<size_t>(t[1] - '0'), '#') + " ", true);
            children(n);
            w_.block(2);
        } else if (t == "br") {
            w_.hard_break();
        } else if (t == "hr") {
            w_.block(2);
            w_.markup("* * *", true);
            w_.block(2);
        } else if (t == "a") {
            const std::string *href = n.attribute("href");
            if (href == nullptr || href->empty() || (*href)[0] == '#' || in_link_) {
                children(n);
                return;
            }
            std::string label = inner_text(n);
            size_t a = label.find_first_not_of(" \t\r\n"), b = label.find_last_not_of(" \t\r\n");
            label = a == std::string::npos ? "" : label.substr(a, b - a + 1);
            if (label == *href && href->find("://") != std::string::npos) {
                w_.markup("<" + *href + ">", true);
                return;
            }
            in_link_ = true;
            w_.markup("[", true);
            children(n);
            w_.markup("](" + *href + ")", false);
            in_link_ = false;
        } else if (t == "em" || t == "i" || t == "u") {
            inline_wrap(n, "_");
        } else if (t == "strong" || t == "b") {
            inline_wrap(n, "**");
        } else if (t == "del" || t == "s" || t == "strike") {
            inline_wrap(n, "~~");
        } else if ((t == "code" || t == "kbd" || t == "tt") && pre_ == 0) {
            inline_wrap(n, "`");
        } else if (t == "ul" || t == "ol") {
            w_.block(lists_.empty() ? 2 : 1);
            int start = 1;
            if (const std::string *s = n.attribute("start")) start = std::atoi(s->c_str());
            lists_.push_back({t == "ol", start});
            children(n);
            lists_.pop_back();
            w_.block(lists_.empty() ? 2 : 1);
        } else if (t == "li") {
            w_.block(1);
            std::string indent(2 * std::max<size_t>(lists_.size(), 1), ' ');
            std::string mark = "* ";
            if (!lists_.empty() && lists_.back().ordered) mark = std::to_string(lists_.back().next++) + ". ";
            w_.markup(indent + mark, true);
            children(n);
            w_.block(1);
        } else if (t == "blockquote") {
            w_.block(2);
            w_.push_prefix("> ");
            children(n);
            w_.pop_prefix();
            w_.block(2);
        } else if (t == "pre") {
            w_.block(2);
            w_.push_prefix("    ");
            ++pre_;
            children(n);
            --pre_;
            w_.pop_prefix();
            w_.block(2);
        } else if (t == "table") {
            w_.block(2);
            children(n);
            w_.block(2);
        } else if (t == "tr") {
            w_.block(1);
            first_cell_ = true;
            header_cells_ = 0;
            children(n);
            if (header_cells_ > 0) {
                w_.block(1);
                std::string sep;
                for (int k = 0; k < header_cells_; ++k) sep += k == 0 ? "---" : "|---";
                w_.markup(sep, true);
            }
            w_.block(1);
        } else if (t == "td" || t == "th") {
            if (!first_cell_) w_.markup(" | ", true);
            first_cell_ = false;
            if (t == "th") ++header_cells_;
            children(n);
        } else {
            children(n);
        }
    }

    void inline_wrap(const DomNode &n, const std::string &mark) {
        w_.markup(mark, true);
        children(n);
        w_.markup(mark, false);
    }

    Writer w_;
    std::vector<ListState> lists_;
    int pre_ = 0;
    bool in_link_ = false;
    bool first_cell_ = true;
    int header_cells_ = 0;
};

const nlohmann::json &at_or_empty(const nlohmann::json &j, const char *key) {
    static const nlohmann::json empty = nlohmann::json::array();
    if (j.is_object() && j.contains(key)) return j[key];
    return empty;
}

}  // namespace

DomNode dom_tree_from_snapshot(const nlohmann::json &snapshot) {
    const auto &strings = at_or_empty(snapshot, "strings");
    const auto &documents = at_or_empty(snapshot, "documents");
    auto str = [&](const nlohmann::json &idx) -> std::string {
        if (!idx.is_number_integer()) return "";
        auto i = idx.get<int64_t>();
        if (i < 0 || static_cast<size_t>(i) >= strings.size() || !strings[i].is_string()) return "";
        return strings[i].get<std::string>();
    };
    // Builds document `d`, with `depth` bounding iframe nesting.
    std::function<DomNode(size_t, int)> build = [&](size_t d, int depth) -> DomNode {
        DomNode root;
        if (d >= documents.size() || depth > 16) return root;
        const auto &nodes = at_or_empty(documents[d], "nodes");
        const auto &parent = at_or_empty(nodes, "parentIndex");
        const auto &type = at_or_empty(nodes, "nodeType");
        const auto &name = at_or_empty(nodes, "nodeName");
        const auto &value = at_or_empty(nodes, "nodeValue");
        const auto &attrs = at_or_empty(nodes, "attributes");
        const auto &content_doc = at_or_empty(nodes, "contentDocumentIndex");
        std::map<int64_t, int64_t> frame_doc;
        const auto &cdi = at_or_empty(content_doc, "index");
        const auto &cdv = at_or_empty(content_doc, "value");
        for (size_t k = 0; k < cdi.size() && k < cdv.size(); ++k) frame_doc[cdi[k].get<int64_t>()] = cdv[k].get<int64_t>();

        size_t n = parent.size();
        std::vector<DomNode> built(n);
        std::vector<std::vector<size_t>> kids(n);
        for (size_t i = 0; i < n; ++i) {
            DomNode &node = built[i];
            int t = i < type.size() ? type[i].get<int>() : 0;
            if (t == 1) {
                node.kind = DomNode::Kind::Element;
                node.tag = lower(i < name.size() ? str(name[i]) : "");
                if (i < attrs.size() && attrs[i].is_array())
                    for (size_t k = 0; k + 1 < attrs[i].size(); k += 2)
                        node.attributes.emplace_back(str(attrs[i][k]), str(attrs[i][k + 1]));
            } else if (t == 3 || t == 4) {
                node.kind = DomNode::Kind::Text;
                node.text = i < value.size() ? str(value[i]) : "";
            }
            auto p = parent[i].get<int64_t>();
            if (p >= 0 && static_cast<size_t>(p) < i) kids[static_cast<size_t>(p)].push_back(i);
        }
        // Assemble bottom-up: children always come after their parent in snapshot order.
        for (size_t i = n; i-- > 0;) {
            for (size_t c : kids[i]) built[i].children.push_back(std::move(built[c]));
            auto f = frame_doc.find(static_cast<int64_t>(i));
            if (f != frame_doc.end() && f->second >= 0)
                built[i].children.push_back(build(static_cast<size_t>(f->second), depth + 1));
        }
        if (n > 0) root = std::move(built[0]);
        return root;
    };
    return build(0, 0);
}

std::string dom_to_markdown(const DomNode &root) { return Renderer().run(root); }

}  // namespace actionhost::browser
