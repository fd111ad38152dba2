//! The Rust binding on a machine without a GPU: a compile-only context loads
//! a task, compiles a candidate, and reports failures as kbench::Error.
//! CTest sets KBENCH_SOURCE_DIR to the repository (for tasks/).
use std::path::PathBuf;

use kbench::{Candidate, Context, ContextOptions, Language, Status, Task};

fn source_dir() -> PathBuf {
    std::env::var_os("KBENCH_SOURCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../..")))
}

fn task_path() -> PathBuf {
    source_dir().join("tasks/elementwise/vector_add_f32/task.json")
}

fn candidate_path() -> PathBuf {
    source_dir().join("tasks/elementwise/vector_add_f32/candidates/correct.cu")
}

/// The mangled entry point of `vector_add` named in a kernel's JSON, checked
/// to be the kernel's only entry and present in its PTX image.
fn check_kernel(kernel: &kbench::Kernel) {
    let json = kernel.json();
    assert!(
        json.contains("\"image\": \"ptx\""),
        "compile-only kernels are PTX: {}",
        json
    );
    let symbol = json
        .split("\"vector_add\": \"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap_or_else(|| panic!("no symbol for vector_add in {}", json));
    assert!(
        json.contains(&format!("\"entries\": [\n    \"{}\"\n  ]", symbol)),
        "entries: {}",
        json
    );
    let ptx = String::from_utf8_lossy(kernel.image());
    assert!(
        ptx.contains(&format!(".entry {}", symbol)),
        "the image lacks .entry {}",
        symbol
    );
}

#[test]
fn task_facts() {
    let task = Task::open(task_path()).unwrap();
    assert_eq!(task.name(), "vector_add_f32");
    assert_eq!(
        task.cases(),
        ["one", "prime", "not_a_block_multiple", "perf"]
    );
    assert_eq!(task.find_case("perf"), Some(task.perf_case()));
    assert_eq!(task.find_case("no_such_case"), None);
    assert!(task.json().contains("\"vector_add_f32\""));
}

#[test]
fn compile_file() {
    let ctx = Context::compile_only().unwrap();
    let task = Task::open(task_path()).unwrap();
    let path = candidate_path();
    let kernel = ctx.compile(&task, &Candidate::path(&path)).unwrap();
    check_kernel(&kernel);
}

#[test]
fn compile_code() {
    let ctx = Context::compile_only().unwrap();
    let task = Task::open(task_path()).unwrap();
    let code = std::fs::read_to_string(candidate_path()).unwrap();
    let kernel = ctx
        .compile(
            &task,
            &Candidate::code(&code)
                .language(Language::Cuda)
                .label("inline"),
        )
        .unwrap();
    check_kernel(&kernel);
}

#[test]
fn compile_error_carries_the_log() {
    let ctx = Context::compile_only().unwrap();
    let task = Task::open(task_path()).unwrap();
    let err = ctx
        .compile(
            &task,
            &Candidate::code("__global__ void vector_add(float* c) { oops }"),
        )
        .unwrap_err();
    assert_eq!(err.status(), Status::Compile, "{}", err);
    assert!(
        err.message().contains("oops"),
        "the log is missing: {}",
        err
    );
}

#[test]
fn bad_task_names_the_json_path() {
    let text = std::fs::read_to_string(task_path()).unwrap();
    let reference = task_path().with_file_name("reference.cu");
    let bad = text
        .replacen("\"dtype\": \"f32\"", "\"dtype\": \"f33\"", 1)
        .replace(
            "\"source_file\": \"reference.cu\"",
            &format!("\"source_file\": \"{}\"", reference.display()),
        );
    assert_ne!(bad, text);
    let err = Task::load(&bad).unwrap_err();
    assert_eq!(err.status(), Status::TaskInvalid, "{}", err);
    assert!(
        err.to_string().contains("args[0].dtype"),
        "no JSON path in: {}",
        err
    );
}

#[test]
fn running_needs_a_device() {
    let mut ctx = Context::compile_only().unwrap();
    let task = Task::open(task_path()).unwrap();
    let err = ctx.run_reference(&task, 0, 0).unwrap_err();
    assert_eq!(err.status(), Status::NoDevice, "{}", err);
}

#[test]
fn device_context_without_device() {
    if kbench::device_count().unwrap() > 0 {
        return; // a GPU is present: nothing to check here
    }
    let err = Context::new(&ContextOptions::default()).unwrap_err();
    assert_eq!(err.status(), Status::NoDevice, "{}", err);
}

#[test]
fn nul_bytes_are_invalid_arguments() {
    let err = Task::load("tasks/\0.json").unwrap_err();
    assert_eq!(err.status(), Status::InvalidArgument);
}

/// &Context crosses threads for compile (Sync), and each thread's errors
/// are its own (kb_last_error is thread-local).
#[test]
fn concurrent_compiles_share_a_context() {
    let ctx = Context::compile_only().unwrap();
    let task = Task::open(task_path()).unwrap();
    let path = candidate_path();
    std::thread::scope(|s| {
        for i in 0..8 {
            let (ctx, task, path) = (&ctx, &task, &path);
            s.spawn(move || {
                if i % 2 == 0 {
                    check_kernel(&ctx.compile(task, &Candidate::path(path)).unwrap());
                } else {
                    let err = ctx
                        .compile(task, &Candidate::path("/no/such/file.cu"))
                        .unwrap_err();
                    assert_eq!(err.status(), Status::Io, "{}", err);
                    assert!(err.message().contains("/no/such/file.cu"), "{}", err);
                }
            });
        }
    });
}

#[test]
fn version_is_semver() {
    let v = kbench::version();
    assert_eq!(
        v.split('.').filter(|p| p.parse::<u32>().is_ok()).count(),
        3,
        "{}",
        v
    );
}

/// A distinct correct vector add: distinct sources miss the compile cache.
fn variant(i: u64) -> String {
    // A new source each run: no disk-cache hits.
    let salt = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
        / 1_000_000_000
        * 1000
        + u128::from(std::process::id() % 1000);
    format!(
        "// variant {}.{}\n__global__ void vector_add(const float* a, const float* b, float* c, int n) {{\n    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i < n) c[i] = a[i] + b[i];\n}}\n",
        salt, i
    )
}

#[test]
fn batch_reports_every_job_once_and_cancels() {
    let ctx = Context::compile_only().expect("context");
    let task = Task::open(task_path()).expect("task");
    let batch = ctx
        .batch(&kbench::BatchOptions {
            capacity: 16,
            compile_threads: 1,
            ..Default::default()
        })
        .expect("batch");
    let opts = kbench::ScoreOptions {
        compile_only: true,
        ..Default::default()
    };
    let sources: Vec<String> = (0..6).map(variant).collect();
    let mut ids = Vec::new();
    for (i, src) in sources.iter().enumerate() {
        let cand = Candidate::code(src).language(Language::Cuda);
        ids.push(batch.submit(&task, &cand, &opts, i as u64, None).expect("submit"));
    }
    let broken = "__global__ void vector_add() { x = ; }";
    batch
        .submit(&task, &Candidate::code(broken), &opts, 99, None)
        .expect("submit");
    assert!(batch.cancel(ids[5]), "the last job is still queued on one compile thread");
    let mut seen = std::collections::HashMap::new();
    for job in batch.results() {
        let job = job.expect("next");
        assert!(seen.insert(job.id(), job.tag()).is_none(), "job reported twice");
        match (job.tag(), job.outcome()) {
            (5, Err(e)) => assert_eq!(e.status(), Status::Cancelled),
            (99, Ok(o)) => assert_eq!(o.verdict(), Some(kbench::Verdict::CompileError)),
            (_, Ok(o)) => assert_eq!(o.verdict(), None, "compile only: {}", o.message()),
            (tag, Err(e)) => panic!("job {} failed: {}", tag, e),
        }
    }
    assert_eq!(seen.len(), 7);
    assert_eq!(batch.in_flight(), 0);
    assert!(batch.next(Some(std::time::Duration::from_millis(10))).expect("idle").is_none());
}
