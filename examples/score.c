/* Score a candidate: compile, check every case, time against the baseline.
 * This is the whole embedding an RL reward loop needs. */
#include <stdio.h>

#include "kbench.h"

int main(int argc, char** argv) {
    kb_context* ctx = NULL;
    kb_task* task = NULL;
    kb_result* result = NULL;
    kb_candidate cand = KB_CANDIDATE_INIT;
    kb_status s;
    int devices = 0;
    double speedup = 0.0;
    if (argc != 3) {
        fprintf(stderr, "usage: %s TASK.json CANDIDATE.cu\n", argv[0]);
        return 2;
    }
    kb_device_count(&devices);
    if (devices == 0) {
        printf("no CUDA device: skipped (%s)\n", kb_last_error());
        return 77;
    }
    if ((s = kb_context_create(NULL, &ctx)) != KB_OK || (s = kb_load_task(argv[1], &task)) != KB_OK) {
        fprintf(stderr, "%s: %s\n", kb_status_string(s), kb_last_error());
        kb_context_destroy(ctx);
        return 1;
    }
    cand.path = argv[2];
    s = kb_score(ctx, task, &cand, NULL, &result);
    if (s != KB_OK) {
        fprintf(stderr, "%s: %s\n", kb_status_string(s), kb_last_error());
    } else {
        printf("%s: %s\n", kb_verdict_string(kb_result_verdict(result)), kb_result_message(result));
        if (kb_result_get_number(result, "/speedup", &speedup) == KB_OK) printf("speedup %.3fx\n", speedup);
    }
    s = s == KB_OK && kb_result_verdict(result) == KB_VERDICT_PASS ? KB_OK : KB_ERR_INTERNAL;
    kb_result_destroy(result);
    kb_task_destroy(task);
    kb_context_destroy(ctx);
    return s == KB_OK ? 0 : 1;
}
