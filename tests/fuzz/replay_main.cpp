// Runs the fuzz targets without libFuzzer: every file of a corpus folder goes
// once through its target's LLVMFuzzerTestOneInput. The default build (g++,
// no fuzzer runtime) registers one CTest per target with this, so CI replays
// the committed seeds and every past finding on each run. A crash, an abort
// or an escaping exception fails the test; the input's path is printed first
// so the failure names it.
//
//     kbench_fuzz_replay <target> <corpus folder or file>...
//
// Each fuzz_<target>.cpp is compiled here with its entry points renamed
// (tests/fuzz/CMakeLists.txt): LLVMFuzzerTestOneInput -> kb_fuzz_one_<target>,
// LLVMFuzzerInitialize -> kb_fuzz_init_<target>.
#include <dirent.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

// The targets, in one place: X(name).
#define KB_FUZZ_TARGETS(X) \
    X(task_loader)         \
    X(candidate_document)  \
    X(expr)                \
    X(frame_decoder)       \
    X(extract)             \
    X(include_scan)

// Initialize is optional in libFuzzer, hence weak: null when a target has none.
#define KB_DECLARE(name)                                                      \
    extern "C" int kb_fuzz_one_##name(const uint8_t* data, size_t size);     \
    extern "C" __attribute__((weak)) int kb_fuzz_init_##name(int*, char***);
KB_FUZZ_TARGETS(KB_DECLARE)
#undef KB_DECLARE

namespace {

struct Target {
    const char* name;
    int (*one)(const uint8_t*, size_t);
    int (*init)(int*, char***);
};

const Target kTargets[] = {
#define KB_ENTRY(name) {#name, kb_fuzz_one_##name, kb_fuzz_init_##name},
    KB_FUZZ_TARGETS(KB_ENTRY)
#undef KB_ENTRY
};

bool is_dir(const std::string& p) {
    struct stat st;
    return stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The regular files of a folder (not recursive), sorted so runs repeat.
std::vector<std::string> files_in(const std::string& dir) {
    std::vector<std::string> out;
    if (DIR* d = opendir(dir.c_str())) {
        while (dirent* e = readdir(d)) {
            if (e->d_name[0] == '.') continue;
            std::string p = dir + "/" + e->d_name;
            if (!is_dir(p)) out.push_back(p);
        }
        closedir(d);
    }
    std::sort(out.begin(), out.end());
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s <target> <corpus folder or file>...\ntargets:", argv[0]);
        for (const Target& t : kTargets) std::fprintf(stderr, " %s", t.name);
        std::fprintf(stderr, "\n");
        return 2;
    }
    const Target* target = nullptr;
    for (const Target& t : kTargets)
        if (std::strcmp(t.name, argv[1]) == 0) target = &t;
    if (!target) {
        std::fprintf(stderr, "kbench_fuzz_replay: no fuzz target '%s' (run without arguments for the list)\n", argv[1]);
        return 2;
    }
    std::vector<std::string> inputs;
    for (int i = 2; i < argc; ++i) {
        if (is_dir(argv[i])) {
            std::vector<std::string> f = files_in(argv[i]);
            inputs.insert(inputs.end(), f.begin(), f.end());
        } else {
            inputs.push_back(argv[i]);
        }
    }
    // An empty corpus would make the test pass while checking nothing.
    if (inputs.empty()) {
        std::fprintf(stderr, "kbench_fuzz_replay: no inputs for '%s' in the folders given\n", target->name);
        return 1;
    }
    if (target->init) target->init(&argc, &argv);
    for (const std::string& path : inputs) {
        std::ifstream in(path, std::ios::binary);
        if (!in) {
            std::fprintf(stderr, "kbench_fuzz_replay: cannot read %s\n", path.c_str());
            return 1;
        }
        const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        std::fprintf(stderr, "%s: %s (%zu bytes)\n", target->name, path.c_str(), bytes.size());
        std::fflush(stderr);
        target->one(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
    }
    std::printf("%s: %zu inputs replayed, no finding\n", target->name, inputs.size());
    return 0;
}
