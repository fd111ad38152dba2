/* A program that uses an installed kbench the way another project would:
 * built through pkg-config or find_package(kbench CONFIG) alone, run with no
 * LD_LIBRARY_PATH and no KBENCH_* variables (tests/consumers/run.sh).
 *
 *   consumer TASK CANDIDATE in_process|worker
 *
 * Prints the library's version, compiles CANDIDATE for TASK in a
 * compile-only context (no GPU needed) and, with "worker", names the
 * kbench-worker executable the library started for the compile, so the test
 * can check that the library found the worker of its own prefix. */
#define _DEFAULT_SOURCE
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <kbench.h>

/* Every child process's executable (the library's compile worker is one). */
static void print_child_executables(void) {
    DIR* proc = opendir("/proc");
    struct dirent* e;
    if (!proc) return;
    while ((e = readdir(proc)) != NULL) {
        char path[300], stat_line[512], exe[4096];
        FILE* f;
        int pid = 0, ppid = 0;
        char state;
        char* close_paren;
        ssize_t n;
        if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        if (!(f = fopen(path, "r"))) continue;
        n = (ssize_t)fread(stat_line, 1, sizeof stat_line - 1, f);
        fclose(f);
        if (n <= 0) continue;
        stat_line[n] = '\0';
        /* "pid (comm) state ppid ...": comm may hold spaces, so read after ')'. */
        close_paren = strrchr(stat_line, ')');
        if (!close_paren || sscanf(stat_line, "%d", &pid) != 1 ||
            sscanf(close_paren + 1, " %c %d", &state, &ppid) != 2 || ppid != (int)getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%d/exe", pid);
        n = readlink(path, exe, sizeof exe - 1);
        if (n <= 0) continue;
        exe[n] = '\0';
        printf("worker: %s\n", exe);
    }
    closedir(proc);
}

int main(int argc, char** argv) {
    kb_context_options opts = KB_CONTEXT_OPTIONS_INIT;
    kb_candidate cand = KB_CANDIDATE_INIT;
    kb_context* ctx = NULL;
    kb_task* task = NULL;
    kb_kernel* kernel = NULL;
    const void* image = NULL;
    size_t size = 0;
    kb_status s = KB_OK;
    int rc = 1;
    if (argc != 4 || (strcmp(argv[3], "in_process") != 0 && strcmp(argv[3], "worker") != 0)) {
        fprintf(stderr, "usage: %s TASK CANDIDATE in_process|worker\n", argv[0]);
        return 2;
    }
    printf("kbench %s\n", kb_version_string());
    if (kb_version_number() / 10000 != KB_VERSION_MAJOR) {
        fprintf(stderr, "loaded kbench %s, but this program was built against major version %d\n",
                kb_version_string(), KB_VERSION_MAJOR);
        return 1;
    }
    opts.device = KB_DEVICE_NONE;
    opts.isolation = strcmp(argv[3], "worker") == 0 ? KB_ISOLATION_WORKER : KB_ISOLATION_IN_PROCESS;
    if ((s = kb_context_create(&opts, &ctx)) != KB_OK) goto out;
    if ((s = kb_load_task(argv[1], &task)) != KB_OK) goto out;
    cand.path = argv[2];
    if ((s = kb_compile(ctx, task, &cand, &kernel)) != KB_OK) goto out;
    if ((s = kb_kernel_image(kernel, &image, &size)) != KB_OK) goto out;
    printf("compiled %s for %s: %zu bytes of %s\n", argv[2], kb_task_name(task), size,
           strstr((const char*)image, ".entry") ? "PTX" : "image");
    if (opts.isolation == KB_ISOLATION_WORKER) print_child_executables();
    rc = 0;
out:
    if (rc) fprintf(stderr, "%s: %s\n", kb_status_string(s), kb_last_error());
    kb_kernel_destroy(kernel);
    kb_task_destroy(task);
    kb_context_destroy(ctx);
    return rc;
}
