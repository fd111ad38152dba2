//! Compile a candidate without a GPU.
//! cargo run --example compile_only -- TASK.json CANDIDATE.cu
use kbench::{Candidate, Context, Task};

fn main() -> kbench::Result<()> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() != 3 {
        eprintln!("usage: {} TASK.json CANDIDATE.cu", args[0]);
        std::process::exit(2);
    }
    let ctx = Context::compile_only()?;
    let task = Task::open(&args[1])?;
    let kernel = ctx.compile(&task, &Candidate::path(&args[2]))?; // Status::Compile carries the log
    println!("{}", kernel.json());
    Ok(())
}
