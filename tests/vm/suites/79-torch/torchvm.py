# SPDX-License-Identifier: GPL-2.0
# Real PyTorch on simgpu, for tests/vm/suites/79-torch.sh: one step per
# run, its results as "KEY value..." lines that the suite checks. At the
# points the suite compares the module's charge with simgpu's, the step
# runs $TORCHVM_PROBE LABEL (the suite's script, which records both).
# Nothing here decides pass or fail, except that any exception other than
# the one a step expects ends the run with status 1 and its traceback.
#
# Steps:
#   limited     the tenant's view, vLLM's profiling sequence around a
#               forward pass, a held tensor, tensors until OOM, a graph
#               captured in each capture mode and replayed
#   expandable  tensors until OOM (run with PYTORCH_CUDA_ALLOC_CONF=
#               expandable_segments:True)
#   spawn       two processes of torch.multiprocessing.spawn share one
#               limit; the parent kills one with SIGKILL
#   view        the view and 2 GiB held (a tenant without a limit, or bare)
import os
import signal
import subprocess
import sys
import time

MiB = 1 << 20
t0 = time.monotonic()
import torch  # noqa: E402

print(f"time import {time.monotonic() - t0:.1f}", flush=True)  # workers' too


def out(*words):
    print(*words, flush=True)


def probe(label):
    """Let the suite record the module's charge and simgpu's now."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    subprocess.run([os.environ["TORCHVM_PROBE"], label], env=env, check=True)


def timed(name, fn, *args):
    t = time.monotonic()
    r = fn(*args)
    out(f"time {name} {time.monotonic() - t:.1f}")
    return r


def view():
    free, total = torch.cuda.mem_get_info()
    out("view", free, total)
    out("props", torch.cuda.get_device_properties(0).total_memory)


def until_oom(chunk_mib):
    """Allocate chunk_mib tensors until torch says OutOfMemoryError."""
    held = []
    try:
        for _ in range(4096):
            held.append(torch.empty(chunk_mib * MiB, dtype=torch.uint8, device="cuda"))
            torch.cuda.synchronize()
    except torch.cuda.OutOfMemoryError as e:
        out("oom OutOfMemoryError", len(held) * chunk_mib,
            torch.cuda.memory_reserved(), str(e).split("\n")[0][:120])
    else:
        out("oom none", len(held) * chunk_mib)
    probe("at-oom")
    del held
    torch.cuda.empty_cache()
    torch.cuda.synchronize()
    probe("after-oom")


def hold(mib, label):
    x = torch.empty(mib * MiB, dtype=torch.uint8, device="cuda")
    x.fill_(7)
    torch.cuda.synchronize()
    out("hold", label, torch.cuda.memory_allocated(), torch.cuda.memory_reserved())
    probe(label)
    return x


def graph(replays, mode):
    """Capture elementwise ops, a reduction and a copy in capture mode
    MODE; replay them."""
    x = torch.ones(1 << 20, device="cuda")
    y = torch.empty_like(x)
    s = torch.empty((), device="cuda")
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # warm-up, as PyTorch asks, on a side stream
        y.copy_(x * 2 + 1)
        s.copy_(y.sum())
    torch.cuda.current_stream().wait_stream(side)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, capture_error_mode=mode):
        y.copy_(x * 2 + 1)
        s.copy_(y.sum())
    probe(f"graph-before-{mode}")
    for _ in range(replays):
        g.replay()
    torch.cuda.synchronize()
    probe(f"graph-after-{mode}")
    out("graph replayed", mode, replays)


def roundtrip():
    # Copies are real on simgpu: what went in comes back.
    h = torch.arange(1 << 16, dtype=torch.int32)
    out("copy-roundtrip", bool(torch.equal(h.cuda().cpu(), h)))


def profile():
    """vLLM's start-up profiling: free memory before and after a forward
    pass, torch's reserved bytes, then empty_cache."""
    torch.cuda.empty_cache()
    free0, total = torch.cuda.mem_get_info()
    reserved0 = torch.cuda.memory_reserved()
    model = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                torch.nn.Linear(4096, 1024)).cuda()
    with torch.no_grad():
        y = model(torch.randn(256, 1024, device="cuda"))
    torch.cuda.synchronize()
    free1, _ = torch.cuda.mem_get_info()
    reserved1 = torch.cuda.memory_reserved()
    out("profile", total, free0, free1, reserved0, reserved1, tuple(y.shape) == (256, 1024))
    probe("profile")
    del model, y
    torch.cuda.empty_cache()
    torch.cuda.synchronize()
    free2, _ = torch.cuda.mem_get_info()
    out("profile-after", free2, torch.cuda.memory_reserved())
    probe("profile-after")


