#!/usr/bin/env python3
"""How much of each case study a user writes once for every device kind, by the compilers' view.

Usage: tools/reuse.py   (prints the Markdown of docs/kinds.md, "How much code is shared between kinds")

Each case study apps/<name>/ (one with <name>.cpp and <name>_kernels.hpp) is preprocessed with the
project's own compile commands, taken from two configured (never built) trees: a CPU-only one,
where g++ compiles <name>.cpp, and a CUDA one, where nvcc compiles it as CUDA. The line markers of
the preprocessed text say which source lines of the case study's own files (apps/<name>/...) each
build keeps. A line kept by both builds is written once for every kind; a line kept by one build
only is kind-specific. The same is done for the native twins (OpenMP and CUDA), and cloc counts
the same files for a cross-check. Python 3 standard library only.
"""
import json
import re
import shlex
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILDS = {"cpu": ROOT / "build/reuse-cpu", "cuda": ROOT / "build/reuse-cuda"}
MARKER = re.compile(r'^#\s*(\d+)\s+"((?:[^"\\]|\\.)*)"')  # gcc's '# 12 "apps/x/x.cpp" 2'
PAPER = "Supporting the Xeon Phi coprocessor in a Heterogeneous Programming Model"  # docs/references.md


def die(message):
    sys.exit(f"tools/reuse.py: {message}")


def find_tools():
    """The compilers and counters this measure needs; none of them is optional."""
    found = {"g++": shutil.which("g++"), "cmake": shutil.which("cmake"), "cloc": shutil.which("cloc")}
    # CMake itself falls back on /usr/local/cuda when nvcc is not on PATH (cmake/ctrl_cuda.cmake).
    nvcc = shutil.which("nvcc") or shutil.which("nvcc", path="/usr/local/cuda/bin")
    found["nvcc"] = nvcc
    why = {"g++": "the CPU view is g++'s preprocessing of each program",
           "nvcc": "the GPU view is nvcc's preprocessing of each program (install the CUDA toolkit)",
           "cmake": "the compile commands come from configuring the project",
           "cloc": "the cross-check counts the same files with cloc (apt-get install cloc)"}
    for tool, path in found.items():
        if not path:
            die(f"{tool} not found: {why[tool]}")
    return found


def configure(kind, tools):
    """Configure (not build) a tree and return its compile commands, keyed by source path."""
    args = [tools["cmake"], "--preset", "dev", "-B", str(BUILDS[kind]), f"-DCMAKE_CXX_COMPILER={tools['g++']}",
            "-DCTRL_BUILD_TESTS=OFF", "-DCTRL_BUILD_BENCH=OFF", f"-DCTRL_CUDA={'ON' if kind == 'cuda' else 'OFF'}"]
    if kind == "cuda":
        args.append(f"-DCMAKE_CUDA_COMPILER={tools['nvcc']}")
    run(args, ROOT)
    entries = json.loads((BUILDS[kind] / "compile_commands.json").read_text())
    return {str(Path(e["file"]).resolve()): e for e in entries}


def run(args, cwd):
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    if done.returncode != 0:
        die(f"failed ({done.returncode}): {shlex.join(args)}\n{done.stderr[-4000:]}")
    return done


def compile_args(entry):
    """The entry's command without its object output and without -c."""
    args = entry["arguments"] if "arguments" in entry else shlex.split(entry["command"])
    out = args.index("-o")
    return [a for a in args[:out] + args[out + 2:] if a != "-c"]


def host_compiler_passes(entry):
    """g++ compiling the file: one pass, its own -E."""
    return [compile_args(entry) + ["-E"]]


def nvcc_passes(entry):
    """nvcc compiling the file as CUDA preprocesses it twice: once for the host (cudafe++'s
    input) and once per GPU architecture (__CUDA_ARCH__ defined, cicc's input). `nvcc -E` gives
    the device pass only, so ask nvcc for its own plan (--dryrun) and run its -E steps, as given,
    writing to stdout."""
    plan = run(compile_args(entry) + ["-c", "-o", "reuse-dryrun.o", "--dryrun"], entry["directory"]).stderr
    passes = []
    for line in plan.splitlines():
        if line.startswith("#$ ") and " -E " in line:
            args = shlex.split(line[3:])
            out = args.index("-o")
            passes.append(args[:out] + args[out + 2:])
    if len(passes) < 2:
        die(f"nvcc --dryrun listed {len(passes)} preprocessing step(s) for {entry['file']}, not host + device")
    return passes


def kept_lines(passes, cwd, own_dir):
    """(file, line) of every non-blank line of own_dir's files that some pass keeps. -E has
    already removed comments, #include, #if, #define and #pragma once, and the branches of #if
    the build does not take; what it passes on (#pragma omp, #pragma unroll) is code."""
    kept = set()
    for args in passes:
        path, line, names = None, 0, {}
        for text in run(args, cwd).stdout.splitlines():
            marker = MARKER.match(text)
            if marker:
                line = int(marker[1])
                path = names.setdefault(marker[2], own_path(marker[2], cwd, own_dir))
                continue
            if path and text.strip():
                kept.add((path, line))
            line += 1
    return kept


