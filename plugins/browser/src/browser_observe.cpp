// Building the observation: BrowserGym's order (mark → accessibility tree → unmark → DOM snapshot →
// focus → screenshots), retried when a navigation swaps the document underneath.
#include <map>
#include <set>
#include <thread>

#include "axtree.hpp"
#include "browser_env.hpp"
#include "dom_markdown.hpp"
#include "page_scripts.hpp"
#include <actionhost/common/json_write.hpp>

namespace actionhost::browser {
using namespace std::chrono_literals;

namespace {

bool retryable(const std::string &msg) {
    for (const char *s : {"Execution context was destroyed", "Cannot find context with specified id", "Frame was detached",
                          "Frame with the given frameId is not found", "Frame has been detached", "No frame with given id",
                          "Cannot read properties of undefined", "Inspected target navigated or closed",
                          "No node with given id", "Could not find node with given id"})
        if (msg.find(s) != std::string::npos) return true;
    return false;
}

struct ScriptError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

void frame_ids(const nlohmann::json &tree, std::vector<std::string> &out) {
    // BrowserGym's order: a stack, popping one frame and pushing its children.
    std::vector<const nlohmann::json *> stack{&tree};
    while (!stack.empty()) {
        const nlohmann::json *node = stack.back();
        stack.pop_back();
        if (node->contains("frame")) out.push_back((*node)["frame"].value("id", ""));
        if (node->contains("childFrames"))
            for (const auto &c : (*node)["childFrames"]) stack.push_back(&c);
    }
}

// extra_element_properties from a DOMSnapshot (BrowserGym observation.py::extract_dom_extra_properties).
nlohmann::json extra_properties(const nlohmann::json &snap) {
    nlohmann::json out = nlohmann::json::object();
    const auto &strings = snap["strings"];
    const auto &docs = snap["documents"];
    auto str = [&](const nlohmann::json &idx) -> std::string {
        if (!idx.is_number_integer()) return "";
        auto i = idx.get<int64_t>();
        return i >= 0 && static_cast<size_t>(i) < strings.size() ? strings[static_cast<size_t>(i)].get<std::string>() : "";
    };
    int bid_i = -1, vis_i = -1, som_i = -1;
    for (size_t i = 0; i < strings.size(); ++i) {
        const auto &s = strings[i].get_ref<const std::string &>();
        if (s == "bid" && bid_i < 0) bid_i = static_cast<int>(i);
        if (s == "browsergym_visibility_ratio" && vis_i < 0) vis_i = static_cast<int>(i);
        if (s == "browsergym_set_of_marks" && som_i < 0) som_i = static_cast<int>(i);
    }
    if (bid_i < 0) return out;
    // Document offsets in top-level viewport coordinates: parent offset + owner box - own scroll.
    std::map<size_t, std::pair<double, double>> offset;
    std::vector<size_t> queue{0};
    if (docs.empty()) return out;
    offset[0] = {-docs[0].value("scrollOffsetX", 0.0), -docs[0].value("scrollOffsetY", 0.0)};
    for (size_t qi = 0; qi < queue.size(); ++qi) {
        size_t d = queue[qi];
        const auto &doc = docs[d];
        const auto &nodes = doc["nodes"];
        const auto &layout = doc["layout"];
        std::map<int64_t, size_t> layout_of;
        const auto &lni = layout["nodeIndex"];
        for (size_t k = 0; k < lni.size(); ++k) layout_of[lni[k].get<int64_t>()] = k;
        if (nodes.contains("contentDocumentIndex")) {
            const auto &idx = nodes["contentDocumentIndex"]["index"];
            const auto &val = nodes["contentDocumentIndex"]["value"];
            for (size_t k = 0; k < idx.size() && k < val.size(); ++k) {
                auto child = static_cast<size_t>(val[k].get<int64_t>());
                if (child >= docs.size() || offset.count(child)) continue;
                double ox = offset[d].first, oy = offset[d].second;
                auto li = layout_of.find(idx[k].get<int64_t>());
                if (li != layout_of.end()) {
                    const auto &b = layout["bounds"][li->second];
                    ox += b[0].get<double>();
                    oy += b[1].get<double>();
                }
                offset[child] = {ox - docs[child].value("scrollOffsetX", 0.0), oy - docs[child].value("scrollOffsetY", 0.0)};
                queue.push_back(child);
            }
        }
        std::set<int64_t> clickable;
        if (nodes.contains("isClickable"))
            for (const auto &c : nodes["isClickable"]["index"]) clickable.insert(c.get<int64_t>());
        const auto &attrs = nodes["attributes"];
        for (size_t i = 0; i < attrs.size(); ++i) {
            std::string bid, vis, som;
            bool has_bid = false;
            for (size_t k = 0; k + 1 < attrs[i].size(); k += 2) {
                auto key = attrs[i][k].get<int64_t>();
                if (key == bid_i) {
                    bid = str(attrs[i][k + 1]);
                    has_bid = true;
                } else if (key == vis_i) {
                    vis = str(attrs[i][k + 1]);
                } else if (key == som_i) {
                    som = str(attrs[i][k + 1]);
                }
            }
            if (!has_bid) continue;
            nlohmann::json bbox = nullptr;
            auto li = layout_of.find(static_cast<int64_t>(i));
            if (li != layout_of.end()) {
                bool has_rects = layout.contains("clientRects") && li->second < layout["clientRects"].size() &&
                                 !layout["clientRects"][li->second].empty();
                if (has_rects) {
                    const auto &b = layout["bounds"][li->second];
                    bbox = {b[0].get<double>() + offset[d].first, b[1].get<double>() + offset[d].second, b[2].get<double>(),
                            b[3].get<double>()};
                }
            }
            double visibility = 0.0;
            try {
                visibility = vis.empty() ? 0.0 : std::stod(vis);
            } catch (...) {
            }
            out[bid] = {{"visibility", visibility}, {"bbox", bbox}, {"clickable", clickable.count(static_cast<int64_t>(i)) > 0},
                        {"set_of_marks", som == "1"}};
        }
    }
    return out;
}

}  // namespace

nlohmann::json BrowserEnv::evaluate(const std::string &expression, bool await_promise, Clock::time_point deadline) {
    auto res = cdp("Runtime.evaluate", {{"expression", expression}, {"awaitPromise", await_promise}, {"returnByValue", true}},
                   active().session_id, deadline);
    if (res.contains("exceptionDetails")) {
        const auto &d = res["exceptionDetails"];
        std::string msg = d.contains("exception") && d["exception"].contains("description")
                              ? d["exception"]["description"].get<std::string>()
                              : d.value("text", "script error");
        throw ScriptError(msg);
    }
    return res.contains("result") ? res["result"].value("value", nlohmann::json()) : nlohmann::json();
}

nlohmann::json BrowserEnv::evaluate_on_active_page(const std::string &expression, Clock::time_point deadline) {
    ensure_started(deadline);
    reconcile_pages(deadline);
    return evaluate(expression, true, deadline);
}

std::string BrowserEnv::active_page_url(Clock::time_point deadline) {
    auto url = evaluate_on_active_page("window.location.href", deadline);
    return url.is_string() ? url.get<std::string>() : "";
}

void BrowserEnv::observe(StepResult &result, const StepRequest &request) {
    for (int attempt = 0;; ++attempt) {
        try {
            observe_once(result, request);
            return;
        } catch (const std::exception &e) {
            const bool can_retry = (dynamic_cast<const ScriptError *>(&e) != nullptr || dynamic_cast<const CdpError *>(&e) != nullptr) &&
                                   retryable(e.what()) && attempt < 4 && Clock::now() + 500ms < request.deadline;
            if (!can_retry) {
                if (dynamic_cast<const ScriptError *>(&e) != nullptr) throw CdpError(e.what());
                throw;
            }
            try {
                evaluate(scripts::kUnmarkElements, false, request.deadline);
            } catch (...) {
            }
            std::this_thread::sleep_for(200ms);
            reconcile_pages(request.deadline);
        }
    }
}

void BrowserEnv::observe_once(StepResult &r, const StepRequest &request) {
    const auto deadline = request.deadline;
    const std::string session = active().session_id;

    evaluate(scripts::kMarkElements, true, deadline);

    std::vector<std::string> frames;
    frame_ids(cdp("Page.getFrameTree", nlohmann::json::object(), session, deadline)["frameTree"], frames);
    nlohmann::json nodes = nlohmann::json::array();
    std::map<std::string, std::string> first_node_of_frame;
    for (const auto &f : frames) {
        nlohmann::json got;
        try {
            got = cdp("Accessibility.getFullAXTree", {{"frameId", f}}, session, deadline)["nodes"];
        } catch (const CdpError &e) {
            if (f == frames.front()) throw;
            continue;  // a child frame that went away
        }
        if (!got.empty()) first_node_of_frame[f] = got[0].value("nodeId", "");
        for (auto &n : got) nodes.push_back(std::move(n));
    }
    assign_browsergym_ids(nodes);
    for (auto &n : nodes) {
        if (!n.contains("role") || n["role"].value("value", nlohmann::json()) != "Iframe" || !n.contains("backendDOMNodeId")) continue;
        try {
            auto desc = cdp("DOM.describeNode", {{"backendNodeId", n["backendDOMNodeId"]}}, session, deadline);
            std::string fid = desc["node"].value("frameId", "");
            auto it = first_node_of_frame.find(fid);
            if (it != first_node_of_frame.end()) {
                if (!n.contains("childIds")) n["childIds"] = nlohmann::json::array();
                n["childIds"].push_back(it->second);
            }
        } catch (const CdpError &) {
        }
    }
    evaluate(scripts::kUnmarkElements, false, deadline);

    auto snapshot = cdp("DOMSnapshot.captureSnapshot",
                        {{"computedStyles", nlohmann::json::array()}, {"includeDOMRects", true}, {"includePaintOrder", true}},
                        session, deadline);
    r.extra_element_properties = extra_properties(snapshot);
    r.axtree_object = {{"nodes", std::move(nodes)}};
    r.focused_element_bid = evaluate(scripts::kFocusedBid, false, deadline);
    if (!r.focused_element_bid.is_string() && !r.focused_element_bid.is_null()) r.focused_element_bid = "";
    if (request.want_text_content) r.text_content = dom_to_markdown(dom_tree_from_snapshot(snapshot));
    if (request.want_objects) r.dom_object = std::move(snapshot);

    r.screenshot_b64 = cdp("Page.captureScreenshot", {{"format", "png"}, {"optimizeForSpeed", true}}, session, deadline).value("data", "");
    // Set-of-marks: draw the flagged boxes over the page, take a second screenshot, remove them.
    nlohmann::json boxes = nlohmann::json::array();
    for (const auto &[bid, p] : r.extra_element_properties.items()) {
        if (!p.value("set_of_marks", false) || !p["bbox"].is_array()) continue;
        double w = p["bbox"][2].get<double>(), h = p["bbox"][3].get<double>();
        if (w * h < 20) continue;
        boxes.push_back({{"bid", bid}, {"x", p["bbox"][0]}, {"y", p["bbox"][1]}, {"w", w}, {"h", h}});
    }
    if (boxes.empty()) {
        r.som_b64 = r.screenshot_b64;
    } else {
        evaluate("(" + std::string(scripts::kDrawSomOverlay) + ")(" + actionhost::common::dump_json(boxes) + ")", false, deadline);
        try {
            r.som_b64 = cdp("Page.captureScreenshot", {{"format", "png"}, {"optimizeForSpeed", true}}, session, deadline).value("data", "");
        } catch (...) {
            evaluate(scripts::kRemoveSomOverlay, false, deadline);
            throw;
        }
        evaluate(scripts::kRemoveSomOverlay, false, deadline);
    }

    auto infos = cdp("Target.getTargets", nlohmann::json::object(), "", deadline).value("targetInfos", nlohmann::json::array());
    r.open_pages_urls.clear();
    for (size_t i = 0; i < pages_.size(); ++i) {
        std::string url;
        for (const auto &t : infos)
            if (t.value("targetId", "") == pages_[i].target_id) url = t.value("url", "");
        r.open_pages_urls.push_back(url);
    }
    r.active_page_index = static_cast<int>(active_);
    r.url = r.open_pages_urls.at(active_);
}

}  // namespace actionhost::browser
