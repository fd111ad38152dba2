// The Triton launch derivation (compiler/triton_launch.h) against what three
// Triton versions really compiled (tests/fixtures/triton/<version>/, written
// by tests/fixtures/triton/generate.py from the example kernels), and the
// specialisation keys that decide which binary a case may use
// (compiler/triton_specialize.h). CPU only; no Triton needed.
#include <gtest/gtest.h>

#include <dirent.h>

#include <set>
#include <string>
#include <vector>

#include "compiler/compiler.h"
#include "compiler/triton_launch.h"
#include "compiler/triton_specialize.h"
#include "task/task.h"
#include "util/error.h"
#include "util/files.h"
#include "util/json.h"

namespace {

using kb::Json;

const std::string kFixtures = std::string(KB_SOURCE_DIR) + "/tests/fixtures/triton";

bool has(const std::string& s, const std::string& what) { return s.find(what) != std::string::npos; }

struct Fixture {
    std::string version, name;
    std::string metadata, entry;
    Json signature_doc;
    std::vector<kb::TritonSignatureEntry> signature;
    Json meta;
};

Fixture load(const std::string& version, const std::string& name) {
    Fixture f;
    f.version = version;
    f.name = name;
    const std::string base = kFixtures + "/" + version + "/" + name;
    f.metadata = kb::read_file(base + ".metadata.json");
    f.entry = kb::read_file(base + ".entry.ptx");
    f.signature_doc = Json::parse(kb::read_file(base + ".signature.json"));
    for (const Json& e : f.signature_doc["signature"])
        f.signature.push_back({e[0].get<std::string>(), e[1].get<std::string>(), e[2].get<int>()});
    f.meta = Json::parse(f.metadata);
    return f;
}

std::vector<std::string> cases_of(const std::string& version) {
    std::set<std::string> names;
    if (DIR* d = ::opendir((kFixtures + "/" + version).c_str())) {
        while (dirent* e = ::readdir(d)) {
            std::string n = e->d_name;
            const std::string suffix = ".metadata.json";
            if (n.size() > suffix.size() && n.compare(n.size() - suffix.size(), suffix.size(), suffix) == 0)
                names.insert(n.substr(0, n.size() - suffix.size()));
        }
        ::closedir(d);
    }
    return {names.begin(), names.end()};
}

const std::vector<std::string> kVersions = {"3.2.0", "3.3.1", "3.6.0"};

int hidden_for(const std::string& version) { return version == "3.2.0" ? 0 : version == "3.3.1" ? 1 : 2; }

TEST(TritonLaunch, Versions) {
    EXPECT_EQ(kb::triton_hidden_param_count(kb::parse_triton_version("3.2.0")), 0);
    EXPECT_EQ(kb::triton_hidden_param_count(kb::parse_triton_version("3.3.1")), 1);
    EXPECT_EQ(kb::triton_hidden_param_count(kb::parse_triton_version("3.4.0")), 1);
    EXPECT_EQ(kb::triton_hidden_param_count(kb::parse_triton_version("3.5.1")), 2);
    EXPECT_EQ(kb::triton_hidden_param_count(kb::parse_triton_version("3.6.0")), 2);
    EXPECT_EQ(kb::triton_hidden_param_count(kb::parse_triton_version("3.9.0+git1a2b")), 2);
    EXPECT_EQ(kb::triton_hidden_param_count(kb::parse_triton_version("")), 0);
    kb::TritonVersion v = kb::parse_triton_version("3.5.0+gitdeadbeef");
    EXPECT_EQ(v.major, 3);
    EXPECT_EQ(v.minor, 5);
    EXPECT_TRUE(v.at_least(3, 5));
    EXPECT_FALSE(v.at_least(3, 6));
}

TEST(TritonLaunch, TypeSizesAndPtxParsing) {
    EXPECT_EQ(kb::triton_type_bytes("*fp32"), 8u);
    EXPECT_EQ(kb::triton_type_bytes("*i1"), 8u);
    EXPECT_EQ(kb::triton_type_bytes("u1"), 1u);
    EXPECT_EQ(kb::triton_type_bytes("fp16"), 2u);
    EXPECT_EQ(kb::triton_type_bytes("bf16"), 2u);
    EXPECT_EQ(kb::triton_type_bytes("i32"), 4u);
    EXPECT_EQ(kb::triton_type_bytes("fp64"), 8u);
    EXPECT_EQ(kb::triton_type_bytes("constexpr"), 0u);
    EXPECT_EQ(kb::triton_type_bytes("tensordesc<fp16[64]>"), 0u);

    const std::string ptx = "//\n.version 8.7\n.target sm_90a\n// .globl\tk\n.visible .entry k(\n"
                            "\t.param .u64 .ptr .global .align 1 k_param_0,\n\t.param .align 2 .b8 k_param_1[2],\n"
                            "\t.param .u8 k_param_2,\n\t.param .f64 k_param_3\n)\n.reqntid 128\n{\n\tret;\n}\n";
    std::string e = kb::ptx_entry_declaration(ptx, "k");
    EXPECT_TRUE(has(e, ".visible .entry k(")) << e;
    EXPECT_EQ(e.back(), ')');
    EXPECT_EQ(kb::ptx_entry_param_bytes(e), (std::vector<size_t>{8, 2, 1, 8}));
    EXPECT_EQ(kb::ptx_entry_declaration(ptx, "kk"), "");
    EXPECT_EQ(kb::ptx_entry_declaration(ptx, ""), "");
}

// Every fixture of every version: block, shared memory, parameters (the
// signature's non-constexpr entries, then the version's hidden pointers),
// and agreement with the PTX Triton wrote (derive_triton_launch checks it).
TEST(TritonLaunch, EveryFixtureOfEveryVersion) {
    size_t checked = 0;
    for (const std::string& version : kVersions) {
        std::vector<std::string> cases = cases_of(version);
        ASSERT_GE(cases.size(), 6u) << "fixtures of Triton " << version << " are missing";
        for (const std::string& name : cases) {
            SCOPED_TRACE(version + "/" + name);
            Fixture f = load(version, name);
            kb::TritonLaunch t = kb::derive_triton_launch(f.metadata, f.signature, f.entry);
            EXPECT_EQ(t.kernel, f.signature_doc["kernel"].get<std::string>());
            EXPECT_EQ(t.threads_per_block(), 32u * f.meta["num_warps"].get<unsigned>());
            EXPECT_EQ(t.shared, f.meta["shared"].get<int64_t>());
            size_t user = 0;
            for (const auto& e : f.signature) user += e.type != "constexpr";
            ASSERT_EQ(t.params.size(), user + size_t(hidden_for(version)));
            EXPECT_EQ(t.arg_param_count(), user);
            EXPECT_EQ(kb::ptx_entry_param_bytes(f.entry).size(), t.params.size());
            for (size_t i = user; i < t.params.size(); ++i) {
                EXPECT_NE(t.params[i].kind, kb::TritonParam::Kind::arg);
                EXPECT_EQ(t.params[i].bytes, 8u);
            }
            if (hidden_for(version) >= 1) EXPECT_EQ(t.params[user].kind, kb::TritonParam::Kind::global_scratch);
            if (hidden_for(version) == 2) EXPECT_EQ(t.params[user + 1].kind, kb::TritonParam::Kind::profile_scratch);
            // The same metadata as a precompiled cubin (no signature): the
            // plan's arguments, then the same hidden parameters.
            kb::TritonLaunch b = kb::derive_triton_binary_launch(f.metadata, user);
            EXPECT_EQ(b.params.size(), t.params.size());
            EXPECT_EQ(b.threads_per_block(), t.threads_per_block());
            ++checked;
        }
    }
    EXPECT_GE(checked, 20u);
}

TEST(TritonLaunch, SpecificFacts) {
    for (const std::string& version : kVersions) {
        SCOPED_TRACE(version);
        // n = 1024 is an argument; n = 1 is compiled in and leaves the parameters.
        kb::TritonLaunch va = kb::derive_triton_launch(load(version, "vector_add").metadata,
                                                       load(version, "vector_add").signature,
                                                       load(version, "vector_add").entry);
        ASSERT_EQ(va.arg_param_count(), 4u);
        EXPECT_EQ(va.params[3].type, "i32");
        EXPECT_EQ(va.params[3].arg, 3);
        Fixture one = load(version, "vector_add_n1");
        kb::TritonLaunch v1 = kb::derive_triton_launch(one.metadata, one.signature, one.entry);
        EXPECT_EQ(v1.arg_param_count(), 3u);
        EXPECT_EQ(kb::ptx_entry_param_bytes(one.entry).size(), 3u + size_t(hidden_for(version)));
        // A matmul's shared memory is above 48 KiB: the opt-in path is normal.
        Fixture mm = load(version, "matmul");
        kb::TritonLaunch m = kb::derive_triton_launch(mm.metadata, mm.signature, mm.entry);
        EXPECT_GT(m.shared, 49152);
        EXPECT_EQ(m.threads_per_block(), 256u);
        EXPECT_FALSE(m.needs_launch_attributes());
        // eps is an f32 scalar: 4 bytes.
        Fixture ln = load(version, "layernorm");
        kb::TritonLaunch l = kb::derive_triton_launch(ln.metadata, ln.signature, ln.entry);
        EXPECT_EQ(l.params[6].type, "fp32");
        EXPECT_EQ(l.params[6].bytes, 4u);
    }
}

TEST(TritonLaunch, ClustersAcrossVersions) {
    // 3.3 records cluster_dims; 3.6 has none and clusters (num_ctas, 1, 1).
    for (const std::string& version : {std::string("3.3.1"), std::string("3.6.0")}) {
        SCOPED_TRACE(version);
        Fixture f = load(version, "vector_add_cluster2");
        EXPECT_EQ(f.meta.contains("cluster_dims"), version == "3.3.1");
        kb::TritonLaunch t = kb::derive_triton_launch(f.metadata, f.signature, f.entry);
        EXPECT_EQ(t.num_ctas, 2);
        EXPECT_EQ(t.cluster[0], 2);
        EXPECT_EQ(t.cluster[1], 1);
        EXPECT_TRUE(t.needs_launch_attributes());
        int64_t grid[3] = {10, 3, 1}, driver[3];
        t.driver_grid(grid, driver);
        EXPECT_EQ(driver[0], 20);
        EXPECT_EQ(driver[1], 3);
        EXPECT_EQ(driver[2], 1);
    }
}

TEST(TritonLaunch, ScalarTypes) {
    for (const std::string& version : {std::string("3.3.1"), std::string("3.6.0")}) {
        Fixture f = load(version, "scalar_types");
        kb::TritonLaunch t = kb::derive_triton_launch(f.metadata, f.signature, f.entry);
        std::vector<size_t> sizes;
        for (size_t i = 0; i < t.arg_param_count(); ++i) sizes.push_back(t.params[i].bytes);
        EXPECT_EQ(sizes, (std::vector<size_t>{8, 8, 1, 2, 8, 2, 8})) << version;
    }
}

TEST(TritonLaunch, GlobalScratchOfDeviceSideDescriptors) {
    Fixture f = load("3.6.0", "tma_vector_add");
    kb::TritonLaunch t = kb::derive_triton_launch(f.metadata, f.signature, f.entry);
    EXPECT_EQ(t.global_scratch_size, 384);  // three descriptors of 128 bytes per program
    EXPECT_EQ(t.global_scratch_align, 128);
    EXPECT_EQ(t.profile_scratch_size, 0);
    int64_t grid[3] = {16384, 1, 1};
    EXPECT_EQ(t.scratch_bytes(t.global_scratch_size, grid), 16384 * 384);
    EXPECT_EQ(t.scratch_bytes(t.profile_scratch_size, grid), 0);  // NULL pointer
    Json j = t.to_json();
    EXPECT_EQ(j["global_scratch"]["bytes_per_cta"], 384);
    EXPECT_EQ(j["params"].size(), 6u);
    EXPECT_EQ(j["params"][4]["hidden"], "global_scratch");
}

TEST(TritonLaunch, DisagreementIsAnError) {
    Fixture f = load("3.6.0", "vector_add");
    // One parameter too many in the signature: the PTX says otherwise.
    auto sig = f.signature;
    sig.insert(sig.begin() + 3, {"extra", "i32", 4});
    try {
        kb::derive_triton_launch(f.metadata, sig, f.entry);
        FAIL() << "expected a mismatch";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INTERNAL);
        EXPECT_TRUE(has(e.what(), "PTX")) << e.what();
    }
    // The metadata of 3.6 relabelled 3.3 (one hidden parameter, not two).
    Json m = f.meta;
    m["triton_version"] = "3.3.1";
    EXPECT_THROW(kb::derive_triton_launch(m.dump(), f.signature, f.entry), kb::Error);
    // Without PTX the version alone decides.
    EXPECT_EQ(kb::derive_triton_launch(m.dump(), f.signature, "").params.size(), 5u);
    // A signature type kbench cannot pass.
    auto weird = f.signature;
    weird[0].type = "tensordesc<fp32[16]>";
    EXPECT_THROW(kb::derive_triton_launch(f.metadata, weird, ""), kb::Error);
}