def step_limited():
    view()
    timed("profile", profile)
    x = timed("hold", hold, 256, "held256")
    del x
    torch.cuda.empty_cache()
    timed("oom", until_oom, 64)
    for mode in ("global", "thread_local", "relaxed"):
        timed(f"graph-{mode}", graph, 20, mode)
    roundtrip()


def step_expandable():
    out("alloc-conf", os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""))
    x = timed("hold", hold, 256, "held256")
    del x
    timed("oom", until_oom, 64)


def worker(rank, mib, q, go):
    x = torch.empty(mib * MiB, dtype=torch.uint8, device="cuda")
    torch.cuda.synchronize()
    q.put(("ready", rank, os.getpid(), torch.cuda.memory_reserved()))
    go.wait()
    if rank == 1:
        # The second asks for as much again: the limit is the pair's.
        try:
            y = torch.empty(mib * MiB, dtype=torch.uint8, device="cuda")
            torch.cuda.synchronize()
            q.put(("more", rank, "ok"))
            del y
        except torch.cuda.OutOfMemoryError:
            q.put(("more", rank, "OutOfMemoryError"))
    time.sleep(3600)
    del x


def get(q, pc, limit):
    """The workers' next message; a worker that died ends the run."""
    import queue
    end = time.monotonic() + limit
    while time.monotonic() < end:
        try:
            return q.get(timeout=2)
        except queue.Empty:
            dead = [p.exitcode for p in pc.processes if not p.is_alive()]
            if dead:
                raise RuntimeError(f"a worker ended (exit {dead}) before saying so")
    raise RuntimeError(f"no word from the workers in {limit} s")


def step_spawn():
    import torch.multiprocessing as mp
    mib = int(sys.argv[2])
    ctx = mp.get_context("spawn")
    q, go = ctx.Queue(), ctx.Event()
    t = time.monotonic()
    pc = mp.spawn(worker, args=(mib, q, go), nprocs=2, join=False)
    pids = {}
    for _ in range(2):
        _, rank, pid, reserved = get(q, pc, 300)
        pids[rank] = pid
        out("worker", rank, pid, reserved)
    out(f"time spawn {time.monotonic() - t:.1f}")
    probe("spawn-both")
    go.set()
    msg = get(q, pc, 120)
    out("more", msg[2])
    probe("spawn-more")
    os.kill(pids[0], signal.SIGKILL)
    # Not pc.join(), which would end the other on seeing one die.
    pc.processes[0].join(120)
    out("killed", pc.processes[0].exitcode)
    probe("spawn-killed")
    pc.processes[1].kill()
    pc.processes[1].join(120)
    probe("spawn-gone")


def step_view():
    view()
    x = timed("hold", hold, 2048, "held2g")
    del x


# Only in the process the suite started: spawn's workers import this file
# too (as __mp_main__), and must not run the step again.
if __name__ == "__main__":
    steps = {"limited": step_limited, "expandable": step_expandable,
             "spawn": step_spawn, "view": step_view}
    steps[sys.argv[1]]()
    import resource
    out("maxrss-mib", resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024,
        resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)
    out("done", sys.argv[1])
