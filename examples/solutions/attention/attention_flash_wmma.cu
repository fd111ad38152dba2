// Example solution for tasks/attention/attention_causal_f16: a flash-style
// fused kernel on tensor cores (WMMA 16x16x16, f16 x f16 -> f32). The S x S
// score matrix never goes to memory.
// A block of 4 warps takes 64 query positions of one (batch, head); warp w
// owns query rows 16w..16w+15 of the tile. The block walks the keys in tiles
// of 64, from the first to the one holding its last query (causal), staging
// each tile of k and v in shared memory, and for each tile:
//   1. scores: each warp multiplies its 16 rows of q by the tile's k^T into a
//      16x64 f32 block of shared memory;
//   2. online softmax: lanes 2r and 2r+1 of the warp own row r (32 columns
//      each): scale by 1/sqrt(D), mask keys after the query (and past S),
//      take the running maximum m, rescale the running sum l and the f32
//      output row by exp(m_old - m_new), and write p = exp(s - m_new) rounded
//      to f16 (what the task's tolerance allows; the sums use p unrounded);
//   3. output: each warp adds p @ v to its 16 output rows, which live in f32
//      shared memory (WMMA fragments' element layout is opaque, so the
//      per-row rescale of step 2 happens there, and each 16x16 block is
//      loaded into an accumulator fragment, updated and stored back).
// At the end each row is divided by l and rounded once to f16.
// Shared memory (dynamic): q, k, v tiles of 64 x (D + 8) halves, the scores
// 64 x 68 f32, p 64 x 72 halves, the output 64 x (D + 4) f32; the paddings
// keep every WMMA pointer 32-byte aligned and spread rows over the banks.
// D is a multiple of 16 up to 128 (as the task promises): 112640 bytes at D = 128.
// Launch (attention_flash_wmma.json): grid (ceil_div(S, 64), B * H), block 128,
// shared_mem 384 (D + 8) + 256 (D + 4) + 26624.
// Expected verdict: pass
// Emulator: not checked (tensor cores through WMMA)
#include <cuda_fp16.h>
#include <mma.h>
using namespace nvcuda;

#define BQ 64   // query positions per block
#define BKV 64  // keys per tile (equal to BQ: the diagonal tile is tile blockIdx.x)
#define THREADS 128

