#include "compiler/compile_cache.h"

#include <algorithm>

#include "util/files.h"
#include "util/json.h"
#include "util/sha256.h"

namespace kb {

CompileCache::CompileCache(std::string dir, size_t memory_entries)
    : dir_(std::move(dir)), memory_entries_(std::max<size_t>(1, memory_entries)) {
    if (!dir_.empty()) make_dirs(dir_);
}

std::optional<CompiledImage> CompileCache::find_in_memory(const std::string& key) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto hit = memory_.find(key);
    if (hit != memory_.end()) return hit->second;
    return std::nullopt;
}

std::optional<CompiledImage> CompileCache::find(const std::string& key) {
    if (auto hit = find_in_memory(key)) return hit;
    std::optional<CompiledImage> img = load(key);
    if (img) remember(key, *img);
    return img;
}

void CompileCache::put(const std::string& key, const CompiledImage& image) {
    remember(key, image);
    store(key, image);
}

void CompileCache::remember(const std::string& key, const CompiledImage& image) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (memory_.emplace(key, image).second) order_.push_back(key);
    while (memory_.size() > memory_entries_ && !order_.empty()) {
        memory_.erase(order_.front());
        order_.pop_front();
    }
}

std::optional<CompiledImage> CompileCache::load(const std::string& key) const {
    if (dir_.empty()) return std::nullopt;
    std::string meta_path = join_path(dir_, key + ".json");
    std::string bin_path = join_path(dir_, key + ".bin");
    if (!file_exists(meta_path) || !file_exists(bin_path)) return std::nullopt;
    try {
        Json meta = Json::parse(read_file(meta_path));
        std::string bytes = read_file(bin_path);
        // A cached image that belonged to other source would give a wrong
        // verdict: check the key and the bytes before trusting the files.
        if (meta.value("format", "") != "kbench-compiled/1" || meta.value("key", "") != key ||
            meta.value("bytes_sha256", "") != sha256_hex(bytes))
            return std::nullopt;
        CompiledImage img;
        img.kind = meta.at("kind").get<std::string>() == "ptx" ? ImageKind::ptx : ImageKind::cubin;
        img.bytes = std::move(bytes);
        for (auto& kv : meta.at("symbols").items()) img.symbols[kv.key()] = kv.value().get<std::string>();
        img.entries = meta.at("entries").get<std::vector<std::string>>();
        img.log = meta.value("log", "");
        img.path = meta.value("path", "nvrtc");
        img.arch = meta.value("arch", "");
        img.nvrtc_ms = meta.value("nvrtc_ms", 0.0);
        img.nvcc_ms = meta.value("nvcc_ms", 0.0);
        img.fallback_reason = meta.value("fallback_reason", "");
        img.trap_flag = meta.value("trap_flag", "");
        img.checked_arm = meta.value("checked_arm", "");
        img.checked_only = meta.value("checked_only", false);
        img.fast_compiled = meta.value("fast_compiled", false);
        if (meta.contains("triton")) {
            const Json& t = meta["triton"];
            img.triton_metadata = t.at("metadata").get<std::string>();
            img.triton_ptx_entry = t.at("ptx_entry").get<std::string>();
            img.triton_key = t.at("key").get<std::string>();
            for (const Json& e : t.at("signature"))
                img.triton_signature.push_back({e.at(0).get<std::string>(), e.at(1).get<std::string>(), e.at(2).get<int>()});
        }
        img.hash = key;
        return img;
    } catch (const std::exception&) {
        return std::nullopt;  // unreadable or partial: compile again (and overwrite)
    }
}

void CompileCache::store(const std::string& key, const CompiledImage& img) const {
    if (dir_.empty()) return;
    Json meta;
    meta["format"] = "kbench-compiled/1";
    meta["key"] = key;
    meta["kind"] = image_kind_name(img.kind);
    meta["arch"] = img.arch;
    meta["path"] = img.path;
    Json syms = Json::object();
    for (const auto& kv : img.symbols) syms[kv.first] = kv.second;
    meta["symbols"] = syms;
    meta["entries"] = img.entries;
    meta["log"] = img.log;
    if (!img.trap_flag.empty()) meta["trap_flag"] = img.trap_flag;
    if (!img.checked_arm.empty()) meta["checked_arm"] = img.checked_arm;
    if (img.checked_only) meta["checked_only"] = true;
    if (img.fast_compiled) meta["fast_compiled"] = true;
    meta["nvrtc_ms"] = img.nvrtc_ms;
    meta["nvcc_ms"] = img.nvcc_ms;
    meta["fallback_reason"] = img.fallback_reason;
    if (img.path == "triton") {
        Json sig = Json::array();
        for (const TritonSignatureEntry& e : img.triton_signature) sig.push_back(Json::array({e.name, e.type, e.arg}));
        meta["triton"] = Json{{"metadata", img.triton_metadata},
                              {"ptx_entry", img.triton_ptx_entry},
                              {"key", img.triton_key},
                              {"signature", sig}};
    }
    meta["bytes_sha256"] = sha256_hex(img.bytes);
    try {
        // The image first, its description last: a reader that finds the
        // .json finds a complete .bin (each file is written atomically).
        write_file_atomic(join_path(dir_, key + ".bin"), img.bytes);
        write_file_atomic(join_path(dir_, key + ".json"), meta.dump(1));
    } catch (const Error&) {
        // A cache that cannot be written is not a compile failure.
    }
}

}  // namespace kb
