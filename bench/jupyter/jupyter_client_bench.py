#!/usr/bin/python3
"""The floor for bench/jupyter: Python's own jupyter_client (Debian python3-jupyter-client) driving the same
kind of kernel (/usr/bin/python3 -m ipykernel_launcher). Prints one JSON object of timings in seconds.

Each cell is a full round trip as a client sees it: execute_request sent, every iopub message of the cell
read until the kernel reports idle, and the shell reply received.
"""
import json
import statistics
import sys
import time

from jupyter_client.manager import KernelManager


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
    iterations = int(sys.argv[1]) if len(sys.argv) > 1 else 30
    big_iterations = int(sys.argv[2]) if len(sys.argv) > 2 else 10
    t0 = time.perf_counter()
    km = KernelManager(kernel_cmd=[sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"])
    km.start_kernel()
    kc = km.client()
    kc.start_channels()
    kc.wait_for_ready(timeout=120)
    assert run_cell(kc, "1+1").strip() == "2"
    start_to_first = time.perf_counter() - t0

    small = []
    for _ in range(iterations):
        s = time.perf_counter()
        out = run_cell(kc, "1+1")
        small.append(time.perf_counter() - s)
        assert out.strip() == "2", out
    big = []
    for _ in range(big_iterations):
        s = time.perf_counter()
        out = run_cell(kc, "print('x' * 1048575)")
        big.append(time.perf_counter() - s)
        assert len(out) == 1048576, len(out)
    kc.stop_channels()
    km.shutdown_kernel(now=True)
    print(json.dumps({"start_to_first_result": start_to_first,
                      "one_plus_one_median": statistics.median(small),
                      "one_mb_median": statistics.median(big)}))


if __name__ == "__main__":
    main()
