#!/usr/bin/python3
"""The floor for bench/jupyter: Python's own jupyter_client (Debian python3-jupyter-client) driving the same
kind of kernel (/usr/bin/python3 -m ipykernel_launcher), served over stdin/stdout so the C++ bench can
interleave its batches with its own (the machine's speed drifts; batches side by side keep the ratio fair).

    jupyter_client_bench.py [--no-execute-sleep]
    stdout: {"start_to_first_result": s}           once the kernel answered its first cell
    stdin:  "small K" | "big K" | "quit"           → stdout: [seconds per cell, ...]

With --no-execute-sleep the kernel first gets the setting actionhost's plugin gives its kernels
(ipykernel's 0.5 ms `_execute_sleep` before each reply turned off), so the two clients can also be
compared on equal kernels.

Each cell is a full round trip as a client sees it: execute_request sent, every iopub message of the cell
read until the kernel reports idle, and the shell reply received.
"""
import json
import sys
import time

from jupyter_client.manager import KernelManager

BIG_CODE = "print('x' * 1048575)"


def run_cell(kc, code, timeout=120):
    msg_id = kc.execute(code, store_history=False, allow_stdin=False)
    texts = []
    while True:
        msg = kc.get_iopub_msg(timeout=timeout)
        if msg["parent_header"].get("msg_id") != msg_id:
            continue
        t = msg["msg_type"]
        if t == "stream":
            texts.append(msg["content"]["text"])
        elif t in ("execute_result", "display_data"):
            texts.append(msg["content"]["data"].get("text/plain", ""))
        elif t == "status" and msg["content"]["execution_state"] == "idle":
            break
    kc.get_shell_msg(timeout=timeout)
    return "".join(texts)


def main():
    no_execute_sleep = "--no-execute-sleep" in sys.argv[1:]
    t0 = time.perf_counter()
    km = KernelManager(kernel_cmd=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    if no_execute_sleep:
        run_cell(kc, "get_ipython().kernel._execute_sleep = 0")
    assert run_cell(kc, "1+1").strip() == "2"
    print(json.dumps({"start_to_first_result": time.perf_counter() - t0}), flush=True)
    try:
        for line in sys.stdin:
            words = line.split()
            if not words or words[0] == "quit":
                break
            count = int(words[1])
            times = []
            for _ in range(count):
                s = time.perf_counter()
                if words[0] == "small":
                    out = run_cell(kc, "1+1")
                    times.append(time.perf_counter() - s)
                    assert out.strip() == "2", out
                else:
                    out = run_cell(kc, BIG_CODE)
                    times.append(time.perf_counter() - s)
                    assert len(out) == 1048576, len(out)
            print(json.dumps(times), flush=True)
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


if __name__ == "__main__":
    main()