TEST(TritonLaunch, BadMetadataNamesTheField) {
    auto rejects = [](const std::string& json, const std::string& what) {
        try {
            kb::derive_triton_binary_launch(json, 1);
            return false;
        } catch (const kb::Error& e) {
            return e.status() == KB_ERR_INVALID_ARGUMENT && has(e.what(), what);
        }
    };
    EXPECT_TRUE(rejects("[1]", "JSON object"));
    EXPECT_TRUE(rejects("{", "not valid JSON"));
    EXPECT_TRUE(rejects(R"({"num_warps": 4, "shared": 0})", "\"name\""));
    EXPECT_TRUE(rejects(R"({"name": "k", "shared": 0})", "\"num_warps\""));
    EXPECT_TRUE(rejects(R"({"name": "k", "num_warps": 4})", "\"shared\""));
    EXPECT_TRUE(rejects(R"({"name": "k", "num_warps": 0, "shared": 0})", "num_warps"));
    EXPECT_TRUE(rejects(R"({"name": "k", "num_warps": 64, "shared": 0})", "1024 threads"));
    EXPECT_TRUE(rejects(R"({"name": "k", "num_warps": 4, "shared": 0, "global_scratch_size": 128})",
                        "triton_version"));
    EXPECT_TRUE(rejects(R"({"name": "k", "num_warps": 4, "shared": 0, "cluster_dims": [0, 1, 1]})", "cluster_dims"));
    // Before 3.3 (no version, no scratch): no hidden parameters.
    EXPECT_EQ(kb::derive_triton_binary_launch(R"({"name": "k", "num_warps": 4, "shared": 0})", 2).params.size(), 2u);
}

