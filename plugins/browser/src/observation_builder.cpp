#include "observation_builder.hpp"

#include "axtree.hpp"
#include <actionhost/common/json_write.hpp>

namespace actionhost::browser {
namespace {

using ordered = nlohmann::ordered_json;

std::string dump(const ordered &j) { return actionhost::common::dump_ordered_json(j); }

ordered to_ordered(const nlohmann::json &j) { return ordered::parse(actionhost::common::dump_json(j)); }

std::string bid_text(const nlohmann::json &bid) {
    if (bid.is_null()) return "None";
    if (bid.is_string()) return bid.get<std::string>();
    return actionhost::common::dump_json(bid);
}

}  // namespace

std::string agent_obs_text(const BrowseObservation &obs) {
    std::string text;
    if (obs.trigger_by_action == "browse_interactive") {
        text = "[Current URL: " + obs.url + "]\n";
        text += "[Focused element bid: " + bid_text(obs.focused_element_bid) + "]\n";
        if (obs.screenshot_path && !obs.screenshot_path->empty()) text += "[Screenshot saved to: " + *obs.screenshot_path + "]\n";
        text += "\n";
        if (obs.error) {
            text += "================ BEGIN error message ===============\n"
                    "The following error occurred when executing the last action:\n" +
                    obs.last_browser_action_error + "\n================ END error message ===============\n";
        } else {
            text += "[Action executed successfully.]\n";
        }
        try {
            FlattenOptions fo;
            fo.filter_visible_only = obs.filter_visible_only;
            std::string tree = flatten_axtree_to_str(obs.axtree_object, obs.extra_element_properties, fo);
            text += obs.filter_visible_only
                        ? "Accessibility tree of the VISIBLE portion of the webpage (accessibility tree of complete webpage is too large and you may need to scroll to view remaining portion of the webpage):\n"
                        : "Accessibility tree of the COMPLETE webpage:\n";
            text += "Note: [bid] is the unique alpha-numeric identifier at the beginning of lines for each element in the AXTree. Always use bid to refer to elements in your actions.\n"
                    "============== BEGIN accessibility tree ==============\n" +
                    tree + "\n============== END accessibility tree ==============\n";
        } catch (const std::exception &e) {
            text += "\n[Error encountered when processing the accessibility tree: " + std::string(e.what()) + "]";
        }
        return text;
    }
    text = "[Current URL: " + obs.url + "]\n";
    if (obs.error) {
        text += "================ BEGIN error message ===============\n"
                "The following error occurred when trying to visit the URL:\n" +
                obs.last_browser_action_error + "\n================ END error message ===============\n";
    }
    text += "============== BEGIN webpage content ==============\n";
    text += obs.text_content;
    text += "\n============== END webpage content ==============\n";
    return text;
}

std::string browse_observation_json(const BrowseObservation &obs, bool return_axtree) {
    ordered extras;
    extras["url"] = obs.url;
    extras["trigger_by_action"] = obs.trigger_by_action;
    extras["screenshot"] = obs.screenshot;
    extras["screenshot_path"] = obs.screenshot_path ? ordered(*obs.screenshot_path) : ordered(nullptr);
    extras["set_of_marks"] = obs.set_of_marks;
    extras["error"] = obs.error;
    extras["goal_image_urls"] = ordered::array();
    extras["open_pages_urls"] = obs.open_pages_urls;
    extras["active_page_index"] = obs.active_page_index;
    extras["dom_object"] = return_axtree ? to_ordered(obs.dom_object) : ordered::object();
    extras["axtree_object"] = return_axtree ? to_ordered(obs.axtree_object) : ordered::object();
    extras["extra_element_properties"] = return_axtree ? to_ordered(obs.extra_element_properties) : ordered::object();
    extras["last_browser_action"] = obs.last_browser_action;
    extras["last_browser_action_error"] = obs.last_browser_action_error;
    extras["focused_element_bid"] = to_ordered(obs.focused_element_bid);
    extras["filter_visible_only"] = obs.filter_visible_only;
    ordered out;
    out["message"] = "Visited " + obs.url;
    out["observation"] = "browse";
    out["content"] = obs.raw_content ? *obs.raw_content : agent_obs_text(obs);
    out["extras"] = std::move(extras);
    return dump(out);
}

std::string download_observation_json(const std::string &browser_actions, const std::string &file_path) {
    ordered out;
    out["message"] = "Downloaded the file at location: " + file_path;
    out["observation"] = "download";
    out["content"] = "Execution of the previous action " + browser_actions +
                     " resulted in a file download. The downloaded file is saved at location: " + file_path;
    out["extras"] = {{"file_path", file_path}};
    return dump(out);
}

}  // namespace actionhost::browser
