// OpenHands' observations for browsing (BrowserOutputObservation, FileDownloadObservation): the `browse`
// observation with the agent text of openhands/runtime/browser/utils.py::get_agent_obs_text, and the
// `download` observation.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace actionhost::browser {

// The fields of BrowserOutputObservation, in its dataclass order.
struct BrowseObservation {
    std::string url;
    std::string trigger_by_action;  // "browse" | "browse_interactive"
    std::string screenshot;         // data URL or ""
    std::optional<std::string> screenshot_path;
    std::string set_of_marks;  // data URL or ""
    bool error = false;
    std::vector<std::string> open_pages_urls;
    int active_page_index = -1;
    nlohmann::json dom_object = nlohmann::json::object();
    nlohmann::json axtree_object = nlohmann::json::object();
    nlohmann::json extra_element_properties = nlohmann::json::object();
    std::string last_browser_action;
    std::string last_browser_action_error;
    nlohmann::json focused_element_bid = "";  // string or null
    bool filter_visible_only = false;
    std::string text_content;  // the page as Markdown (browse only)
    // The answers to GET_EVAL_GOAL / GET_EVAL_REWARDS are the bare text (OpenHands' text_content).
    std::optional<std::string> raw_content;
};

// The agent-facing content for the observation (both layouts, error block, tree section).
std::string agent_obs_text(const BrowseObservation &obs);

// The wire JSON: {"message":"Visited <url>","observation":"browse","content":...,"extras":{...}};
// object fields are emptied unless `return_axtree`.
std::string browse_observation_json(const BrowseObservation &obs, bool return_axtree);

// {"message":"Downloaded the file at location: <p>","observation":"download","content":...,"extras":{"file_path":p}}
std::string download_observation_json(const std::string &browser_actions, const std::string &file_path);

}  // namespace actionhost::browser