// A real cubin Triton 3.6 compiled (n not specialised), given with its
// metadata as a triton_binary program: accepted by the compile service, and
// launched with the metadata's block and two hidden parameters.
TEST(TritonLaunch, PrecompiledCubinOfTriton36) {
    const std::string dir = kFixtures + "/3.6.0/";
    kb::CompileRequest r;
    r.language = kb::Language::triton_binary;
    r.code = kb::read_file(dir + "vector_add_n1009.sm90.cubin");
    r.source_name = "vector_add_n1009.sm90.cubin";
    r.kernel_names = {"vector_add"};
    r.triton_metadata = kb::read_file(dir + "vector_add_n1009.metadata.json");
    r.arch = "sm_90";
    kb::Compiler compiler{kb::CompilerConfig{}};
    kb::CompiledImage img = compiler.compile(r);
    EXPECT_EQ(img.path, "given");
    EXPECT_EQ(img.symbols.at("vector_add"), "vector_add");
    EXPECT_EQ(img.triton_metadata, r.triton_metadata);
    kb::TritonLaunch t = kb::derive_triton_binary_launch(img.triton_metadata, 4);
    EXPECT_EQ(t.threads_per_block(), 128u);
    EXPECT_EQ(t.params.size(), 6u);
    // The same cubin for an sm_80 device is refused, saying why.
    r.arch = "sm_80";
    EXPECT_THROW(compiler.compile(r), kb::CompileError);
}

