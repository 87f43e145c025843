// A recursive-descent reader of the bash grammar, just deep enough to find where each top-level complete
// command starts and ends. It never evaluates anything; it only has to agree with bash on structure:
// quoting, substitutions, heredoc bodies, compound commands and the operators that continue a command
// onto the next line.
#include "command_splitter.hpp"

#include <cstring>
#include <initializer_list>
#include <optional>
#include <utility>

namespace actionhost::bash {

namespace {

struct ParseError {};

enum class Tok { Word, Newline, Op, End };

struct Token {
    Tok kind = Tok::End;
    std::string_view text;
    size_t begin = 0;
    size_t end = 0;
};

// Nesting deeper than this ($( $( $( ... ) ) ), nested ifs) is treated as unparsable rather than recursed.
constexpr int kMaxDepth = 128;

bool is_blank(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

std::string_view rstrip_view(std::string_view s) {
    size_t e = s.size();
    while (e > 0 && is_blank(s[e - 1])) --e;
    return s.substr(0, e);
}

bool is_redirect_op(std::string_view op) {
    for (std::string_view r : {"<", ">", ">>", "<<", "<<-", "<<<", "<&", ">&", "<>", ">|", "&>", "&>>"})
        if (op == r) return true;
    return false;
}

// `NAME=`, `NAME+=` or `NAME[...]=`: a following `(` opens an array assignment, not a syntax error.
bool is_assignment_prefix(std::string_view w) {
    if (w.empty() || w.back() != '=') return false;
    w.remove_suffix(1);
    if (!w.empty() && w.back() == '+') w.remove_suffix(1);
    if (!w.empty() && w.back() == ']') {
        const size_t open = w.find('[');
        if (open == std::string_view::npos) return false;
        w = w.substr(0, open);
    }
    if (w.empty() || std::isdigit(static_cast<unsigned char>(w[0]))) return false;
    for (char c : w)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
    return true;
}

class Parser {
  public:
    explicit Parser(std::string_view s) : s_(s) {}

    // Spans [begin, end) of each top-level complete command.
    std::vector<std::pair<size_t, size_t>> parse_program() {
        std::vector<std::pair<size_t, size_t>> spans;
        for (;;) {
            skip_newlines();
            if (peek().kind == Tok::End) break;
            const size_t start = peek().begin;
            parse_complete_command();
            const Token &t = peek();  // lexing the newline reads any pending heredoc bodies
            if (t.kind != Tok::Newline && t.kind != Tok::End) throw ParseError{};
            size_t end = last_end_;
            if (heredoc_end_ > end) end = heredoc_end_;
            spans.emplace_back(start, end);
        }
        return spans;
    }

  private:
    struct PendingHeredoc {
        std::string delimiter;
        bool strip_tabs;
    };

    // ---- lexer -------------------------------------------------------------------------------------

    const Token &peek() {
        if (!lookahead_) lookahead_ = lex();
        return *lookahead_;
    }

    Token take() {
        Token t = peek();
        lookahead_.reset();
        if (t.kind == Tok::Word || t.kind == Tok::Op) last_end_ = t.end;
        return t;
    }

    bool peek_is(Tok kind, std::string_view text) {
        const Token &t = peek();
        return t.kind == kind && t.text == text;
    }
    bool peek_word(std::string_view text) { return peek_is(Tok::Word, text); }
    bool peek_op(std::string_view text) { return peek_is(Tok::Op, text); }

    void expect_word(std::string_view text) {
        if (!peek_word(text)) throw ParseError{};
        take();
    }
    void expect_op(std::string_view text) {
        if (!peek_op(text)) throw ParseError{};
        take();
    }
    Token expect_any_word() {
        if (peek().kind != Tok::Word) throw ParseError{};
        return take();
    }

    void skip_newlines() {
        while (peek().kind == Tok::Newline) take();
    }

    char at(size_t i) const { return i < s_.size() ? s_[i] : '\0'; }

    Token make(Tok kind, size_t b, size_t e) { return Token{kind, s_.substr(b, e - b), b, e}; }

    Token lex() {
        // Blanks, `\`-newline continuations and comments separate tokens.
        for (;;) {
            const char c = at(pos_);
            if (pos_ >= s_.size()) break;
            if (c == ' ' || c == '\t' || c == '\r') {
                ++pos_;
            } else if (c == '\\' && at(pos_ + 1) == '\n') {
                pos_ += 2;
            } else if (c == '#') {
                while (pos_ < s_.size() && s_[pos_] != '\n') ++pos_;
            } else {
                break;
            }
        }
        const size_t b = pos_;
        if (b >= s_.size()) return make(Tok::End, b, b);
        const char c = s_[b];
        if (c == '\n') {
            ++pos_;
            Token t = make(Tok::Newline, b, b + 1);
            if (!pending_.empty()) read_heredoc_bodies();
            return t;
        }
        auto op = [&](size_t len) {
            pos_ = b + len;
            return make(Tok::Op, b, b + len);
        };
        const char n1 = at(b + 1), n2 = at(b + 2);
        switch (c) {
            case ';':
                if (n1 == ';' && n2 == '&') return op(3);
                if (n1 == ';' || n1 == '&') return op(2);
                return op(1);
            case '&':
                if (n1 == '>' && n2 == '>') return op(3);
                if (n1 == '&' || n1 == '>') return op(2);
                return op(1);
            case '|':
                if (n1 == '|' || n1 == '&') return op(2);
                return op(1);
            case '(':
            case ')':
                return op(1);
            case '<':
                if (n1 == '(') break;  // process substitution: a word
                if (n1 == '<' && (n2 == '<' || n2 == '-')) return op(3);
                if (n1 == '<' || n1 == '&' || n1 == '>') return op(2);
                return op(1);
            case '>':
                if (n1 == '(') break;
                if (n1 == '>' || n1 == '&' || n1 == '|') return op(2);
                return op(1);
            default:
                break;
        }
        scan_word();
        return make(Tok::Word, b, pos_);
    }

    void scan_word() {
        const size_t start = pos_;
        if ((at(pos_) == '<' || at(pos_) == '>') && at(pos_ + 1) == '(') {
            pos_ += 2;
            parse_substitution_body();
        }
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '(') {
                if (pos_ > start && std::strchr("?*+@!", s_[pos_ - 1]) != nullptr) {
                    scan_balanced_parens();  // extglob pattern
                    continue;
                }
                if (is_assignment_prefix(s_.substr(start, pos_ - start))) {
                    scan_balanced_parens();  // array assignment
                    continue;
                }
                break;
            }
            if (c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ';' || c == '&' || c == '|' || c == ')' ||
                c == '<' || c == '>')
                break;
            scan_word_char();
        }
    }

