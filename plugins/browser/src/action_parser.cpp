#include "action_parser.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <actionhost/common/utf8.hpp>

namespace actionhost::browser {
namespace {

using common::append_utf8;

enum class Tok { Name, Number, String, Op, Newline, End };

struct Token {
    Tok kind;
    std::string text;  // identifier, operator, number text, or the decoded string value
    int line;
    int column;
};

struct SyntaxError : std::runtime_error {
    int line, column;
    SyntaxError(const std::string &msg, int l, int c) : std::runtime_error(msg), line(l), column(c) {}
};

// Nesting is bounded: agents write flat calls, and recursion depth must not be attacker-controlled.
constexpr int kMaxNesting = 64;


bool is_ident_start(unsigned char c) { return c == '_' || std::isalpha(c) || c >= 0x80; }
bool is_ident_char(unsigned char c) { return is_ident_start(c) || std::isdigit(c); }

class Tokenizer {
  public:
    explicit Tokenizer(std::string_view src) : src_(src) {}

    std::vector<Token> run() {
        std::vector<Token> out;
        while (true) {
            skip_blanks();
            if (at_end()) break;
            char c = src_[pos_];
            int line = line_, col = col_;
            if (c == '\n') {
                advance();
                if (depth_ == 0) out.push_back({Tok::Newline, "\n", line, col});
                continue;
            }
            if (is_ident_start(static_cast<unsigned char>(c))) {
                size_t start = pos_;
                while (!at_end() && is_ident_char(static_cast<unsigned char>(src_[pos_]))) advance();
                std::string word(src_.substr(start, pos_ - start));
                // String prefixes (r, b, f, u...) are not part of the subset: say so clearly.
                if (!at_end() && (src_[pos_] == '\'' || src_[pos_] == '"') && word.size() <= 2)
                    throw SyntaxError("string prefix '" + word + "' is not supported", line, col);
                out.push_back({Tok::Name, std::move(word), line, col});
                continue;
            }
            if (std::isdigit(static_cast<unsigned char>(c)) ||
                (c == '.' && pos_ + 1 < src_.size() && std::isdigit(static_cast<unsigned char>(src_[pos_ + 1])))) {
                out.push_back({Tok::Number, number(), line, col});
                continue;
            }
            if (c == '\'' || c == '"') {
                out.push_back({Tok::String, string_literal(), line, col});
                continue;
            }
            if (std::string_view("()[]{},:=;+-.").find(c) != std::string_view::npos) {
                if (c == '(' || c == '[' || c == '{') ++depth_;
                if ((c == ')' || c == ']' || c == '}') && depth_ > 0) --depth_;
                advance();
                out.push_back({Tok::Op, std::string(1, c), line, col});
                continue;
            }
            throw SyntaxError(std::string("invalid character '") + c + "'", line, col);
        }
        out.push_back({Tok::End, "", line_, col_});
        return out;
    }

  private:
    bool at_end() const { return pos_ >= src_.size(); }
    void advance() {
        if (src_[pos_] == '\n') {
            ++line_;
            col_ = 1;
        } else {
            ++col_;
        }
        ++pos_;
    }

    void skip_blanks() {
        while (!at_end()) {
            char c = src_[pos_];
            if (c == ' ' || c == '\t' || c == '\r' || c == '\f') {
                advance();
            } else if (c == '#') {
                while (!at_end() && src_[pos_] != '\n') advance();
            } else if (c == '\\' && pos_ + 1 < src_.size() && src_[pos_ + 1] == '\n') {
                advance();
                advance();  // explicit line joining
            } else if (c == '\n' && depth_ > 0) {
                advance();  // implicit line joining inside brackets
            } else {
                break;
            }
        }
    }

