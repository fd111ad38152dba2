// How a Triton-compiled kernel is launched, derived from what Triton compiled
// (its metadata JSON, the signature it compiled, the PTX .entry declaration)
// and from the installed Triton's version, never assumed. Pure functions, no
// device: the launcher (src/exec/) applies the result, and CPU tests check it
// against metadata of several Triton versions (tests/fixtures/triton/).
//
// The recipe (research notes A2, from Triton's own launcher):
//   block      = warp_size * num_warps (the metadata's num_warps, which may
//                differ from the one asked for), 1, 1
//   shared     = metadata "shared" bytes, all dynamic; above 48 KiB the
//                kernel's limit is raised to the device's opt-in maximum
//   parameters = the signature's non-constexpr entries in declaration order
//                (declared tl.constexpr and values specialised to 1 are
//                compiled in), then the hidden trailing scratch pointers of
//                the Triton version: none before 3.3, global scratch in 3.3
//                and 3.4, global and profile scratch from 3.5
//   scratch    = NULL when its size is 0, else grid x num_ctas x size bytes
//   clusters   = from 3.6 the cluster is (num_ctas, 1, 1) and grid x is
//                multiplied by num_ctas; before, metadata "cluster_dims"
//                multiplies each grid axis
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "compiler/triton_types.h"
#include "util/json.h"

namespace kb {

struct TritonVersion {
    int major = 0, minor = 0, patch = 0;
    std::string text;  // as Triton spells it ("3.6.0", "3.5.0+git1234")
    bool known() const { return major > 0; }
    bool at_least(int ma, int mi) const { return major > ma || (major == ma && minor >= mi); }
};
// "3.6.0" -> {3, 6, 0}; anything unparsable -> major 0.
TritonVersion parse_triton_version(const std::string& text);
// How many hidden trailing pointer parameters kernels of this version take.
int triton_hidden_param_count(const TritonVersion& v);

struct TritonParam {
    enum class Kind { arg, global_scratch, profile_scratch };
    Kind kind = Kind::arg;
    int arg = -1;        // Kind::arg: the launch entry's argument it takes
    std::string name;    // the kernel's parameter name, or "global_scratch" / "profile_scratch"
    std::string type;    // Triton type; "" when unknown (given binaries)
    size_t bytes = 0;    // size of the value passed; 0 when unknown
};

struct TritonLaunch {
    std::string kernel;        // the entry symbol (metadata "name")
    TritonVersion version;
    int num_warps = 4;
    int warp_size = 32;
    int num_ctas = 1;
    int cluster[3] = {1, 1, 1};  // cluster shape in CTAs
    int64_t shared = 0;          // dynamic shared memory, bytes
    int64_t global_scratch_size = 0, global_scratch_align = 1;
    int64_t profile_scratch_size = 0, profile_scratch_align = 1;
    bool cooperative = false;    // launch_cooperative_grid
    bool pdl = false;            // launch_pdl (programmatic dependent launch)
    std::vector<TritonParam> params;  // every parameter of the entry, hidden ones last

    unsigned threads_per_block() const { return unsigned(warp_size * num_warps); }
    int cluster_size() const { return cluster[0] * cluster[1] * cluster[2]; }
    // cuLaunchKernelEx with attributes (cluster, cooperative, PDL) rather than cuLaunchKernel.
    bool needs_launch_attributes() const { return cluster_size() > 1 || cooperative || pdl; }
    // The grid the driver gets for the grid a launch entry asks for (clusters multiply it).
    void driver_grid(const int64_t grid[3], int64_t out[3]) const;
    // Bytes of a hidden scratch buffer of `per_cta` bytes per CTA for a launch
    // of `grid` (0 when per_cta is 0: the pointer is then NULL).
    int64_t scratch_bytes(int64_t per_cta, const int64_t grid[3]) const;
    // How many of `params` are the launch entry's arguments.
    size_t arg_param_count() const;
    // For kb_kernel_json: block, shared memory, parameters, hidden scratch.
    Json to_json() const;
};

// The launch of a kernel Triton compiled from source (path "triton"):
// parameters from `signature` (what the compile used), checked against the
// PTX .entry declaration (`ptx_entry`, may be empty) and the version's
// hidden parameters. Throws kb::Error(KB_ERR_INTERNAL) when they disagree:
// a Triton whose launch ABI kbench does not know.
TritonLaunch derive_triton_launch(const std::string& metadata_json, const std::vector<TritonSignatureEntry>& signature,
                                  const std::string& ptx_entry);

// The launch of a precompiled Triton cubin (language triton_binary), whose
// signature is not in the metadata: the launch entry's `arg_count` arguments
// (sizes unknown; the launcher checks them with cuFuncGetParamInfo), then the
// version's hidden parameters. Throws kb::Error(KB_ERR_INVALID_ARGUMENT)
// naming the field when the metadata is unusable.
TritonLaunch derive_triton_binary_launch(const std::string& metadata_json, size_t arg_count);

// Bytes of a value of Triton type `type` as the launcher passes it ("*fp32" 8,
// "i32" 4, "fp16" 2, "u1" 1, ...); 0 for "constexpr" or an unknown type.
size_t triton_type_bytes(const std::string& type);

// The `.entry NAME(...)` declaration of `name` in PTX text (the whole entry
// line through its closing parenthesis), or "" when absent.
std::string ptx_entry_declaration(const std::string& ptx, const std::string& name);
// The byte size of each parameter of a PTX .entry declaration, in order
// (".param .u64 .ptr ..." 8, ".param .align 2 .b8 x[2]" 2, ".param .u32" 4).
std::vector<size_t> ptx_entry_param_bytes(const std::string& entry);

}  // namespace kb
