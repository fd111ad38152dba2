//! The Rust binding on a GPU: a correct candidate passes with a speedup, a
//! wrong one gets wrong_answer. Without a CUDA device it prints why and
//! passes vacuously (cargo has no "skipped"); bench/run_device.sh runs this
//! test binary on the GPU machine and checks its output says it scored.
use std::path::PathBuf;

use kbench::{Candidate, Context, ContextOptions, ScoreOptions, Task, Verdict};

fn candidates() -> PathBuf {
    std::env::var_os("KBENCH_SOURCE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../../..")))
        .join("tasks/elementwise/vector_add_f32")
}

#[test]
fn score_on_gpu() {
    if kbench::device_count().expect("device_count") == 0 {
        println!("no CUDA device: score_on_gpu skipped");
        return;
    }
    let dir = candidates();
    let mut ctx = Context::new(&ContextOptions::default()).expect("a context on device 0");
    let task = Task::open(dir.join("task.json")).expect("the task loads");
    for (name, want) in [("correct.cu", Verdict::Pass), ("wrong.cu", Verdict::WrongAnswer)] {
        let path = dir.join("candidates").join(name);
        let outcome = ctx
            .score(&task, &Candidate::path(&path), &ScoreOptions::default())
            .expect("score");
        assert_eq!(outcome.verdict(), Some(want), "{}: {}", name, outcome.message());
        if want == Verdict::Pass {
            let speedup = outcome.number("/speedup").expect("a passing score has a speedup");
            assert!(speedup > 0.0, "{}: speedup {}", name, speedup);
        }
        println!("scored {}: {:?}: {}", name, outcome.verdict(), outcome.message());
    }
}
