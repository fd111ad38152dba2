#include "compiler/triton_launch.h"

#include <algorithm>
#include <cctype>
#include <regex>

#include "util/error.h"

namespace kb {
namespace {

// The metadata of one kernel, with the fields the launch needs.
struct Metadata {
    Json j;
    std::string where;  // "Triton metadata" (or the file), for messages

    bool has(const char* key) const { return j.contains(key) && !j[key].is_null(); }
    int64_t integer(const char* key, int64_t dflt, int64_t min, bool required) const {
        if (!has(key)) {
            if (required) fail(KB_ERR_INVALID_ARGUMENT, where + ": \"" + key + "\" is required");
            return dflt;
        }
        const Json& v = j[key];
        if (!v.is_number_integer() || v.get<int64_t>() < min || v.get<int64_t>() > (int64_t(1) << 40))
            fail(KB_ERR_INVALID_ARGUMENT, where + ": \"" + key + "\" must be an integer >= " + std::to_string(min));
        return v.get<int64_t>();
    }
    bool boolean(const char* key) const {
        if (!has(key)) return false;
        if (!j[key].is_boolean()) fail(KB_ERR_INVALID_ARGUMENT, where + ": \"" + key + "\" must be true or false");
        return j[key].get<bool>();
    }
};

Metadata parse_metadata(const std::string& text) {
    Metadata m;
    m.where = "Triton metadata";
    try {
        m.j = Json::parse(text);
    } catch (const std::exception& e) {
        fail(KB_ERR_INVALID_ARGUMENT, m.where + ": not valid JSON: " + e.what());
    }
    if (!m.j.is_object()) fail(KB_ERR_INVALID_ARGUMENT, m.where + ": expected a JSON object");
    return m;
}

// Everything but the parameters: name, version, block, shared memory,
// scratch sizes, clusters, launch attributes.
TritonLaunch launch_basics(const Metadata& m) {
    TritonLaunch t;
    if (!m.has("name") || !m.j["name"].is_string() || m.j["name"].get<std::string>().empty())
        fail(KB_ERR_INVALID_ARGUMENT, m.where + ": \"name\" (the kernel's symbol) is required and must be a string");
    t.kernel = m.j["name"].get<std::string>();
    if (m.has("triton_version")) {
        if (!m.j["triton_version"].is_string())
            fail(KB_ERR_INVALID_ARGUMENT, m.where + ": \"triton_version\" must be a string");
        t.version = parse_triton_version(m.j["triton_version"].get<std::string>());
    }
    t.num_warps = int(m.integer("num_warps", 4, 1, true));
    t.warp_size = int(m.integer("warp_size", 32, 1, false));
    t.num_ctas = int(m.integer("num_ctas", 1, 1, false));
    t.shared = m.integer("shared", 0, 0, true);
    t.global_scratch_size = m.integer("global_scratch_size", 0, 0, false);
    t.global_scratch_align = m.integer("global_scratch_align", 1, 1, false);
    t.profile_scratch_size = m.integer("profile_scratch_size", 0, 0, false);
    t.profile_scratch_align = m.integer("profile_scratch_align", 1, 1, false);
    t.cooperative = m.boolean("launch_cooperative_grid");
    t.pdl = m.boolean("launch_pdl");
    if (m.has("cluster_dims")) {
        // Up to 3.5: the cluster is an option of its own, and each grid axis
        // is multiplied by its extent.
        const Json& c = m.j["cluster_dims"];
        bool ok = c.is_array() && !c.empty() && c.size() <= 3;
        for (size_t i = 0; ok && i < c.size(); ++i) ok = c[i].is_number_integer() && c[i].get<int64_t>() >= 1 &&
                                                          c[i].get<int64_t>() <= 1024;
        if (!ok) fail(KB_ERR_INVALID_ARGUMENT, m.where + ": \"cluster_dims\" must be 1 to 3 positive integers");
        for (size_t i = 0; i < c.size(); ++i) t.cluster[i] = c[i].get<int>();
    } else {
        // 3.6 and later: the cluster is (num_ctas, 1, 1).
        t.cluster[0] = t.num_ctas;
    }
    if (int64_t(t.warp_size) * t.num_warps > 1024)
        fail(KB_ERR_INVALID_ARGUMENT, m.where + ": num_warps " + std::to_string(t.num_warps) + " x warp_size " +
                                          std::to_string(t.warp_size) + " exceeds 1024 threads per block");
    if (t.global_scratch_align > 4096 || t.profile_scratch_align > 4096)
        fail(KB_ERR_INVALID_ARGUMENT, m.where + ": a scratch alignment above 4096 bytes");
    return t;
}

// The hidden parameters of the version, after the arguments.
void append_hidden(TritonLaunch& t, int count) {
    static const TritonParam::Kind kinds[2] = {TritonParam::Kind::global_scratch, TritonParam::Kind::profile_scratch};
    static const char* names[2] = {"global_scratch", "profile_scratch"};
    for (int i = 0; i < count && i < 2; ++i) {
        TritonParam p;
        p.kind = kinds[i];
        p.name = names[i];
        p.type = "*scratch";
        p.bytes = 8;
        t.params.push_back(p);
    }
}

std::string join_sizes(const std::vector<size_t>& v) {
    std::string s;
    for (size_t x : v) s += (s.empty() ? "" : ", ") + std::to_string(x);
    return "(" + s + ")";
}

}  // namespace

TritonVersion parse_triton_version(const std::string& text) {
    TritonVersion v;
    v.text = text;
    static const std::regex re("^\\s*(\\d+)\\.(\\d+)(?:\\.(\\d+))?");
    std::smatch m;
    if (std::regex_search(text, m, re)) {
        v.major = std::stoi(m[1]);
        v.minor = std::stoi(m[2]);
        v.patch = m[3].matched ? std::stoi(m[3]) : 0;
    }
    return v;
}

int triton_hidden_param_count(const TritonVersion& v) {
    if (!v.known()) return 0;  // metadata without a version: Triton before 3.3 (see derive_*)
    if (v.at_least(3, 5)) return 2;
    if (v.at_least(3, 3)) return 1;
    return 0;
}

size_t triton_type_bytes(const std::string& type) {
    if (type.empty() || type == "constexpr") return 0;
    if (type[0] == '*') return 8;
    static const struct {
        const char* name;
        size_t bytes;
    } table[] = {{"i1", 1}, {"u1", 1}, {"i8", 1}, {"u8", 1}, {"i16", 2}, {"u16", 2}, {"fp16", 2}, {"bf16", 2},
                 {"i32", 4}, {"u32", 4}, {"fp32", 4}, {"i64", 8}, {"u64", 8}, {"fp64", 8}};
    for (const auto& e : table)
        if (type == e.name) return e.bytes;
    return 0;
}

void TritonLaunch::driver_grid(const int64_t grid[3], int64_t out[3]) const {
    for (int i = 0; i < 3; ++i) out[i] = grid[i] * cluster[i];
}

int64_t TritonLaunch::scratch_bytes(int64_t per_cta, const int64_t grid[3]) const {
    if (per_cta <= 0) return 0;
    // 3.6 allocates grid x num_ctas x size; earlier versions grid x size with
    // the cluster folded into the grid. The larger of the two covers both.
    int64_t ctas = std::max<int64_t>(num_ctas, cluster_size());
    return grid[0] * grid[1] * grid[2] * ctas * per_cta;
}

size_t TritonLaunch::arg_param_count() const {
    return size_t(std::count_if(params.begin(), params.end(),
                                [](const TritonParam& p) { return p.kind == TritonParam::Kind::arg; }));
}

Json TritonLaunch::to_json() const {
    Json params_json = Json::array();
    for (const TritonParam& p : params) {
        Json e;
        e["name"] = p.name;
        if (p.kind == TritonParam::Kind::arg) e["arg"] = p.arg;
        else e["hidden"] = p.kind == TritonParam::Kind::global_scratch ? "global_scratch" : "profile_scratch";
        if (!p.type.empty()) e["type"] = p.type;
        if (p.bytes) e["bytes"] = p.bytes;
        params_json.push_back(std::move(e));
    }
    Json j;
    j["kernel"] = kernel;
    j["triton_version"] = version.text;
    j["block"] = Json::array({threads_per_block(), 1, 1});
    j["num_warps"] = num_warps;
    j["num_ctas"] = num_ctas;
    j["cluster"] = Json::array({cluster[0], cluster[1], cluster[2]});
    j["shared_mem"] = shared;
    j["global_scratch"] = Json{{"bytes_per_cta", global_scratch_size}, {"align", global_scratch_align}};
    j["profile_scratch"] = Json{{"bytes_per_cta", profile_scratch_size}, {"align", profile_scratch_align}};
    if (cooperative) j["cooperative"] = true;
    if (pdl) j["pdl"] = true;
    j["params"] = std::move(params_json);
    return j;
}

TritonLaunch derive_triton_launch(const std::string& metadata_json, const std::vector<TritonSignatureEntry>& signature,
                                  const std::string& ptx_entry) {
    Metadata m = parse_metadata(metadata_json);
    TritonLaunch t = launch_basics(m);
    for (const TritonSignatureEntry& e : signature) {
        if (e.type == "constexpr") continue;  // compiled in: not a parameter
        TritonParam p;
        p.kind = TritonParam::Kind::arg;
        p.arg = e.arg;
        p.name = e.name;
        p.type = e.type;
        p.bytes = triton_type_bytes(e.type);
        if (p.bytes == 0 || e.arg < 0)
            fail(KB_ERR_INTERNAL, "Triton kernel '" + t.kernel + "': parameter '" + e.name + "' has type '" + e.type +
                                      "', which kbench cannot pass (a kbench bug)");
        t.params.push_back(p);
    }
    const size_t user = t.params.size();
    int hidden = triton_hidden_param_count(t.version);
    if (!t.version.known()) {
        if (m.has("global_scratch_size"))
            fail(KB_ERR_INTERNAL, "Triton kernel '" + t.kernel + "': the metadata has no \"triton_version\" but has "
                                  "global scratch: kbench cannot tell which launch ABI it follows");
    }
    if (!ptx_entry.empty()) {
        std::vector<size_t> ptx = ptx_entry_param_bytes(ptx_entry);
        std::vector<size_t> mine;
        for (const TritonParam& p : t.params) mine.push_back(p.bytes);
        // A version newer than the ones kbench knows (3.9 when this was
        // written) keeps the ABI of 3.5+ as long as its PTX agrees.
        bool newer = t.version.known() && t.version.at_least(3, 10);
        if (newer && ptx.size() >= user && ptx.size() <= user + 2) hidden = int(ptx.size() - user);
        for (int i = 0; i < hidden; ++i) mine.push_back(8);
        if (ptx != mine)
            fail(KB_ERR_INTERNAL,
                 "Triton " + (t.version.text.empty() ? std::string("(unknown version)") : t.version.text) +
                     " kernel '" + t.kernel + "': its PTX takes parameters of " + join_sizes(ptx) +
                     " bytes, but kbench derived " + join_sizes(mine) + " (" + std::to_string(user) +
                     " arguments + " + std::to_string(hidden) +
                     " hidden scratch pointers) from the signature; this Triton's launch ABI is not the one kbench "
                     "knows (docs/triton.md lists the versions)");
    }
    append_hidden(t, hidden);
    return t;
}

TritonLaunch derive_triton_binary_launch(const std::string& metadata_json, size_t arg_count) {
    Metadata m = parse_metadata(metadata_json);
    TritonLaunch t = launch_basics(m);
    for (size_t i = 0; i < arg_count; ++i) {
        TritonParam p;
        p.arg = int(i);
        p.name = "arg" + std::to_string(i);
        t.params.push_back(p);
    }
    int hidden = triton_hidden_param_count(t.version);
    if (!t.version.known() && m.has("global_scratch_size"))
        fail(KB_ERR_INVALID_ARGUMENT, m.where + ": \"global_scratch_size\" without \"triton_version\": kbench cannot "
                                              "tell how many hidden parameters the kernel takes; give the metadata "
                                              "JSON exactly as Triton wrote it");
    append_hidden(t, hidden);
    return t;
}

std::string ptx_entry_declaration(const std::string& ptx, const std::string& name) {
    size_t at = 0;
    while ((at = ptx.find(".entry", at)) != std::string::npos) {
        size_t p = at + 6;
        while (p < ptx.size() && std::isspace(static_cast<unsigned char>(ptx[p]))) ++p;
        size_t e = p;
        while (e < ptx.size() && (std::isalnum(static_cast<unsigned char>(ptx[e])) || ptx[e] == '_' || ptx[e] == '$'))
            ++e;
        if (ptx.compare(p, e - p, name) == 0 && e - p == name.size()) {
            size_t close = ptx.find(')', e);
            if (close == std::string::npos) return "";
            size_t start = ptx.rfind('\n', at);
            start = start == std::string::npos ? 0 : start + 1;
            return ptx.substr(start, close + 1 - start);
        }
        at = e;
    }
    return "";
}

std::vector<size_t> ptx_entry_param_bytes(const std::string& entry) {
    std::vector<size_t> out;
    size_t open = entry.find('(');
    if (open == std::string::npos) return out;
    std::string list = entry.substr(open + 1);
    static const std::regex param_re("\\.param\\b([^,)]*)");
    static const std::regex type_re("\\.(u|s|b|f)(8|16|32|64)\\b");
    static const std::regex array_re("\\[(\\d+)\\]");
    for (auto it = std::sregex_iterator(list.begin(), list.end(), param_re); it != std::sregex_iterator(); ++it) {
        std::string decl = (*it)[1];
        std::smatch t;
        size_t bytes = 0;
        if (std::regex_search(decl, t, type_re)) bytes = size_t(std::stoi(t[2])) / 8;
        std::smatch a;
        if (std::regex_search(decl, a, array_re)) bytes *= size_t(std::stoul(a[1]));
        out.push_back(bytes);
    }
    return out;
}

}  // namespace kb