// ---------------------------------------------------------------------------
// Specialisation keys

kb::TaskPtr vector_add_task(const std::vector<int64_t>& ns) {
    Json cases = Json::array();
    for (size_t i = 0; i < ns.size(); ++i) cases.push_back({{"name", "c" + std::to_string(i)}, {"dims", {{"n", ns[i]}}}});
    Json t = {{"format", "kbench-task/1"},
              {"name", "vadd"},
              {"dims", {{"n", "elements"}}},
              {"cases", cases},
              {"perf_case", {{"dims", {{"n", 4096}}}}},
              {"args",
               {{{"name", "a"}, {"role", "in"}, {"dtype", "f32"}, {"shape", {"n"}}},
                {{"name", "b"}, {"role", "in"}, {"dtype", "f32"}, {"shape", {"n"}}},
                {{"name", "c"}, {"role", "out"}, {"dtype", "f32"}, {"shape", {"n"}}, {"tolerance", {{"atol", 0}}}},
                {{"name", "n"}, {"role", "scalar"}, {"dtype", "i32"}, {"value", "n"}}}},
              {"reference",
               {{"source", "extern \"C\" __global__ void r(const float*, const float*, float*, int) {}"},
                {"launch", {{{"kernel", "r"}, {"grid", 1}, {"block", 1}, {"args", {"a", "b", "c", "n"}}}}}}}};
    return kb::load_task_json(t.dump(), "");
}