    std::string number() {
        size_t start = pos_;
        while (!at_end() && (std::isalnum(static_cast<unsigned char>(src_[pos_])) || src_[pos_] == '.' ||
                             src_[pos_] == '_' ||
                             ((src_[pos_] == '+' || src_[pos_] == '-') &&
                              (src_[pos_ - 1] == 'e' || src_[pos_ - 1] == 'E'))))
            advance();
        return std::string(src_.substr(start, pos_ - start));
    }

    uint32_t hex_escape(int digits, int line, int col) {
        if (pos_ + digits > src_.size()) throw SyntaxError("truncated \\x/\\u escape in string", line, col);
        uint32_t v = 0;
        for (int k = 0; k < digits; ++k) {
            char h = src_[pos_];
            if (!std::isxdigit(static_cast<unsigned char>(h))) throw SyntaxError("invalid escape in string", line, col);
            v = v * 16 + static_cast<uint32_t>(std::isdigit(static_cast<unsigned char>(h)) ? h - '0' : (std::tolower(h) - 'a' + 10));
            advance();
        }
        return v;
    }

    std::string string_literal() {
        int line = line_, col = col_;
        char q = src_[pos_];
        bool triple = src_.substr(pos_, 3) == std::string(3, q);
        for (int k = 0; k < (triple ? 3 : 1); ++k) advance();
        std::string out;
        while (true) {
            if (at_end()) throw SyntaxError("unterminated string literal", line, col);
            char c = src_[pos_];
            if (c == q) {
                if (!triple) {
                    advance();
                    return out;
                }
                if (src_.substr(pos_, 3) == std::string(3, q)) {
                    advance();
                    advance();
                    advance();
                    return out;
                }
                out += c;
                advance();
                continue;
            }
            if (c == '\n' && !triple) throw SyntaxError("unterminated string literal", line, col);
            if (c != '\\') {
                out += c;
                advance();
                continue;
            }
            advance();  // the backslash
            if (at_end()) throw SyntaxError("unterminated string literal", line, col);
            char e = src_[pos_];
            advance();
            switch (e) {
                case '\n': break;  // line continuation inside the literal
                case '\\': out += '\\'; break;
                case '\'': out += '\''; break;
                case '"': out += '"'; break;
                case 'a': out += '\a'; break;
                case 'b': out += '\b'; break;
                case 'f': out += '\f'; break;
                case 'n': out += '\n'; break;
                case 'r': out += '\r'; break;
                case 't': out += '\t'; break;
                case 'v': out += '\v'; break;
                case 'x': append_utf8(out, hex_escape(2, line, col)); break;
                case 'u': append_utf8(out, hex_escape(4, line, col)); break;
                case 'U': {
                    uint32_t cp = hex_escape(8, line, col);
                    if (cp > 0x10FFFF) throw SyntaxError("invalid \\U escape in string", line, col);
                    append_utf8(out, cp);
                    break;
                }
                default:
                    if (e >= '0' && e <= '7') {
                        uint32_t v = static_cast<uint32_t>(e - '0');
                        for (int k = 0; k < 2 && !at_end() && src_[pos_] >= '0' && src_[pos_] <= '7'; ++k) {
                            v = v * 8 + static_cast<uint32_t>(src_[pos_] - '0');
                            advance();
                        }
                        append_utf8(out, v);
                    } else {
                        out += '\\';  // Python keeps unknown escapes verbatim
                        out += e;
                    }
            }
        }
    }

    std::string_view src_;
    size_t pos_ = 0;
    int line_ = 1, col_ = 1;
    int depth_ = 0;
};

class Parser {
  public:
    explicit Parser(std::vector<Token> toks) : t_(std::move(toks)) {}

    std::vector<ParsedCall> program() {
        std::vector<ParsedCall> calls;
        while (true) {
            while (is_sep()) ++i_;
            if (peek().kind == Tok::End) break;
            calls.push_back(call());
            if (!is_sep() && peek().kind != Tok::End)
                fail("expected a newline or ';' after the call, got " + describe(peek()));
        }
        return calls;
    }