def own_path(name, cwd, own_dir):
    """The path relative to the repository if the file is under own_dir, else None."""
    path = (Path(cwd) / name).resolve()
    return str(path.relative_to(ROOT)) if path.is_relative_to(own_dir) else None


def view(commands, source, passes_of, own_dir):
    """The lines one build keeps of source and its own headers; None where it is not built."""
    entry = commands.get(str(source))
    return kept_lines(passes_of(entry), entry["directory"], own_dir) if entry else None


def cloc_code(files):
    out = run([shutil.which("cloc"), "--json", "--quiet", *sorted(files)], ROOT).stdout
    return json.loads(out)["SUM"]["code"] if out.strip() else 0


def directives(files, kept):
    """Preprocessor lines of these files that no build keeps (#include, #pragma once, #if ...)."""
    count = 0
    for name in files:
        for number, text in enumerate((ROOT / name).read_text().splitlines(), 1):
            count += text.lstrip().startswith("#") and (name, number) not in kept
    return count


def split(a, b):
    """Lines kept by both views, by the first only, by the second only, and the reuse share."""
    both, only_a, only_b = a & b, a - b, b - a
    total = len(both) + len(only_a) + len(only_b)
    return len(both), len(only_a), len(only_b), f"{100 * len(both) / total:.1f} %" if total else "—"


def cross_check(name, label, lines):
    """cloc over the files these lines come from; the gap should be directives only."""
    files = {path for path, _ in lines}
    cloc = cloc_code(files)
    gap = cloc - len(lines)
    dirs = directives(files, lines)
    return f"| {name} | {label} | {len(files)} | {cloc} | {len(lines)} | {dirs} | {gap - dirs} |"


def measure(app, commands):
    """One case study's row of the reuse table and its rows of the cross-check."""
    name, own = app.name, app.resolve()
    cpu = view(commands["cpu"], own / f"{name}.cpp", host_compiler_passes, own)
    gpu = view(commands["cuda"], own / f"{name}.cpp", nvcc_passes, own)
    if cpu is None or gpu is None:
        die(f"no compile command for apps/{name}/{name}.cpp: is it a ctrl_case_study() in its CMakeLists.txt?")
    shared, cpu_only, gpu_only, reuse = split(cpu, gpu)
    row = f"| {name} | {shared} | {cpu_only} | {gpu_only} | **{reuse}** | "
    checks = [cross_check(name, "ctrl program", cpu | gpu)]
    omp = view(commands["cpu"], own / f"{name}_native.cpp", host_compiler_passes, own)
    cu = view(commands["cuda"], own / f"{name}_native_cuda.cu", nvcc_passes, own)
    if omp is None or cu is None:  # a case study without both twins has nothing to contrast
        return row + " | ".join(["—"] * 4) + " |", checks
    twins_shared, _, _, twins_reuse = split(omp, cu)
    checks.append(cross_check(name, "twins", omp | cu))
    return row + f"{len(omp)} | {len(cu)} | {twins_shared} | {twins_reuse} |", checks


def offload_size():
    """The offload kind's own file (cloc), and the lines elsewhere that name it."""
    code = cloc_code(["src/offload/offload_kind.cpp"])
    backends = sum("offload" in line for line in (ROOT / "src/backends.cpp").read_text().splitlines())
    cmake = cloc_code(["src/offload/CMakeLists.txt"]) + sum(
        "add_subdirectory(offload)" in line for line in (ROOT / "src/CMakeLists.txt").read_text().splitlines())
    return (f"What the offload kind had to write: {code} lines in src/offload/offload_kind.cpp (cloc), "
            f"{backends} lines in src/backends.cpp (declaration and registration) and {cmake} lines of CMake.")


def table(columns, left, rows):
    """A Markdown table: the first `left` columns are names, the others numbers."""
    rule = ["---"] * left + ["---:"] * (len(columns) - left)
    return "\n".join(["| " + " | ".join(columns) + " |", "| " + " | ".join(rule) + " |", *rows])


def prose(text):
    """A paragraph, wrapped as the docs are (docs/kinds.md pastes this output)."""
    return textwrap.fill(text, width=100)


def main():
    tools = find_tools()
    commands = {kind: configure(kind, tools) for kind in BUILDS}
    apps = [d for d in sorted((ROOT / "apps").iterdir()) if (d / f"{d.name}.cpp").exists()
            and (d / f"{d.name}_kernels.hpp").exists()]
    rows, checks = zip(*(measure(app, commands) for app in apps))
    print("\n\n".join([
        table(["case study", "ctrl program: every kind", "CPU only (g++ build)", "GPU only (nvcc build)", "reuse",
               "OpenMP twin", "CUDA twin", "twins: written once", "twins' reuse"], 1, rows),
        prose(f"For comparison, the Xeon Phi paper (*{PAPER}*) reports 97 % of the code reused between "
              "the GPU and the Xeon Phi implementations of its Mandelbrot benchmark."),
        prose("Cross-check with cloc over the same files (cloc counts whole files, directives included; "
              "the builds count the lines they keep):"),
        table(["case study", "program", "files", "cloc code lines", "kept by a build", "directives no build keeps",
               "other lines no build keeps"], 2, [line for pair in checks for line in pair]),
        prose(offload_size())]))


if __name__ == "__main__":
    main()
