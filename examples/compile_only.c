/* Compile a candidate without a GPU: a compile-only context emits PTX. */
#include <stdio.h>

#include "kbench.h"

int main(int argc, char** argv) {
    kb_context_options opts = KB_CONTEXT_OPTIONS_INIT;
    kb_candidate cand = KB_CANDIDATE_INIT;
    kb_context* ctx = NULL;
    kb_task* task = NULL;
    kb_kernel* kernel = NULL;
    kb_status s;
    int rc = 1;
    if (argc != 3) {
        fprintf(stderr, "usage: %s TASK.json CANDIDATE.cu\n", argv[0]);
        return 2;
    }
    opts.device = KB_DEVICE_NONE;
    if ((s = kb_context_create(&opts, &ctx)) != KB_OK) goto out;
    if ((s = kb_load_task(argv[1], &task)) != KB_OK) goto out;
    cand.path = argv[2];
    if ((s = kb_compile(ctx, task, &cand, &kernel)) != KB_OK) goto out;
    printf("%s\n", kb_kernel_json(kernel));
    rc = 0;
out:
    if (rc) fprintf(stderr, "%s: %s\n", kb_status_string(s), kb_last_error());
    kb_kernel_destroy(kernel);
    kb_task_destroy(task);
    kb_context_destroy(ctx);
    return rc;
}
