// The plugins' JSON service (host/modules/json_extension.cpp, ext/json.h) driven by arbitrary bytes, as a
// careless or hostile plugin might drive it. The input is a program: each byte picks a writer call
// (begin/end/put of each type, with or without a key, finish) whose payload is the bytes that follow; the
// whole input is also parsed as a document and read through pointers cut from it. Whatever the order of
// calls, nothing crashes or leaks, a finished text is JSON that parses back to a value written again
// byte for byte, a refused writer stays refused, and every reader answer is consistent with type_at.
#include <actionhost/common/json_io.hpp>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "modules/json_extension.hpp"

namespace {

const ah_ext_json_t &J = actionhost::host::json_extension();

struct Input {
    const uint8_t *p;
    size_t left;
    uint8_t byte() {
        if (left == 0) return 0;
        --left;
        return *p++;
    }
    std::string text() {  // a length byte, then that many bytes (fewer at the end)
        const size_t n = std::min<size_t>(byte() % 24, left);
        std::string s(reinterpret_cast<const char *>(p), n);
        p += n;
        left -= n;
        return s;
    }
};

void check_reader(const ah_json_doc_t *d, const std::string &pointer) {
    const ah_json_type_t t = J.type_at(d, pointer.c_str());
    ah_bytes_t s{};
    if ((J.get_string(d, pointer.c_str(), &s) == AH_OK) != (t == AH_JSON_STRING)) std::abort();
    if (t == AH_JSON_STRING && s.ptr[s.len] != '\0') std::abort();
    int32_t b = 0;
    if ((J.get_bool(d, pointer.c_str(), &b) == AH_OK) != (t == AH_JSON_BOOL)) std::abort();
    double x = 0;
    if ((J.get_double(d, pointer.c_str(), &x) == AH_OK) != (t == AH_JSON_NUMBER)) std::abort();
    int64_t i = 0;
    if (J.get_int(d, pointer.c_str(), &i) == AH_OK && t != AH_JSON_NUMBER) std::abort();
    size_t n = 0;
    if ((J.get_size(d, pointer.c_str(), &n) == AH_OK) != (t == AH_JSON_ARRAY || t == AH_JSON_OBJECT)) std::abort();
    if (t == AH_JSON_OBJECT && n > 0) {
        ah_bytes_t k{};
        if (J.get_key(d, pointer.c_str(), n - 1, &k) != AH_OK) std::abort();
        if (J.get_key(d, pointer.c_str(), n, &k) == AH_OK) std::abort();
    }
    ah_bytes_t text{};
    if ((J.get_text(d, pointer.c_str(), &text) == AH_OK) != (t != AH_JSON_MISSING)) std::abort();
    if (t != AH_JSON_MISSING && !actionhost::common::parse_json(std::string_view(text.ptr, text.len))) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    // The reader: the input as a document, and pointers cut from the input.
    ah_json_doc_t *d = J.parse(ah_bytes_t{reinterpret_cast<const char *>(data), size});
    if (d == nullptr) std::abort();
    check_reader(d, "");
    Input pointers{data, size};
    for (int i = 0; i < 8 && pointers.left > 0; ++i) check_reader(d, "/" + pointers.text());

    // The writer: the input as a program.
    ah_json_writer_t *w = J.writer_new();
    Input in{data, size};
    for (int step = 0; step < 4096 && in.left > 0; ++step) {
        const uint8_t op = in.byte();
        const bool keyed = op & 0x80;
        const std::string key = keyed ? in.text() : std::string();
        const char *k = keyed ? key.c_str() : nullptr;
        const bool was_refused = J.writer_error(w) != nullptr;
        ah_status_t s = AH_OK;
        switch (op & 0x0f) {
            case 0: s = J.begin_object(w, k); break;
            case 1: s = J.begin_array(w, k); break;
            case 2: s = J.end(w); break;
            case 3: {
                const std::string v = in.text();
                s = J.put_string_n(w, k, ah_bytes_t{v.data(), v.size()});
                break;
            }
            case 4: {
                int64_t v = 0;
                for (int i = 0; i < 8; ++i) v = (v << 8) | in.byte();
                s = J.put_int(w, k, v);
                break;
            }
            case 5: {
                uint64_t bits = 0;
                for (int i = 0; i < 8; ++i) bits = (bits << 8) | in.byte();
                double v;
                std::memcpy(&v, &bits, sizeof v);
                s = J.put_double(w, k, v);
                break;
            }
            case 6: s = J.put_bool(w, k, in.byte()); break;
            case 7: s = J.put_null(w, k); break;
            case 8: s = J.put_value_of(w, k, d, ("/" + in.text()).c_str()); break;
            case 9: {
                ah_bytes_t out{};
                s = J.finish(w, &out);
                if (s == AH_OK) {
                    const auto back = actionhost::common::parse_json(std::string_view(out.ptr, out.len));
                    if (!back) std::abort();
                    // Written again through nlohmann, the text is the same: one canonical form.
                    const std::string again(out.ptr, out.len);
                    ah_bytes_t twice{};
                    if (J.finish(w, &twice) != AH_OK || std::string_view(twice.ptr, twice.len) != again) std::abort();
                }
                break;
            }
            default: break;
        }
        // A refusal is kept: once refused, every call reports it and the reason never changes.
        if (was_refused && s == AH_OK && (op & 0x0f) <= 9) std::abort();
        if (s != AH_OK && J.writer_error(w) == nullptr && (op & 0x0f) != 9) std::abort();
    }
    J.writer_free(w);
    J.doc_free(d);
    return 0;
}