kb::Program triton_program(const kb::Task& task, const Json& entry) {
    kb::Program p = kb::parse_launch_plan(Json::array({entry}), task, "launch", false, kb::Language::triton);
    p.language = kb::Language::triton;
    return p;
}

const Json kVaddEntry = {{"kernel", "vector_add"},
                         {"grid", "ceil_div(n, BLOCK)"},
                         {"args", {"a", "b", "c", "n"}},
                         {"constexprs", {{"BLOCK", 1024}}},
                         {"num_warps", 4}};

TEST(TritonSpecialize, IntegerRules) {
    EXPECT_EQ(kb::triton_int_spec(1), "1");
    EXPECT_EQ(kb::triton_int_spec(1024), "D");
    EXPECT_EQ(kb::triton_int_spec(0), "D");
    EXPECT_EQ(kb::triton_int_spec(-16), "D");
    EXPECT_EQ(kb::triton_int_spec(1009), "");
    EXPECT_EQ(kb::triton_int_spec(2), "");
    EXPECT_EQ(kb::triton_type(kb::DType::f32, true), "*fp32");
    EXPECT_EQ(kb::triton_type(kb::DType::f16, false), "fp16");
    EXPECT_EQ(kb::triton_type(kb::DType::boolean, true), "*i1");
    EXPECT_EQ(kb::triton_type(kb::DType::boolean, false), "u1");
    EXPECT_EQ(kb::triton_type(kb::DType::u64, false), "u64");
}

TEST(TritonSpecialize, KeysFollowTheCaseValues) {
    kb::TaskPtr task = vector_add_task({1024, 1009, 1, 2048});
    kb::Program p = triton_program(*task, kVaddEntry);
    auto spec = [&](int c) { return kb::triton_spec_at(*task, p, 0, task->cases[size_t(c)].dims); };
    EXPECT_EQ(spec(0).key(), "vector_add(*fp32:D, *fp32:D, *fp32:D, i32:D; BLOCK=1024; w4 s3 c1)");
    EXPECT_EQ(spec(1).key(), "vector_add(*fp32:D, *fp32:D, *fp32:D, i32; BLOCK=1024; w4 s3 c1)");
    EXPECT_EQ(spec(2).key(), "vector_add(*fp32:D, *fp32:D, *fp32:D, i32:1; BLOCK=1024; w4 s3 c1)");
    EXPECT_EQ(spec(3).key(), spec(0).key());  // 2048 and 1024 share a binary
    // Cases 0..3 and the perf case (4096): three distinct keys.
    auto all = kb::triton_specs(*task, p, {});
    EXPECT_EQ(all.size(), 3u);
    EXPECT_EQ(kb::triton_specs(*task, p, {1}).size(), 1u);
}

