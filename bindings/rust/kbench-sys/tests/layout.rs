//! The #[repr(C)] structs must match the C compiler's layout field for field:
//! this compiles a C program that prints sizeof and offsetof for each, runs
//! it, and compares. Without a C compiler ($CC or cc) it reports and passes.
use kbench_sys::*;
use std::mem::{size_of, MaybeUninit};
use std::path::PathBuf;
use std::process::Command;

/// Offsets of the named fields, computed without creating a reference to
/// uninitialised memory (ptr::addr_of!).
macro_rules! layout {
    ($ty:ident { $($field:ident),* }) => {{
        let base = MaybeUninit::<$ty>::uninit();
        let p = base.as_ptr();
        let mut lines = vec![format!("{} size {}", stringify!($ty), size_of::<$ty>())];
        $(
            let offset = unsafe { std::ptr::addr_of!((*p).$field) as usize - p as usize };
            lines.push(format!("{}.{} {}", stringify!($ty), stringify!($field), offset));
        )*
        lines
    }};
}

fn rust_layout() -> Vec<String> {
    let mut l = Vec::new();
    l.extend(layout!(kb_context_options {
        version,
        device,
        isolation,
        arch,
        cache_dir,
        cuda_home,
        worker_path,
        timeout_s,
        flags,
        limits
    }));
    l.extend(layout!(kb_limits {
        version,
        max_document_bytes,
        max_json_depth,
        max_source_bytes,
        max_headers,
        max_dims,
        max_cases,
        max_args,
        max_launch_steps,
        max_kernel_args,
        max_scratch,
        max_expression_chars,
        max_expression_depth,
        compile_memory_bytes,
        compile_cpu_s,
        compile_wall_s,
        compile_file_bytes
    }));
    l.extend(layout!(kb_candidate {
        version,
        language,
        code,
        code_size,
        path,
        launch_json,
        metadata_json,
        label
    }));
    l.extend(layout!(kb_time_options {
        version,
        mode,
        case_index,
        against_baseline,
        budget_ms,
        warmup_ms,
        min_samples,
        max_samples,
        target_rel_noise
    }));
    l.extend(layout!(kb_score_options {
        version,
        seed,
        correctness_runs,
        flags,
        timing,
        protocol,
        torch_compute
    }));
    l.extend(layout!(kb_batch_options {
        version,
        capacity,
        compile_threads,
        device_lanes
    }));
    l
}

/// The same lines, printed by a C program: "TYPE size N" and "TYPE.FIELD OFFSET".
fn c_program(lines: &[String]) -> String {
    let mut src = String::from(
        "#include <stddef.h>\n#include <stdio.h>\n#include \"kbench.h\"\nint main(void) {\n",
    );
    for line in lines {
        let key = line.split(' ').next().unwrap();
        match key.split_once('.') {
            Some((ty, field)) => {
                src += &format!(
                    "  printf(\"{} %zu\\n\", offsetof({}, {}));\n",
                    key, ty, field
                )
            }
            None => src += &format!("  printf(\"{} size %zu\\n\", sizeof({}));\n", key, key),
        }
    }
    src + "  return 0;\n}\n"
}

#[test]
fn structs_match_the_c_layout() {
    let rust = rust_layout();
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    let src = dir.join("kbench_layout.c");
    let exe = dir.join("kbench_layout");
    std::fs::write(&src, c_program(&rust)).unwrap();
    let include = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../include");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let status = match Command::new(&cc)
        .arg("-I")
        .arg(include)
        .arg(&src)
        .arg("-o")
        .arg(&exe)
        .status()
    {
        Ok(s) => s,
        Err(e) => {
            eprintln!("no C compiler ({}: {}): layout not checked", cc, e);
            return;
        }
    };
    assert!(
        status.success(),
        "{} failed to compile the layout probe",
        cc
    );
    let out = Command::new(&exe).output().unwrap();
    let c: Vec<String> = String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    assert_eq!(rust, c, "Rust layout (left) differs from C (right)");
}
