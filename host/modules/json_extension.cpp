#include "modules/json_extension.hpp"

#include <actionhost/common/json_io.hpp>
#include <cmath>
#include <deque>
#include <limits>
#include <new>
#include <string>
#include <vector>

// The opaque types of the header: a writer is an ordered_json under construction (keys stay in the order
// the plugin put them) with the path to the container being filled; a document is a parsed nlohmann::json
// with the texts handed out of it kept alive until doc_free.
struct ah_json_writer {
    nlohmann::ordered_json root;
    bool has_root = false;
    std::vector<nlohmann::ordered_json *> open;  // innermost last; pointers stay valid: only the last grows
    ah_status_t failed = AH_OK;
    std::string error;
    std::string text;  // the last finish's
};

struct ah_json_doc {
    nlohmann::json value;
    std::string error;                  // empty when parsed
    mutable std::deque<std::string> texts;  // get_text's views (a deque: they never move)
};

namespace actionhost::host {

namespace {

using ordered = nlohmann::ordered_json;

// Records the first refusal of `w`; every later call returns it.
ah_status_t refuse(ah_json_writer *w, ah_status_t status, std::string why) {
    if (w->failed == AH_OK) {
        w->failed = status;
        w->error = std::move(why);
    }
    return w->failed;
}

std::string quoted(const char *key) { return key == nullptr ? "(no key)" : "key \"" + std::string(key) + "\""; }

// Where the next value goes: the top level, the open array (no key), or the open object (a new key).
// Returns the slot, or nullptr after recording why not. `w` is not null (its callers check).
ordered *slot_for(ah_json_writer *w, const char *key, const char *what) {
    if (w->failed != AH_OK) return nullptr;
    if (w->open.empty()) {
        if (w->has_root) {
            refuse(w, AH_ERR_STATE, std::string(what) + " after the top-level value was complete");
            return nullptr;
        }
        if (key != nullptr) {
            refuse(w, AH_ERR_INVALID_ARGUMENT, std::string(what) + " at the top level with " + quoted(key) +
                                                   ": the top-level value has no key (pass NULL)");
            return nullptr;
        }
        w->has_root = true;
        return &w->root;
    }
    ordered &parent = *w->open.back();
    if (parent.is_array()) {
        if (key != nullptr) {
            refuse(w, AH_ERR_INVALID_ARGUMENT,
                   std::string(what) + " with " + quoted(key) + " inside an array: array elements have no key (pass NULL)");
            return nullptr;
        }
        parent.push_back(nullptr);
        return &parent.back();
    }
    if (key == nullptr) {
        refuse(w, AH_ERR_INVALID_ARGUMENT, std::string(what) + " inside an object without a key");
        return nullptr;
    }
    if (parent.contains(key)) {
        refuse(w, AH_ERR_INVALID_ARGUMENT, std::string(what) + " with " + quoted(key) + ", which this object already has");
        return nullptr;
    }
    return &parent[key];
}

template <class V>
ah_status_t put(ah_json_writer *w, const char *key, const char *what, V &&value) {
    if (w == nullptr) return AH_ERR_INVALID_ARGUMENT;
    try {
        ordered *at = slot_for(w, key, what);
        if (at == nullptr) return w->failed;
        *at = std::forward<V>(value);
        return AH_OK;
    } catch (const std::bad_alloc &) {
        return refuse(w, AH_ERR_INTERNAL, "out of memory");
    }
}

ah_json_writer_t *writer_new() { return new (std::nothrow) ah_json_writer(); }

void writer_free(ah_json_writer_t *w) { delete w; }

ah_status_t begin(ah_json_writer_t *w, const char *key, bool array) {
    if (w == nullptr) return AH_ERR_INVALID_ARGUMENT;
    const char *what = array ? "begin_array" : "begin_object";
    if (w->failed == AH_OK && w->open.size() >= static_cast<size_t>(common::kMaxJsonDepth))
        return refuse(w, AH_ERR_INVALID_ARGUMENT,
                      std::string(what) + " deeper than " + std::to_string(common::kMaxJsonDepth) + " levels");
    try {
        ordered *at = slot_for(w, key, what);
        if (at == nullptr) return w->failed;
        *at = array ? ordered::array() : ordered::object();
        w->open.push_back(at);
        return AH_OK;
    } catch (const std::bad_alloc &) {
        return refuse(w, AH_ERR_INTERNAL, "out of memory");
    }
}

ah_status_t begin_object(ah_json_writer_t *w, const char *key) { return begin(w, key, false); }
ah_status_t begin_array(ah_json_writer_t *w, const char *key) { return begin(w, key, true); }

ah_status_t end(ah_json_writer_t *w) {
    if (w == nullptr) return AH_ERR_INVALID_ARGUMENT;
    if (w->failed != AH_OK) return w->failed;
    if (w->open.empty()) return refuse(w, AH_ERR_STATE, "end with no object or array open");
    w->open.pop_back();
    return AH_OK;
}

ah_status_t put_string(ah_json_writer_t *w, const char *key, const char *value) {
    if (w != nullptr && value == nullptr)
        return refuse(w, AH_ERR_INVALID_ARGUMENT, "put_string with " + quoted(key) + " and a NULL string");
    return put(w, key, "put_string", std::string(value == nullptr ? "" : value));
}

ah_status_t put_string_n(ah_json_writer_t *w, const char *key, ah_bytes_t value) {
    if (w != nullptr && value.ptr == nullptr && value.len != 0)
        return refuse(w, AH_ERR_INVALID_ARGUMENT, "put_string_n with " + quoted(key) + " and a NULL pointer of non-zero length");
    return put(w, key, "put_string_n", value.len == 0 ? std::string() : std::string(value.ptr, value.len));
}

ah_status_t put_int(ah_json_writer_t *w, const char *key, int64_t value) { return put(w, key, "put_int", value); }

ah_status_t put_double(ah_json_writer_t *w, const char *key, double value) {
    if (w != nullptr && !std::isfinite(value))
        return refuse(w, AH_ERR_INVALID_ARGUMENT, "put_double with " + quoted(key) + " and a value that is not finite (JSON has no NaN or infinity)");
    return put(w, key, "put_double", value);
}

ah_status_t put_bool(ah_json_writer_t *w, const char *key, int32_t value) { return put(w, key, "put_bool", value != 0); }

ah_status_t put_null(ah_json_writer_t *w, const char *key) { return put(w, key, "put_null", nullptr); }

// The value `pointer` names in `d`, or nullptr (a failed document, a malformed or dangling pointer).
const nlohmann::json *find(const ah_json_doc_t *d, const char *pointer) {
    if (d == nullptr || pointer == nullptr || !d->error.empty()) return nullptr;
    try {
        const nlohmann::json::json_pointer p(pointer);
        if (!d->value.contains(p)) return nullptr;
        return &d->value.at(p);
    } catch (const nlohmann::json::exception &) {
        return nullptr;  // malformed ("args" without its '/', "~2") or an index that is not a number
    }
}

ah_status_t put_value_of(ah_json_writer_t *w, const char *key, const ah_json_doc_t *doc, const char *pointer) {
    if (w == nullptr) return AH_ERR_INVALID_ARGUMENT;
    const nlohmann::json *v = find(doc, pointer);
    if (v == nullptr)
        return refuse(w, AH_ERR_INVALID_ARGUMENT, "put_value_of with " + quoted(key) + ": the document holds no value at \"" +
                                                      std::string(pointer == nullptr ? "(null)" : pointer) + "\"");
    return put(w, key, "put_value_of", ordered(*v));
}

ah_status_t finish(ah_json_writer_t *w, ah_bytes_t *out) {
    if (w == nullptr || out == nullptr) return AH_ERR_INVALID_ARGUMENT;
    if (w->failed != AH_OK) return w->failed;
    if (!w->has_root) return refuse(w, AH_ERR_STATE, "finish before any value was written");
    if (!w->open.empty())
        return refuse(w, AH_ERR_STATE, "finish with " + std::to_string(w->open.size()) + " object(s) or array(s) still open");
    try {
        w->text = common::dump_ordered_json(w->root);
    } catch (const std::bad_alloc &) {
        return refuse(w, AH_ERR_INTERNAL, "out of memory");
    }
    *out = ah_bytes_t{w->text.c_str(), w->text.size()};
    return AH_OK;
}

const char *writer_error(const ah_json_writer_t *w) {
    return w == nullptr || w->failed == AH_OK ? nullptr : w->error.c_str();
}

ah_json_doc_t *parse(ah_bytes_t text) {
    auto *d = new (std::nothrow) ah_json_doc();
    if (d == nullptr) return nullptr;
    try {
        if (text.ptr == nullptr && text.len != 0) {
            d->error = "a NULL text of non-zero length";
            return d;
        }
        auto parsed = common::parse_json(std::string_view(text.ptr, text.len));  // an empty text: parse_json says why
        if (parsed) d->value = std::move(parsed).value();
        else d->error = parsed.error().message;
    } catch (const std::bad_alloc &) {
        delete d;
        return nullptr;
    }
    return d;
}

void doc_free(ah_json_doc_t *d) { delete d; }

const char *doc_error(const ah_json_doc_t *d) {
    if (d == nullptr) return "no document (NULL)";
    return d->error.empty() ? nullptr : d->error.c_str();
}

ah_json_type_t type_at(const ah_json_doc_t *d, const char *pointer) {
    const nlohmann::json *v = find(d, pointer);
    if (v == nullptr) return AH_JSON_MISSING;
    switch (v->type()) {
        case nlohmann::json::value_t::null: return AH_JSON_NULL;
        case nlohmann::json::value_t::boolean: return AH_JSON_BOOL;
        case nlohmann::json::value_t::number_integer:
        case nlohmann::json::value_t::number_unsigned:
        case nlohmann::json::value_t::number_float: return AH_JSON_NUMBER;
        case nlohmann::json::value_t::string: return AH_JSON_STRING;
        case nlohmann::json::value_t::array: return AH_JSON_ARRAY;
        case nlohmann::json::value_t::object: return AH_JSON_OBJECT;
        default: return AH_JSON_MISSING;  // binary and discarded: never made by the parser
    }
}

ah_status_t get_string(const ah_json_doc_t *d, const char *pointer, ah_bytes_t *out) {
    const nlohmann::json *v = find(d, pointer);
    if (v == nullptr || out == nullptr || !v->is_string()) return AH_ERR_INVALID_ARGUMENT;
    const auto &s = v->get_ref<const std::string &>();
    *out = ah_bytes_t{s.c_str(), s.size()};
    return AH_OK;
}

ah_status_t get_int(const ah_json_doc_t *d, const char *pointer, int64_t *out) {
    const nlohmann::json *v = find(d, pointer);
    if (v == nullptr || out == nullptr) return AH_ERR_INVALID_ARGUMENT;
    if (v->is_number_integer() && !v->is_number_unsigned()) {
        *out = v->get<int64_t>();
        return AH_OK;
    }
    if (v->is_number_unsigned()) {
        const uint64_t u = v->get<uint64_t>();
        if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max())) return AH_ERR_INVALID_ARGUMENT;
        *out = static_cast<int64_t>(u);
        return AH_OK;
    }
    if (v->is_number_float()) {
        // Integral and inside int64_t's range: -2^63 is exact as a double, 2^63 is the first beyond.
        const double x = v->get<double>();
        if (std::trunc(x) != x || x < -9223372036854775808.0 || x >= 9223372036854775808.0) return AH_ERR_INVALID_ARGUMENT;
        *out = static_cast<int64_t>(x);
        return AH_OK;
    }
    return AH_ERR_INVALID_ARGUMENT;
}

