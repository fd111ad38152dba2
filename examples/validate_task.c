/* Load a task and list its cases: works on any machine, GPU or not. */
#include <stdio.h>

#include "kbench.h"

int main(int argc, char** argv) {
    kb_task* task = NULL;
    int i;
    if (argc != 2) {
        fprintf(stderr, "usage: %s TASK.json\n", argv[0]);
        return 2;
    }
    if (kb_load_task(argv[1], &task) != KB_OK) {
        fprintf(stderr, "invalid task: %s\n", kb_last_error());
        return 1;
    }
    printf("task %s: %d cases\n", kb_task_name(task), kb_task_case_count(task));
    for (i = 0; i < kb_task_case_count(task); ++i)
        printf("  %s%s\n", kb_task_case_name(task, i), i == kb_task_perf_case(task) ? " (perf)" : "");
    kb_task_destroy(task);
    return 0;
}