  private:
    const Token &peek() const { return t_[i_]; }
    bool is_sep() const { return peek().kind == Tok::Newline || is_op(";"); }
    bool is_op(const char *op) const { return peek().kind == Tok::Op && peek().text == op; }
    [[noreturn]] void fail(const std::string &msg) const { throw SyntaxError(msg, peek().line, peek().column); }
    static std::string describe(const Token &t) {
        switch (t.kind) {
            case Tok::Name: return "name '" + t.text + "'";
            case Tok::Number: return "number " + t.text;
            case Tok::String: return "a string";
            case Tok::Op: return "'" + t.text + "'";
            case Tok::Newline: return "end of line";
            case Tok::End: return "end of input";
        }
        return "?";
    }
    void expect_op(const char *op) {
        if (!is_op(op)) fail(std::string("expected '") + op + "', got " + describe(peek()));
        ++i_;
    }

    ParsedCall call() {
        const Token &name = peek();
        if (name.kind != Tok::Name) fail("expected an action call such as click('12'), got " + describe(name));
        ParsedCall c;
        c.name = name.text;
        c.line = name.line;
        c.column = name.column;
        ++i_;
        if (is_op(".")) fail("attribute calls such as '" + c.name + ".…(…)' are not actions; call the action by name");
        expect_op("(");
        bool seen_keyword = false;
        while (!is_op(")")) {
            if (peek().kind == Tok::Name && t_[i_ + 1].kind == Tok::Op && t_[i_ + 1].text == "=") {
                std::string key = peek().text;
                ++i_;
                ++i_;
                for (const auto &kw : c.kwargs)
                    if (kw.first == key) fail("keyword argument repeated: " + key);
                c.kwargs.emplace_back(key, literal(0));
                seen_keyword = true;
            } else {
                if (seen_keyword) fail("positional argument follows keyword argument");
                c.args.push_back(literal(0));
            }
            if (is_op(",")) {
                ++i_;
                continue;
            }
            if (!is_op(")")) fail("expected ',' or ')' in the argument list, got " + describe(peek()));
        }
        ++i_;  // ')'
        return c;
    }

    // A literal value; `depth` bounds nesting.
    nlohmann::json literal(int depth) {
        if (depth > kMaxNesting) fail("literal nested too deeply");
        const Token &t = peek();
        if (t.kind == Tok::String) {
            std::string s;
            while (peek().kind == Tok::String) s += t_[i_++].text;  // adjacent literals concatenate
            return s;
        }
        if (t.kind == Tok::Op && (t.text == "-" || t.text == "+")) {
            bool negate = t.text == "-";
            ++i_;
            if (peek().kind != Tok::Number) fail("expected a number after '" + t.text + "'");
            nlohmann::json n = number(t_[i_++]);
            if (!negate) return n;
            if (n.is_number_integer()) return -n.get<int64_t>();
            return -n.get<double>();
        }
        if (t.kind == Tok::Number) return number(t_[i_++]);
        if (t.kind == Tok::Name) {
            if (t.text == "True") return ++i_, true;
            if (t.text == "False") return ++i_, false;
            if (t.text == "None") return ++i_, nullptr;
            fail("arguments must be literal values (strings, numbers, True/False/None, lists), got name '" +
                 t.text + "'");
        }
        if (t.kind == Tok::Op && (t.text == "[" || t.text == "(")) {
            std::string close = t.text == "[" ? "]" : ")";
            bool tuple = t.text == "(";
            ++i_;
            nlohmann::json arr = nlohmann::json::array();
            bool had_comma = false;
            while (!is_op(close.c_str())) {
                arr.push_back(literal(depth + 1));
                if (is_op(",")) {
                    ++i_;
                    had_comma = true;
                    continue;
                }
                if (!is_op(close.c_str())) fail("expected ',' or '" + close + "', got " + describe(peek()));
            }
            ++i_;
            // (x) is just x in Python; (x,) and () are tuples.
            if (tuple && arr.size() == 1 && !had_comma) return arr[0];
            return arr;
        }
        if (t.kind == Tok::Op && t.text == "{") {
            ++i_;
            nlohmann::json obj = nlohmann::json::object();
            while (!is_op("}")) {
                nlohmann::json key = literal(depth + 1);
                if (!key.is_string()) fail("only string keys are supported in dict literals");
                expect_op(":");
                obj[key.get<std::string>()] = literal(depth + 1);
                if (is_op(",")) {
                    ++i_;
                    continue;
                }
                if (!is_op("}")) fail("expected ',' or '}', got " + describe(peek()));
            }
            ++i_;
            return obj;
        }
        fail("expected a literal value, got " + describe(t));
    }