    // Consumes one character or one quoted/substituted unit of a word.
    void scan_word_char() {
        const char c = s_[pos_];
        if (c == '\\') {
            pos_ = std::min(pos_ + 2, s_.size());
        } else if (c == '\'') {
            scan_single_quotes();
        } else if (c == '"') {
            scan_double_quotes();
        } else if (c == '`') {
            scan_backticks();
        } else if (c == '$') {
            scan_dollar();
        } else {
            ++pos_;
        }
    }

    void scan_single_quotes() {
        const size_t close = s_.find('\'', pos_ + 1);
        if (close == std::string_view::npos) throw ParseError{};
        pos_ = close + 1;
    }

    void scan_double_quotes() {
        ++pos_;
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '"') {
                ++pos_;
                return;
            }
            if (c == '\\') {
                pos_ += 2;
            } else if (c == '$') {
                scan_dollar();
            } else if (c == '`') {
                scan_backticks();
            } else {
                ++pos_;
            }
        }
        throw ParseError{};
    }

    void scan_backticks() {
        ++pos_;
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '`') {
                ++pos_;
                return;
            }
            pos_ += (c == '\\') ? 2 : 1;
        }
        throw ParseError{};
    }

    void scan_dollar() {
        const char n = at(pos_ + 1);
        if (n == '\'') {  // $'ANSI-C'
            pos_ += 2;
            while (pos_ < s_.size()) {
                const char c = s_[pos_];
                if (c == '\'') {
                    ++pos_;
                    return;
                }
                pos_ += (c == '\\') ? 2 : 1;
            }
            throw ParseError{};
        }
        if (n == '"') {
            ++pos_;
            scan_double_quotes();
        } else if (n == '(' && at(pos_ + 2) == '(') {
            pos_ += 3;
            scan_arithmetic_body();
        } else if (n == '(') {
            pos_ += 2;
            parse_substitution_body();
        } else if (n == '{') {
            pos_ += 2;
            scan_parameter_body();
        } else {
            ++pos_;
        }
    }

    // After `((` or `$((`: up to the matching `))`.
    void scan_arithmetic_body() {
        int depth = 0;
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '(') {
                ++depth;
                ++pos_;
            } else if (c == ')') {
                if (depth == 0) {
                    if (at(pos_ + 1) != ')') throw ParseError{};
                    pos_ += 2;
                    return;
                }
                --depth;
                ++pos_;
            } else {
                scan_word_char();
            }
        }
        throw ParseError{};
    }

    // After `${`: up to the matching `}`.
    void scan_parameter_body() {
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '}') {
                ++pos_;
                return;
            }
            scan_word_char();
        }
        throw ParseError{};
    }

    // At `(`: up to the matching `)`, across quotes and newlines (arrays, extglob patterns).
    void scan_balanced_parens() {
        int depth = 0;
        while (pos_ < s_.size()) {
            const char c = s_[pos_];
            if (c == '(') {
                ++depth;
                ++pos_;
            } else if (c == ')') {
                ++pos_;
                if (--depth == 0) return;
            } else {
                scan_word_char();
            }
        }
        throw ParseError{};
    }

    // After `$(`, `<(` or `>(`: a whole command list, then `)`.
    void parse_substitution_body() {
        Depth guard(*this);
        auto saved = std::move(lookahead_);
        lookahead_.reset();
        parse_list({")"});
        if (!peek_op(")")) throw ParseError{};
        // Consume the `)` without disturbing the outer command's extent bookkeeping.
        pos_ = peek().end;
        lookahead_ = std::move(saved);
    }

    void read_heredoc_bodies() {
        for (const PendingHeredoc &h : pending_) {
            for (;;) {
                if (pos_ >= s_.size()) {
                    heredoc_end_ = s_.size();  // unterminated: bash reads to end of input
                    break;
                }
                const size_t eol = s_.find('\n', pos_);
                const size_t line_end = eol == std::string_view::npos ? s_.size() : eol;
                std::string_view line = s_.substr(pos_, line_end - pos_);
                if (h.strip_tabs)
                    while (!line.empty() && line.front() == '\t') line.remove_prefix(1);
                pos_ = eol == std::string_view::npos ? s_.size() : eol + 1;
                if (line == h.delimiter) {
                    heredoc_end_ = line_end;
                    break;
                }
            }
        }
        pending_.clear();
    }

    void register_heredoc(std::string_view word, bool strip_tabs) {
        std::string delim;
        for (size_t i = 0; i < word.size(); ++i) {
            const char c = word[i];
            if (c == '\\' && i + 1 < word.size()) {
                delim += word[++i];
            } else if (c != '\'' && c != '"') {
                delim += c;
            }
        }
        pending_.push_back({std::move(delim), strip_tabs});
    }

    // ---- grammar -----------------------------------------------------------------------------------

    struct Depth {
        explicit Depth(Parser &p) : p_(p) {
            if (++p_.depth_ > kMaxDepth) throw ParseError{};
        }
        ~Depth() { --p_.depth_; }
        Parser &p_;
    };

    bool is_terminator(std::initializer_list<std::string_view> terms) {
        const Token &t = peek();
        if (t.kind != Tok::Word && t.kind != Tok::Op) return false;
        for (std::string_view term : terms)
            if (t.text == term) return true;
        return false;
    }

    // complete_command: and_or ((';'|'&') and_or)* [';'|'&']
    void parse_complete_command() {
        parse_and_or();
        while (peek_op(";") || peek_op("&")) {
            take();
            if (peek().kind == Tok::Newline || peek().kind == Tok::End) return;
            parse_and_or();
        }
    }

    // compound_list up to (not including) one of `terms`, which must follow.
    void parse_list(std::initializer_list<std::string_view> terms) {
        Depth guard(*this);
        for (;;) {
            skip_newlines();
            if (peek().kind == Tok::End) throw ParseError{};
            if (is_terminator(terms)) return;
            parse_and_or();
            const Token &t = peek();
            if (t.kind == Tok::Newline || (t.kind == Tok::Op && (t.text == ";" || t.text == "&"))) {
                take();
                continue;
            }
            if (is_terminator(terms)) return;
            throw ParseError{};
        }
    }

    void parse_and_or() {
        parse_pipeline();
        while (peek_op("&&") || peek_op("||")) {
            take();
            skip_newlines();
            parse_pipeline();
        }
    }

    void parse_pipeline() {
        if (peek_word("time")) {
            take();
            if (peek_word("-p")) take();
            const Token &t = peek();
            if (t.kind == Tok::Newline || t.kind == Tok::End || (t.kind == Tok::Op && !is_redirect_op(t.text) &&
                                                                 t.text != "("))
                return;
        }
        while (peek_word("!")) take();
        parse_command();
        while (peek_op("|") || peek_op("|&")) {
            take();
            skip_newlines();
            parse_command();
        }
    }

    void parse_redirects() {
        while (peek().kind == Tok::Op && is_redirect_op(peek().text)) {
            const Token op = take();
            const Token target = expect_any_word();
            if (op.text == "<<" || op.text == "<<-") register_heredoc(target.text, op.text == "<<-");
        }
    }

    void parse_command() {
        Depth guard(*this);
        const Token t = peek();
        if (t.kind == Tok::Op) {
            if (t.text == "(") {
                take();
                if (at(pos_) == '(' && pos_ == t.end && !lookahead_) {
                    ++pos_;
                    scan_arithmetic_body();  // (( expression ))
                    last_end_ = pos_;
                } else {
                    parse_list({")"});
                    expect_op(")");
                }
                parse_redirects();
                return;
            }
            if (is_redirect_op(t.text)) return parse_simple_command();
            throw ParseError{};
        }
        if (t.kind != Tok::Word) throw ParseError{};
        const std::string_view w = t.text;
        if (w == "{") {
            take();
            parse_list({"}"});
            expect_word("}");
        } else if (w == "if") {
            take();
            parse_list({"then"});
            expect_word("then");
            parse_list({"elif", "else", "fi"});
            while (peek_word("elif")) {
                take();
                parse_list({"then"});
                expect_word("then");
                parse_list({"elif", "else", "fi"});
            }
            if (peek_word("else")) {
                take();
                parse_list({"fi"});
            }
            expect_word("fi");
        } else if (w == "while" || w == "until") {
            take();
            parse_list({"do"});
            expect_word("do");
            parse_list({"done"});
            expect_word("done");
        } else if (w == "for" || w == "select") {
            take();
            parse_for_header();
            skip_newlines();
            if (peek_word("{")) {
                take();
                parse_list({"}"});
                expect_word("}");
            } else {
                expect_word("do");
                parse_list({"done"});
                expect_word("done");
            }
        } else if (w == "case") {
            take();
            parse_case_body();
        } else if (w == "function") {
            take();
            expect_any_word();
            if (peek_op("(")) {
                take();
                expect_op(")");
            }
            skip_newlines();
            parse_command();
            return;
        } else if (w == "[[") {
            take();
            for (;;) {
                const Token x = take();
                if (x.kind == Tok::End) throw ParseError{};
                if (x.kind == Tok::Word && x.text == "]]") break;
            }
        } else if (w == "coproc") {
            take();
            parse_command();
            return;
        } else if (w == "}" || w == "then" || w == "fi" || w == "do" || w == "done" || w == "else" ||
                   w == "elif" || w == "esac") {
            throw ParseError{};
        } else {
            return parse_simple_command();
        }
        parse_redirects();
    }

    void parse_for_header() {
        if (peek_op("(")) {  // for (( init; cond; step ))
            const Token open = take();
            if (at(pos_) != '(' || pos_ != open.end || lookahead_) throw ParseError{};
            ++pos_;
            scan_arithmetic_body();
            last_end_ = pos_;
            if (peek_op(";")) take();
            return;
        }
        expect_any_word();
        skip_newlines();
        if (peek_word("in")) {
            take();
            while (peek().kind == Tok::Word) take();
            if (peek_op(";") || peek().kind == Tok::Newline) take();
            else throw ParseError{};
        } else if (peek_op(";")) {
            take();
        }
    }

    void parse_case_body() {
        expect_any_word();
        skip_newlines();
        expect_word("in");
        for (;;) {
            skip_newlines();
            if (peek_word("esac")) {
                take();
                return;
            }
            if (peek_op("(")) take();
            expect_any_word();
            while (peek_op("|")) {
                take();
                expect_any_word();
            }
            expect_op(")");
            parse_list({";;", ";&", ";;&", "esac"});
            if (peek_op(";;") || peek_op(";&") || peek_op(";;&")) take();
        }
    }

    void parse_simple_command() {
        bool any = false;
        bool first_word = true;
        for (;;) {
            const Token &t = peek();
            if (t.kind == Tok::Word) {
                take();
                any = true;
                if (first_word && peek_op("(")) {  // name() compound-command
                    take();
                    expect_op(")");
                    skip_newlines();
                    parse_command();
                    return;
                }
                first_word = false;
                continue;
            }
            if (t.kind == Tok::Op && is_redirect_op(t.text)) {
                const Token op = take();
                const Token target = expect_any_word();
                if (op.text == "<<" || op.text == "<<-") register_heredoc(target.text, op.text == "<<-");
                any = true;
                continue;
            }
            break;
        }
        if (!any) throw ParseError{};
    }

    std::string_view s_;
    size_t pos_ = 0;
    std::optional<Token> lookahead_;
    std::vector<PendingHeredoc> pending_;
    size_t heredoc_end_ = 0;
    size_t last_end_ = 0;
    int depth_ = 0;
};

}  // namespace

