// The worker protocol's framing and the wire form of the core's types: what
// one side writes, the other reads back exactly; anything malformed is
// refused with a message, never trusted.
#include <gtest/gtest.h>

#include <string>

#include "task/task.h"
#include "ipc/frame.h"
#include "protocol/program_wire.h"
#include "protocol/wire.h"
#include "support/task_paths.h"

using namespace kb;
using namespace kb::wire;

namespace {

std::string task_path(const char* name) { return kb::test::builtin_task_file(name); }

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string decode_error(const std::string& bytes) {
    FrameDecoder d;
    d.feed(bytes.data(), bytes.size());
    Frame f;
    try {
        d.next(&f);
    } catch (const ProtocolError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST(WorkerProtocol, FrameRoundTripsWithBlobs) {
    std::string binary("\x7f" "ELF\0\1\2\xff", 8);
    std::string bytes = encode_frame(uint16_t(Msg::compare), 42, Json{{"a", 1}, {"s", "x"}}, {binary, "", "log"});
    FrameDecoder d;
    d.feed(bytes.data(), bytes.size());
    Frame f;
    ASSERT_TRUE(d.next(&f));
    EXPECT_EQ(f.type, uint16_t(Msg::compare));
    EXPECT_EQ(f.id, 42u);
    EXPECT_EQ(f.json["a"], 1);
    EXPECT_FALSE(f.json.contains("blobs"));  // the size list is the decoder's business
    ASSERT_EQ(f.blobs.size(), 3u);
    EXPECT_EQ(f.blobs[0], binary);
    EXPECT_EQ(f.blobs[1], "");
    EXPECT_EQ(f.blobs[2], "log");
    EXPECT_EQ(d.pending(), 0u);
    EXPECT_FALSE(d.next(&f));
}

TEST(WorkerProtocol, DecoderTakesBytesOneAtATimeAndFramesBackToBack) {
    std::string bytes = encode_frame(reply_type(Msg::hello), 1, Json{{"ok", true}}) +
                        encode_frame(uint16_t(Msg::note), 2, Json{{"doing", "x"}}, {"abc"});
    FrameDecoder d;
    std::vector<Frame> got;
    for (char c : bytes) {
        d.feed(&c, 1);
        Frame f;
        while (d.next(&f)) got.push_back(f);
    }
    ASSERT_EQ(got.size(), 2u);
    EXPECT_EQ(got[0].type, reply_type(Msg::hello));
    EXPECT_EQ(got[1].type, uint16_t(Msg::note));
    EXPECT_EQ(got[1].blobs.at(0), "abc");
}

TEST(WorkerProtocol, HeaderLayoutIsAsDocumented) {
    std::string bytes = encode_frame(uint16_t(Msg::time), 0x0102030405060708ull, Json::object(), {"xy"});
    ASSERT_GE(bytes.size(), kHeaderBytes);
    EXPECT_EQ(bytes.substr(0, 4), "KBW1");
    EXPECT_EQ(uint8_t(bytes[4]), kProtocolVersion & 0xff);
    EXPECT_EQ(uint8_t(bytes[6]), uint8_t(Msg::time));
    EXPECT_EQ(uint8_t(bytes[8]), 0x08);  // little-endian id
    EXPECT_EQ(uint8_t(bytes[15]), 0x01);
    EXPECT_EQ(uint8_t(bytes[20]), 2);  // blob bytes
}

TEST(WorkerProtocol, MalformedFramesAreRefusedWithAReason) {
    std::string good = encode_frame(uint16_t(Msg::compare), 7, Json{{"k", "v"}}, {"blob"});

    std::string bad_magic = good;
    bad_magic[0] = 'X';
    EXPECT_TRUE(has(decode_error(bad_magic), "bad magic")) << decode_error(bad_magic);

    std::string bad_version = good;
    bad_version[4] = 99;
    EXPECT_TRUE(has(decode_error(bad_version), "protocol version 99")) << decode_error(bad_version);

    std::string bad_type = good;
    bad_type[6] = 0x7f;
    EXPECT_TRUE(has(decode_error(bad_type), "unknown")) << decode_error(bad_type);

    std::string huge = good;
    huge[19] = char(0x7f);  // JSON length far past the limit
    EXPECT_TRUE(has(decode_error(huge), "limits")) << decode_error(huge);

    std::string bad_json = good;
    bad_json[kHeaderBytes] = '[';
    EXPECT_FALSE(decode_error(bad_json).empty());

    std::string bad_blobs = encode_frame(uint16_t(Msg::compare), 7, Json{{"k", "v"}}, {"blob"});
    bad_blobs[20] = 3;  // the header's blob total disagrees with the list
    bad_blobs.pop_back();
    EXPECT_TRUE(has(decode_error(bad_blobs), "add up")) << decode_error(bad_blobs);
}

// Every request type the host sends decodes, replies too; the first number
// past the last is refused by name.
TEST(WorkerProtocol, EveryRequestTypeDecodes) {
    for (Msg m : {Msg::hello, Msg::canary, Msg::compile, Msg::run_reference, Msg::compare, Msg::time, Msg::shutdown,
                  Msg::test, Msg::program_load, Msg::program_run, Msg::program_time, Msg::compare_cases,
                  Msg::install_reference, Msg::program_release, Msg::program_prebuild}) {
        for (uint16_t type : {uint16_t(m), reply_type(m)}) {
            std::string bytes = encode_frame(type, 3, Json{{"cases", Json::array({Json{{"case_index", 1}}})}});
            FrameDecoder d;
            d.feed(bytes.data(), bytes.size());
            Frame f;
            ASSERT_TRUE(d.next(&f)) << msg_name(type);
            EXPECT_EQ(f.type, type);
        }
    }
    std::string next = encode_frame(uint16_t(uint16_t(Msg::program_prebuild) + 1), 3, Json::object());
    EXPECT_TRUE(has(decode_error(next), "unknown message 0x0010")) << decode_error(next);
    EXPECT_EQ(msg_name(uint16_t(Msg::install_reference)), "install_reference");
    EXPECT_EQ(msg_name(uint16_t(Msg::program_release)), "program_release");
    EXPECT_EQ(msg_name(uint16_t(Msg::program_prebuild)), "program_prebuild");
}

TEST(WorkerProtocol, InvalidUtf8IsReplacedNotRefused) {
    std::string label = "cand\xff\xfe.cu";
    std::string bytes = encode_frame(uint16_t(Msg::compare), 1, Json{{"label", label}});
    FrameDecoder d;
    d.feed(bytes.data(), bytes.size());
    Frame f;
    ASSERT_TRUE(d.next(&f));
    EXPECT_TRUE(has(f.json["label"].get<std::string>(), "cand"));
}

TEST(WorkerProtocol, MessageNamesAndReplyEnvelope) {
    EXPECT_EQ(msg_name(uint16_t(Msg::compare)), "compare");
    EXPECT_EQ(msg_name(reply_type(Msg::compare)), "reply to compare");
    EXPECT_EQ(msg_name(uint16_t(Msg::compare_cases)), "compare_cases");
    EXPECT_EQ(msg_name(reply_type(Msg::compare_cases)), "reply to compare_cases");
    EXPECT_EQ(msg_name(0x1234), "message 0x1234");
    EXPECT_TRUE(reply_ok(Json{{"ok", true}}));
    EXPECT_FALSE(reply_ok(Json{{"ok", false}}));
    EXPECT_EQ(reply_status(Json{{"ok", false}, {"status", int(KB_ERR_COMPILE)}}), KB_ERR_COMPILE);
    EXPECT_EQ(reply_status(Json{{"ok", false}}), KB_ERR_WORKER);
    EXPECT_EQ(reply_status(Json{{"ok", false}, {"status", "x"}}), KB_ERR_WORKER);
    EXPECT_FALSE(reply_error(Json::object()).empty());
}

TEST(WorkerWire, CompileRequestRoundTripsEveryField) {
    CompileRequest r;
    r.language = Language::ptx;
    r.code = std::string("code\0with nul", 13);
    r.source_name = "k.ptx";
    r.kernel_names = {"a", "b<float, 4>"};
    r.policy.std = "c++20";
    r.policy.fast_math = true;
    r.policy.deterministic = true;
    r.policy.defines = {"X=1", "Y"};
    r.policy.max_registers = 64;
    r.arch = "sm_90a";
    r.emit_ptx = true;
    r.allow_nvcc_fallback = false;
    r.force_nvcc = true;
    r.triton_metadata = "{\"name\": \"k\"}";
    r.triton.kernel = "add";
    r.triton.args = {{"x", "*fp32", "D"}, {"n", "i32", "1"}, {"eps", "fp32", ""}};
    r.triton.constexprs = {{"BLOCK", 1024}, {"GROUP", -3}};
    r.triton.num_warps = 8;
    r.triton.num_stages = 2;
    r.triton.num_ctas = 2;
    r.headers = {{"common.cuh", "#define A 1\n"}, {"detail/b.cuh", std::string("\xff\0bytes", 7)}};
    std::vector<std::string> blobs;
    Json j = compile_request_to_json(r, &blobs);
    CompileRequest b = compile_request_from_json(Json::parse(j.dump()), blobs);
    EXPECT_EQ(b.language, r.language);
    EXPECT_EQ(b.code, r.code);
    EXPECT_EQ(b.source_name, r.source_name);
    EXPECT_EQ(b.kernel_names, r.kernel_names);
    EXPECT_EQ(b.policy.std, r.policy.std);
    EXPECT_EQ(b.policy.fast_math, r.policy.fast_math);
    EXPECT_EQ(b.policy.deterministic, r.policy.deterministic);
    EXPECT_EQ(b.policy.defines, r.policy.defines);
    EXPECT_EQ(b.policy.max_registers, r.policy.max_registers);
    EXPECT_EQ(b.arch, r.arch);
    EXPECT_EQ(b.emit_ptx, r.emit_ptx);
    EXPECT_EQ(b.allow_nvcc_fallback, r.allow_nvcc_fallback);
    EXPECT_EQ(b.force_nvcc, r.force_nvcc);
    EXPECT_EQ(b.triton_metadata, r.triton_metadata);
    EXPECT_EQ(b.triton.key(), r.triton.key());
    ASSERT_EQ(b.triton.args.size(), 3u);
    EXPECT_EQ(b.triton.args[0].name, "x");
    EXPECT_EQ(b.triton.constexprs, r.triton.constexprs);
    ASSERT_EQ(b.headers.size(), 2u);
    EXPECT_EQ(b.headers[1].name, "detail/b.cuh");
    EXPECT_EQ(b.headers[1].text, r.headers[1].text);
}

TEST(WorkerWire, CompilerConfigRoundTripsEveryField) {
    kb::CompilerConfig c;
    c.cuda_home = "/opt/cuda";
    c.cache_dir = "/tmp/cache";
    c.timeout_s = 12.5;
    c.process_limits.memory_bytes = uint64_t(3) << 30;
    c.process_limits.cpu_s = 42;
    c.process_limits.file_bytes = 12345;
    c.contain_traps = true;
    kb::CompilerConfig b = kb::wire::compiler_config_from_json(Json::parse(kb::wire::compiler_config_to_json(c).dump()));
    EXPECT_EQ(b.cuda_home, c.cuda_home);
    EXPECT_EQ(b.cache_dir, c.cache_dir);
    EXPECT_EQ(b.timeout_s, c.timeout_s);
    EXPECT_EQ(b.process_limits.memory_bytes, c.process_limits.memory_bytes);
    EXPECT_EQ(b.process_limits.cpu_s, c.process_limits.cpu_s);
    EXPECT_EQ(b.process_limits.file_bytes, c.process_limits.file_bytes);
    EXPECT_TRUE(b.contain_traps);
    // A host that predates the field: traps are not contained.
    Json old = kb::wire::compiler_config_to_json(c);
    old.erase("contain_traps");
    EXPECT_FALSE(kb::wire::compiler_config_from_json(old).contain_traps);
}

TEST(WorkerWire, ImageAndTimeRequestRoundTrip) {
    CompiledImage img;
    img.kind = ImageKind::ptx;
    img.bytes = std::string("\0\1binary", 8);
    img.symbols = {{"vadd", "_Z4vaddPf"}};
    img.entries = {"_Z4vaddPf"};
    img.log = "warning: x";
    img.path = "nvcc";
    img.arch = "sm_90";
    img.compile_ms = 12.5;
    img.nvrtc_ms = 3;
    img.nvcc_ms = 9;
    img.cache_hit = true;
    img.hash = "abc";
    img.fallback_reason = "why";
    img.trap_flag = "__kb_trap_flag_00000000000000ff";
    img.triton_metadata = "{\"name\": \"add\"}";
    img.triton_signature = {{"x", "*fp32", 0}, {"BLOCK", "constexpr", -1}};
    img.triton_ptx_entry = ".visible .entry add(\n)";
    img.triton_key = "add(*fp32:D; BLOCK=4; w4 s3 c1)";
    std::vector<std::string> blobs;
    CompiledImage b = image_from_json(Json::parse(image_to_json(img, &blobs).dump()), blobs);
    EXPECT_EQ(b.kind, img.kind);
    EXPECT_EQ(b.bytes, img.bytes);
    EXPECT_EQ(b.symbols, img.symbols);
    EXPECT_EQ(b.entries, img.entries);
    EXPECT_EQ(b.log, img.log);
    EXPECT_EQ(b.path, img.path);
    EXPECT_EQ(b.arch, img.arch);
    EXPECT_EQ(b.compile_ms, img.compile_ms);
    EXPECT_EQ(b.nvrtc_ms, img.nvrtc_ms);
    EXPECT_EQ(b.nvcc_ms, img.nvcc_ms);
    EXPECT_EQ(b.cache_hit, img.cache_hit);
    EXPECT_EQ(b.hash, img.hash);
    EXPECT_EQ(b.fallback_reason, img.fallback_reason);
    EXPECT_EQ(b.trap_flag, img.trap_flag);
    EXPECT_EQ(b.triton_metadata, img.triton_metadata);
    ASSERT_EQ(b.triton_signature.size(), 2u);
    EXPECT_EQ(b.triton_signature[1].name, "BLOCK");
    EXPECT_EQ(b.triton_signature[1].type, "constexpr");
    EXPECT_EQ(b.triton_signature[1].arg, -1);
    EXPECT_EQ(b.triton_ptx_entry, img.triton_ptx_entry);
    EXPECT_EQ(b.triton_key, img.triton_key);

    TimeRequest t;
    t.case_index = 3;
    t.against_baseline = true;
    t.timing.hot = true;
    t.timing.budget_ms = 250;
    t.timing.warmup_ms = 7;
    t.timing.min_samples = 11;
    t.timing.max_samples = 99;
    t.timing.target_rel_noise = 0.01;
    TimeRequest u = time_request_from_json(Json::parse(time_request_to_json(t).dump()));
    EXPECT_EQ(u.case_index, 3);
    EXPECT_TRUE(u.against_baseline);
    EXPECT_TRUE(u.timing.hot);
    EXPECT_EQ(u.timing.budget_ms, 250);
    EXPECT_EQ(u.timing.warmup_ms, 7);
    EXPECT_EQ(u.timing.min_samples, 11u);
    EXPECT_EQ(u.timing.max_samples, 99u);
    EXPECT_EQ(u.timing.target_rel_noise, 0.01);
}

TEST(WorkerWire, KernelRoundTripsAgainstItsTask) {
    for (const char* name : {"vector_add_f32", "sum_f32", "softmax_f32"}) {
        TaskPtr task = load_task(task_path(name));
        for (const Program* p : {&task->reference, &task->baseline_or_reference()}) {
            Kernel k;
            k.label = "reference";
            k.program = *p;
            k.image.kind = ImageKind::cubin;
            k.image.bytes = std::string("\x7f" "ELF\0fake", 8);
            k.image.symbols = {{p->kernel_names().front(), "sym"}};
            k.image.log = "stays home";
            KernelPtr kp = finish_kernel(k);
            std::vector<std::string> blobs;
            Json j = kernel_to_json(*kp, &blobs);
            KernelPtr back = kernel_from_json(Json::parse(j.dump()), blobs, *task);
            EXPECT_EQ(back->id, kp->id) << name;
            EXPECT_EQ(back->label, kp->label);
            EXPECT_EQ(back->image.bytes, kp->image.bytes);
            EXPECT_EQ(back->image.symbols, kp->image.symbols);
            EXPECT_EQ(back->image.log, "");  // the log is not shipped
            EXPECT_EQ(launch_plan_to_json(back->program), launch_plan_to_json(kp->program)) << name;
            EXPECT_EQ(back->program.kernel_names(), kp->program.kernel_names());
        }
    }
}

// A Triton kernel: its launch entries (constexprs, options, configs) and one
// image per specialisation key reach the worker intact.
TEST(WorkerWire, TritonKernelRoundTripsWithItsVariants) {
    TaskPtr task = load_task(task_path("vector_add_f32"));
    Json plan = Json::parse(R"J([{"kernel": "vector_add", "grid": "ceil_div(n, BLOCK)", "args": ["a", "b", "c", "n"],
                                 "constexprs": {"BLOCK": 1024}, "num_warps": 4, "num_stages": 2,
                                 "configs": [{"constexprs": {"BLOCK": 2048}, "num_warps": 8}]}])J");
    Kernel k;
    k.label = "candidate.py";
    k.program = parse_launch_plan(plan, *task, "launch", false, Language::triton);
    k.program.language = Language::triton;
    k.program.source_name = "candidate.py";
    for (const char* key : {"k1", "k2"}) {
        TritonVariant v;
        v.step = 0;
        v.key = key;
        v.image.bytes = std::string("cubin of ") + key;
        v.image.path = "triton";
        v.image.triton_metadata = "{\"name\": \"vector_add\"}";
        v.image.triton_signature = {{"a_ptr", "*fp32", 0}, {"BLOCK", "constexpr", -1}};
        v.image.triton_key = key;
        k.variants.push_back(v);
    }
    k.image = k.variants[0].image;
    KernelPtr kp = finish_kernel(k);
    std::vector<std::string> blobs;
    Json j = kernel_to_json(*kp, &blobs);
    KernelPtr back = kernel_from_json(Json::parse(j.dump()), blobs, *task);
    EXPECT_EQ(back->program.language, Language::triton);
    EXPECT_EQ(launch_plan_to_json(back->program), launch_plan_to_json(kp->program));
    ASSERT_TRUE(back->program.launch[0].triton);
    EXPECT_EQ(back->program.launch[0].triton->num_stages, 2);
    ASSERT_EQ(back->program.launch[0].triton_configs.size(), 1u);
    EXPECT_EQ(back->program.launch[0].triton_configs[0].num_warps, 8);
    ASSERT_EQ(back->variants.size(), 2u);
    EXPECT_EQ(back->variants[1].key, "k2");
    EXPECT_EQ(back->variants[1].image.bytes, "cubin of k2");
    EXPECT_EQ(back->variants[1].image.triton_signature[1].type, "constexpr");
    // A different variant set is a different kernel.
    Kernel other = k;
    other.variants.pop_back();
    EXPECT_NE(finish_kernel(other)->id, kp->id);
}

TEST(WorkerWire, MissingFieldsNameThemselves) {
    try {
        compile_request_from_json(Json{{"language", "cuda"}}, {});
        FAIL() << "accepted a request without code";
    } catch (const ProtocolError& e) {
        EXPECT_TRUE(has(e.what(), "code_blob")) << e.what();
    }
    try {
        image_from_json(Json{{"kind", "elf"}}, {});
        FAIL() << "accepted an unknown image kind";
    } catch (const ProtocolError& e) {
        EXPECT_TRUE(has(e.what(), "elf")) << e.what();
    }
    EXPECT_THROW(blob_at(Json{{"b", 3}}, "b", {"only one"}), ProtocolError);
}

TEST(WorkerWire, ReferenceDigestRoundTripsAfterOtherBlobs) {
    // A digest's blobs go first into the install request, after whatever the
    // message carried before: their indexes are absolute.
    ReferenceDigest d;
    d.run_ms = 1.25;
    d.device_checksums = {0xffffffffffffffffull, 7};
    d.host_outputs = {{}, {1, 2, 3, 4}, {}, {9}};
    std::vector<std::string> blobs = {"an image"};
    Json j = reference_digest_to_json(d, &blobs);
    ASSERT_EQ(blobs.size(), 3u);
    ReferenceDigest back = reference_digest_from_json(Json::parse(j.dump()), blobs);
    EXPECT_EQ(back.run_ms, d.run_ms);
    EXPECT_EQ(back.device_checksums, d.device_checksums) << "64-bit checksums survive JSON";
    EXPECT_EQ(back.host_outputs, d.host_outputs);
    EXPECT_EQ(back.bytes(), d.bytes());
    // A blob index past the message's blobs is refused, naming the field.
    j["outputs"][1]["blob"] = 9;
    try {
        reference_digest_from_json(j, blobs);
        FAIL() << "a blob index out of range was accepted";
    } catch (const ProtocolError& e) {
        EXPECT_NE(std::string(e.what()).find("\"blob\" names blob 9 of 3"), std::string::npos) << e.what();
    }
    j.erase("checksums");
    EXPECT_THROW(reference_digest_from_json(j, blobs), ProtocolError);
}

// Each load_inline record of a program's import comes through typed: which
// build made it and its steps' times; a record without times reads as 0.
TEST(WorkerWire, ProgramLoadReplyKeepsEachBuildsTimes) {
    Json reply = Json::parse(R"J({
        "loaded": true, "import_ms": 3100.5,
        "load_inline": [
            {"function": "load_inline", "name": "relu_ext", "build": "fast", "split": true,
             "bindings": {"apart": true, "main_ms": 212.0}, "ms": 3050.0, "compile_ms": 2600.0, "link_ms": 410.0,
             "linker": "default (gold failed)", "host_compiler": "clang",
             "linker_why": "ld.gold: error: cannot find -lc10", "host_compiler_why": "",
             "steps": [{"tool": "nvcc", "unit": "device", "ms": 480.0}, {"tool": "c++", "unit": "host", "ms": 2550.0},
                       {"tool": "c++", "unit": "main", "ms": 300.0}]},
            {"function": "load_inline", "name": "own_dir", "build": "torch", "why": "a build_directory of its own"},
            {"function": "load", "name": "whole", "build": "fast", "steps": [{"tool": "nvcc", "ms": 9000.0}]}
        ]})J");
    ProgramLoadReply r = wire::program_load_reply(reply);
    EXPECT_EQ(r.build, "fast+torch");
    ASSERT_EQ(r.build_fallbacks.size(), 1u);
    EXPECT_EQ(r.build_fallbacks[0], "own_dir: a build_directory of its own");
    ASSERT_EQ(r.builds.size(), 3u);
    const ProgramBuild& a = r.builds[0];
    EXPECT_EQ(a.name, "relu_ext");
    EXPECT_EQ(a.how, "fast");
    EXPECT_TRUE(a.split);
    EXPECT_TRUE(a.bindings_apart);
    EXPECT_DOUBLE_EQ(a.ms, 3050.0);
    EXPECT_DOUBLE_EQ(a.compile_ms, 2600.0);
    EXPECT_DOUBLE_EQ(a.link_ms, 410.0);
    EXPECT_EQ(a.linker, "default (gold failed)");
    EXPECT_EQ(a.host_compiler, "clang");
    EXPECT_EQ(a.linker_why, "ld.gold: error: cannot find -lc10");
    EXPECT_EQ(a.host_compiler_why, "");
    ASSERT_EQ(a.steps.size(), 3u);
    EXPECT_EQ(a.steps[1], (std::pair<std::string, double>("host", 2550.0)));
    const ProgramBuild& b = r.builds[1];
    EXPECT_EQ(b.how, "torch");
    EXPECT_FALSE(b.split);
    EXPECT_FALSE(b.bindings_apart);
    EXPECT_DOUBLE_EQ(b.ms, 0.0);
    EXPECT_TRUE(b.steps.empty());
    EXPECT_EQ(b.linker, "");
    EXPECT_EQ(b.host_compiler, "");
    ASSERT_EQ(r.builds[2].steps.size(), 1u);
    EXPECT_EQ(r.builds[2].steps[0].first, "nvcc");  // no unit: named by its tool
}
