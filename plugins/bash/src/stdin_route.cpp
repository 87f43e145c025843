#include "stdin_route.hpp"

#include <actionhost/common/http/exchange.hpp>
#include <actionhost/common/json_write.hpp>

#include <nlohmann/json.hpp>

namespace actionhost::bash {

common::Result<StdinQuery> parse_stdin_query(const std::string &query) {
    StdinQuery q;
    if (auto session = common::http::query_parameter(query, "session")) q.session = *session;
    // The host's rule for session names (docs/api.md, "Named sessions").
    if (q.session.size() > 64) return common::fail("`session` is longer than 64 characters");
    for (const char c : q.session)
        if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-'))
            return common::fail("`session` may hold only A-Z, a-z, 0-9, '_', '.' and '-'");
    if (auto eof = common::http::query_parameter(query, "eof")) {
        if (*eof == "1" || *eof == "true") q.eof = true;
        else if (*eof == "0" || *eof == "false" || eof->empty()) q.eof = false;
        else return common::fail("`eof` must be 1, 0, true or false, got: " + common::dump_json(nlohmann::json(*eof)));
    }
    return q;
}

StdinAnswer stdin_answer(const StdinQuery &query, const StdinFeed &feed) {
    const std::string name = common::dump_json(nlohmann::json(query.session));
    if (feed.no_command)
        return {409, common::dump_json(nlohmann::json{
                         {"detail", "No command of session " + name +
                                        " reads its stdin: run one with \"tty\": false and \"open_stdin\": true"}})};
    if (!feed.error.empty())
        return {500, common::dump_json(nlohmann::json{{"detail", "Cannot feed the stdin of session " + name + ": " + feed.error}})};
    return {200, common::dump_json(nlohmann::json{{"written", feed.written}, {"closed", feed.closed}})};
}

}  // namespace actionhost::bash