// A kernel compiled for n = 1024 (n divisible by 16: vector loads with one
// predicate per four elements) must never run the n = 1009 case.
TEST(TritonSpecialize, BinaryForN1024IsNotReusedForN1009) {
    kb::TaskPtr task = vector_add_task({1024, 1009});
    kb::Program p = triton_program(*task, kVaddEntry);
    std::vector<kb::TritonVariant> only_1024;
    only_1024.push_back({0, kb::triton_spec_at(*task, p, 0, task->cases[0].dims).key(), {}});
    EXPECT_EQ(&kb::triton_variant_for(only_1024, *task, p, 0, task->cases[0].dims, "c0"), &only_1024[0]);
    try {
        kb::triton_variant_for(only_1024, *task, p, 0, task->cases[1].dims, "c1");
        FAIL() << "the n = 1024 binary was chosen for n = 1009";
    } catch (const kb::Error& e) {
        EXPECT_EQ(e.status(), KB_ERR_INTERNAL);
        EXPECT_TRUE(has(e.what(), "i32;")) << e.what();
        EXPECT_TRUE(has(e.what(), "kbench bug")) << e.what();
    }
    // With the binaries compile_triton_variants would make, each case finds its own.
    std::vector<kb::TritonVariant> both;
    for (const auto& s : kb::triton_specs(*task, p, {0, 1})) both.push_back({s.step, s.spec.key(), {}});
    ASSERT_EQ(both.size(), 2u);
    EXPECT_EQ(&kb::triton_variant_for(both, *task, p, 0, task->cases[1].dims, "c1"), &both[1]);
    // The key names the step: another launch entry's binary does not count.
    std::vector<kb::TritonVariant> other_step = {{1, both[0].key, {}}};
    EXPECT_THROW(kb::triton_variant_for(other_step, *task, p, 0, task->cases[0].dims, "c0"), kb::Error);
}

TEST(TritonSpecialize, InlineScalarsAndConfigs) {
    kb::TaskPtr task = vector_add_task({1024});
    Json entry = kVaddEntry;
    entry["args"] = {"a", "b", "c", {{"value", "n - 1"}, {"dtype", "i64"}}};
    entry["configs"] = {{{"constexprs", {{"BLOCK", 512}}}, {"num_warps", 8}}, {{"num_stages", 2}}};
    kb::Program p = triton_program(*task, entry);
    ASSERT_EQ(p.launch[0].triton_configs.size(), 2u);
    EXPECT_EQ(kb::triton_spec_at(*task, p, 0, task->cases[0].dims).args[3].type, "i64");
    EXPECT_EQ(kb::triton_spec_at(*task, p, 0, task->cases[0].dims).args[3].spec, "");  // 1023
    kb::Program c0 = p.with_triton_configs({0});
    EXPECT_TRUE(c0.launch[0].triton_configs.empty());
    EXPECT_EQ(c0.launch[0].triton->num_warps, 8);
    EXPECT_EQ(kb::triton_spec_at(*task, c0, 0, task->cases[0].dims).constexprs[0].second, 512);
    kb::Program c1 = p.with_triton_configs({1});
    EXPECT_EQ(c1.launch[0].triton->num_stages, 2);
    EXPECT_EQ(c1.launch[0].triton->constexprs[0].second.text(), "1024");  // inherited from the entry
    EXPECT_EQ(c1.launch[0].triton->label(), "BLOCK=1024 w4 s2");
}

}  // namespace