    nlohmann::json number(const Token &t) const {
        std::string text;
        for (char c : t.text)
            if (c != '_') text += c;
        bool is_float = text.find_first_of(".eE") != std::string::npos;
        if (!is_float) {
            if (text.size() > 1 && text[0] == '0' && std::isalpha(static_cast<unsigned char>(text[1]))) {
                int base = (text[1] == 'x' || text[1] == 'X') ? 16 : (text[1] == 'o' || text[1] == 'O') ? 8 : (text[1] == 'b' || text[1] == 'B') ? 2 : 0;
                int64_t v = 0;
                auto r = std::from_chars(text.data() + 2, text.data() + text.size(), v, base == 0 ? 10 : base);
                if (base == 0 || r.ec != std::errc() || r.ptr != text.data() + text.size())
                    throw SyntaxError("invalid number literal '" + t.text + "'", t.line, t.column);
                return v;
            }
            int64_t v = 0;
            auto r = std::from_chars(text.data(), text.data() + text.size(), v);
            if (r.ec == std::errc() && r.ptr == text.data() + text.size()) return v;
            if (r.ec != std::errc::result_out_of_range)
                throw SyntaxError("invalid number literal '" + t.text + "'", t.line, t.column);
        }
        char *end = nullptr;
        errno = 0;
        double d = std::strtod(text.c_str(), &end);
        if (end != text.c_str() + text.size())
            throw SyntaxError("invalid number literal '" + t.text + "'", t.line, t.column);
        return d;
    }

    std::vector<Token> t_;
    size_t i_ = 0;
};

// BrowserGym reports "Received an empty action." when no call is found at all; keep that answer for
// text that contains no call-shaped `name(` sequence (prose, comments), and a precise syntax error
// for text that tries to call something.
bool looks_like_it_calls(std::string_view code) {
    for (size_t i = 0; i < code.size(); ++i) {
        if (code[i] != '(') continue;
        size_t j = i;
        while (j > 0 && (code[j - 1] == ' ' || code[j - 1] == '\t')) --j;
        if (j > 0 && is_ident_char(static_cast<unsigned char>(code[j - 1]))) return true;
    }
    return false;
}

std::string strip_comments_naive(std::string_view code) {
    std::string out;
    bool in_comment = false;
    for (char c : code) {
        if (c == '#') in_comment = true;
        if (c == '\n') in_comment = false;
        if (!in_comment) out += c;
    }
    return out;
}

}  // namespace

common::Result<std::vector<ParsedCall>> parse_actions(std::string_view code) {
    try {
        Parser p(Tokenizer(code).run());
        std::vector<ParsedCall> calls = p.program();
        if (calls.empty()) return common::fail("ValueError: Received an empty action.");
        return calls;
    } catch (const SyntaxError &e) {
        if (!looks_like_it_calls(strip_comments_naive(code))) return common::fail("ValueError: Received an empty action.");
        return common::fail("SyntaxError: " + std::string(e.what()) + " (line " + std::to_string(e.line) + ", column " +
                            std::to_string(e.column) + ")");
    }
}

}  // namespace actionhost::browser