std::vector<std::string> split_commands(std::string_view text) {
    if (rstrip_view(text).find_first_not_of(" \t\n\r\f\v") == std::string_view::npos) return {""};
    std::vector<std::pair<size_t, size_t>> spans;
    try {
        spans = Parser(text).parse_program();
    } catch (const ParseError &) {
        return {std::string(text)};
    }
    // As OpenHands: the text between two commands (comments, blank lines) is glued, right-stripped, to
    // the command before it; what follows the last command is glued to the last one. Text before the
    // first command (a leading comment) stays in front of the first command.
    std::vector<std::string> out;
    size_t last_end = 0;
    for (const auto &[start, end] : spans) {
        if (out.empty()) {
            size_t from = start;
            const std::string_view lead = text.substr(0, start);
            const size_t first = lead.find_first_not_of(" \t\n\r\f\v");
            if (first != std::string_view::npos) from = first;
            out.emplace_back(rstrip_view(text.substr(from, end - from)));
        } else {
            if (start > last_end) out.back() += rstrip_view(text.substr(last_end, start - last_end));
            out.emplace_back(rstrip_view(text.substr(start, end - start)));
        }
        last_end = end;
    }
    if (out.empty()) return {std::string(rstrip_view(text))};
    if (last_end < text.size()) out.back() += rstrip_view(text.substr(last_end));
    return out;
}

}  // namespace actionhost::bash