ah_status_t get_double(const ah_json_doc_t *d, const char *pointer, double *out) {
    const nlohmann::json *v = find(d, pointer);
    if (v == nullptr || out == nullptr || !v->is_number()) return AH_ERR_INVALID_ARGUMENT;
    *out = v->get<double>();
    return AH_OK;
}

ah_status_t get_bool(const ah_json_doc_t *d, const char *pointer, int32_t *out) {
    const nlohmann::json *v = find(d, pointer);
    if (v == nullptr || out == nullptr || !v->is_boolean()) return AH_ERR_INVALID_ARGUMENT;
    *out = v->get<bool>() ? 1 : 0;
    return AH_OK;
}

ah_status_t get_size(const ah_json_doc_t *d, const char *pointer, size_t *out) {
    const nlohmann::json *v = find(d, pointer);
    if (v == nullptr || out == nullptr || !(v->is_array() || v->is_object())) return AH_ERR_INVALID_ARGUMENT;
    *out = v->size();
    return AH_OK;
}

// A view of `s` kept by the document until doc_free.
ah_bytes_t keep(const ah_json_doc_t *d, std::string s) {
    const std::string &kept = d->texts.emplace_back(std::move(s));
    return ah_bytes_t{kept.c_str(), kept.size()};
}

// The key itself, as the document holds it (a parsed document never changes until doc_free): no copy, so
// walking an object's keys again and again keeps nothing more.
ah_status_t get_key(const ah_json_doc_t *d, const char *pointer, size_t index, ah_bytes_t *out) {
    const nlohmann::json *v = find(d, pointer);
    if (v == nullptr || out == nullptr || !v->is_object() || index >= v->size()) return AH_ERR_INVALID_ARGUMENT;
    auto it = v->begin();
    std::advance(it, static_cast<std::ptrdiff_t>(index));
    const std::string &key = it.key();
    *out = ah_bytes_t{key.c_str(), key.size()};
    return AH_OK;
}

ah_status_t get_text(const ah_json_doc_t *d, const char *pointer, ah_bytes_t *out) {
    const nlohmann::json *v = find(d, pointer);
    if (v == nullptr || out == nullptr) return AH_ERR_INVALID_ARGUMENT;
    try {
        *out = keep(d, common::dump_json(*v));
        return AH_OK;
    } catch (const std::bad_alloc &) {
        return AH_ERR_INTERNAL;
    }
}

constexpr ah_ext_json_t kJson{
    sizeof(ah_ext_json_t),
    &writer_new, &writer_free, &begin_object, &begin_array, &end,
    &put_string, &put_string_n, &put_int, &put_double, &put_bool, &put_null, &put_value_of,
    &finish, &writer_error,
    &parse, &doc_free, &doc_error, &type_at,
    &get_string, &get_int, &get_double, &get_bool, &get_size, &get_key, &get_text,
};

}  // namespace

const ah_ext_json_t &json_extension() { return kJson; }

}  // namespace actionhost::host