extern "C" __global__ void __launch_bounds__(THREADS) attention_flash_wmma(const __half* q, const __half* k,
                                                                           const __half* v, __half* o, int B, int H,
                                                                           int S, int D) {
    extern __shared__ __align__(128) unsigned char smem[];
    const int ldh = D + 8, lds = BKV + 4, ldp = BKV + 8, ldo = D + 4;
    __half* Qs = reinterpret_cast<__half*>(smem);
    __half* Ks = Qs + BQ * ldh;
    __half* Vs = Ks + BKV * ldh;
    float* Ss = reinterpret_cast<float*>(Vs + BKV * ldh);
    __half* Ps = reinterpret_cast<__half*>(Ss + BQ * lds);
    float* Os = reinterpret_cast<float*>(Ps + BQ * ldp);

    const int tid = threadIdx.x, warp = tid / 32, lane = tid % 32;
    const size_t head = blockIdx.y;
    if (head >= (size_t)B * H) return;  // whole block: no thread reaches a barrier
    const int q0 = blockIdx.x * BQ;
    const __half* qh = q + head * S * D;
    const __half* kh = k + head * S * D;
    const __half* vh = v + head * S * D;
    __half* oh = o + head * S * D;
    const float scale = 1.0f / sqrtf((float)D);
    const float kMasked = -3.402823466e38f;  // below every score; exp(kMasked - m) is 0
    const __half zero = __float2half(0.0f);

    for (int e = tid; e < BQ * D; e += THREADS) {
        const int r = e / D, d = e % D;
        Qs[r * ldh + d] = q0 + r < S ? qh[(size_t)(q0 + r) * D + d] : zero;
        Os[r * ldo + d] = 0.0f;
    }
    const int row = warp * 16 + lane / 2;  // this lane's row of the tile
    const int side = lane % 2;             // and which 32 of the 64 columns
    const int qi = q0 + row;               // its query position (>= S: padding, not stored)
    float m = kMasked, l = 0.0f;

    for (int kt = 0; kt <= (int)blockIdx.x; ++kt) {
        const int k0 = kt * BKV;
        __syncthreads();  // q and o are set up; the previous tile's k and v are no longer read
        for (int e = tid; e < BKV * D; e += THREADS) {
            const int r = e / D, d = e % D;
            const bool in = k0 + r < S;
            Ks[r * ldh + d] = in ? kh[(size_t)(k0 + r) * D + d] : zero;
            Vs[r * ldh + d] = in ? vh[(size_t)(k0 + r) * D + d] : zero;
        }
        __syncthreads();

        // 1. scores of this warp's 16 rows against the 64 keys.
        for (int nb = 0; nb < BKV / 16; ++nb) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> s;
            wmma::fill_fragment(s, 0.0f);
            for (int d0 = 0; d0 < D; d0 += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::col_major> b;  // k^T: (d, key) at Ks[key][d]
                wmma::load_matrix_sync(a, Qs + warp * 16 * ldh + d0, ldh);
                wmma::load_matrix_sync(b, Ks + nb * 16 * ldh + d0, ldh);
                wmma::mma_sync(s, a, b, s);
            }
            wmma::store_matrix_sync(Ss + warp * 16 * lds + nb * 16, s, lds, wmma::mem_row_major);
        }
        __syncwarp();

        // 2. online softmax over this lane's 32 columns, combined with its partner lane.
        float* srow = Ss + row * lds;
        __half* prow = Ps + row * ldp;
        float tile_max = kMasked;
        for (int c = side * 32; c < side * 32 + 32; ++c) {
            const int kj = k0 + c;
            const float sv = kj <= qi && kj < S ? srow[c] * scale : kMasked;
            srow[c] = sv;
            tile_max = fmaxf(tile_max, sv);
        }
        tile_max = fmaxf(tile_max, __shfl_xor_sync(0xffffffffu, tile_max, 1));
        const float m_new = fmaxf(m, tile_max);  // finite: key k0 <= q0 <= qi is never masked
        const float corr = expf(m - m_new);
        float tile_sum = 0.0f;
        for (int c = side * 32; c < side * 32 + 32; ++c) {
            const float p = srow[c] == kMasked ? 0.0f : expf(srow[c] - m_new);
            prow[c] = __float2half_rn(p);
            tile_sum += p;
        }
        tile_sum += __shfl_xor_sync(0xffffffffu, tile_sum, 1);
        l = l * corr + tile_sum;
        m = m_new;
        float* orow = Os + row * ldo;
        for (int d = side; d < D; d += 2) orow[d] *= corr;
        __syncwarp();

        // 3. o += p @ v for this warp's 16 rows.
        for (int db = 0; db < D; db += 16) {
            wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
            wmma::load_matrix_sync(acc, Os + warp * 16 * ldo + db, ldo, wmma::mem_row_major);
            for (int kk = 0; kk < BKV; kk += 16) {
                wmma::fragment<wmma::matrix_a, 16, 16, 16, __half, wmma::row_major> a;
                wmma::fragment<wmma::matrix_b, 16, 16, 16, __half, wmma::row_major> b;
                wmma::load_matrix_sync(a, Ps + warp * 16 * ldp + kk, ldp);
                wmma::load_matrix_sync(b, Vs + kk * ldh + db, ldh);
                wmma::mma_sync(acc, a, b, acc);
            }
            wmma::store_matrix_sync(Os + warp * 16 * ldo + db, acc, ldo, wmma::mem_row_major);
        }
        __syncwarp();
    }

    if (qi < S) {
        const float inv = 1.0f / l;
        for (int d = side; d < D; d += 2) oh[(size_t)qi * D + d] = __float2half_rn(Os[row * ldo + d] * inv);
    }
}
