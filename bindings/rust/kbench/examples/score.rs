//! Score a candidate on device 0: compile, check every case, time against
//! the baseline. Exits 77 (skipped) when there is no CUDA device.
//! cargo run --example score -- TASK.json CANDIDATE.cu
use kbench::{Candidate, Context, ContextOptions, ScoreOptions, Task, Verdict};

fn main() -> kbench::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: {} TASK.json CANDIDATE.cu", args[0]);
        std::process::exit(2);
    }
    if kbench::device_count()? == 0 {
        println!("no CUDA device: skipped");
        std::process::exit(77);
    }
    let mut ctx = Context::new(&ContextOptions::default())?;
    let task = Task::open(&args[1])?;
    let outcome = ctx.score(&task, &Candidate::path(&args[2]), &ScoreOptions::default())?;
    let verdict = outcome.verdict().map_or("none", Verdict::name);
    println!(
        "{}: {} ({:.2}x)",
        verdict,
        outcome.message(),
        outcome.number("/speedup").unwrap_or(0.0)
    );
    std::process::exit(if outcome.passed() { 0 } else { 1 });
}
