#!/usr/bin/env python3
"""What `safespec check URL` costs on a distant server, counted and timed.

    python3 bench/remote_bench.py [--safespec build/dev/safespec] [--shards 100] [--latency-ms 50]

Writes an fp8-quantized checkpoint of SHARDS shards (one layer each: weight,
scale, comfy_quant marker) and its index, serves it with
props/http_range_server.py on 127.0.0.1, and runs `safespec check --summary`
on the index URL three times over: without added latency (the transfer and the
command's own time), with LATENCY ms before every answer, and the same on a
checkpoint whose shards hold 8 weights of 64 KiB (the markers past the first
ranged read). Prints the requests the server saw, the body bytes it sent,
the requests in flight at most, and the ratio

    time with latency / (latency + time without)

which the README's goal bounds by 6 (the shards read one at a time give about
SHARDS + 1). Standard library only; nothing but 127.0.0.1 is contacted.
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
SERVER = os.path.join(HERE, "..", "props", "http_range_server.py")
MARKER = json.dumps({"format": "float8_e4m3fn"}, separators=(",", ":")).encode()


def shard(first, layers, rows):
    """A safetensors file in the reference writer's order (dtype descending,
    then name): F32 scales, F8_E4M3 weights, U8 markers last."""
    tensors = []
    for layer in range(first, first + layers):
        p = f"model.layers.{layer}.mlp.down_proj."
        tensors.append((p + "weight_scale", "F32", [], struct.pack("<f", 1.0)))
        tensors.append((p + "weight", "F8_E4M3", [rows, 64], b"\x38" * (rows * 64)))
        tensors.append((p + "comfy_quant", "U8", [len(MARKER)], MARKER))
    rank = {"F32": 0, "F8_E4M3": 1, "U8": 2}
    tensors.sort(key=lambda t: (rank[t[1]], t[0]))
    header, data = {"__metadata__": {"format": "pt"}}, b""
    for name, dtype, shape, raw in tensors:
        header[name] = {"dtype": dtype, "shape": shape, "data_offsets": [len(data), len(data) + len(raw)]}
        data += raw
    text = json.dumps(header, separators=(",", ":")).encode()
    text += b" " * (-len(text) % 8)
    return struct.pack("<Q", len(text)) + text + data


def write_checkpoint(root, shards, layers, rows):
    weight_map = {}
    for k in range(shards):
        name = f"model-{k + 1:05d}-of-{shards:05d}.safetensors"
        with open(os.path.join(root, name), "wb") as f:
            f.write(shard(k * layers, layers, rows))
        for layer in range(k * layers, (k + 1) * layers):
            for t in ("weight", "weight_scale", "comfy_quant"):
                weight_map[f"model.layers.{layer}.mlp.down_proj.{t}"] = name
    with open(os.path.join(root, "model.safetensors.index.json"), "w") as f:
        json.dump({"metadata": {}, "weight_map": weight_map}, f)


def run(safespec, url):
    env = dict(os.environ, no_proxy="127.0.0.1", NO_PROXY="127.0.0.1")
    start = time.monotonic()
    p = subprocess.run([safespec, "check", "--summary", url], env=env, capture_output=True, text=True)
    took = time.monotonic() - start
    if p.returncode not in (0, 1):
        sys.exit(f"safespec check {url}: exit {p.returncode}\n{p.stdout}{p.stderr}")
    return took


def counts(log, since):
    with open(log) as f:
        lines = f.read().splitlines()[since:]
    requests = sum(1 for l in lines if l.startswith("GET "))
    sent = sum(int(l.rsplit(" ", 1)[1]) for l in lines if l.startswith("sent "))
    inflight = max([int(l.split()[1]) for l in lines if l.startswith("inflight ")] or [0])
    return requests, sent, inflight, len(lines) + since


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--safespec", default=os.path.join(HERE, "..", "build", "dev", "safespec"))
    ap.add_argument("--shards", type=int, default=100)
    ap.add_argument("--latency-ms", type=int, default=50)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="safespec-remote-bench-")
    servers = []
    try:
        bases = []
        for name, shards, layers, rows in (("small", a.shards, 1, 4), ("large", 3, 8, 1024)):
            root = os.path.join(tmp, name)
            os.makedirs(root)
            write_checkpoint(root, shards, layers, rows)
            log = os.path.join(tmp, name + ".log")
            servers.append(subprocess.Popen([sys.executable, SERVER, root, log], stdout=subprocess.PIPE, text=True))
            bases.append((f"http://127.0.0.1:{servers[-1].stdout.readline().strip()}", log))
        (small, small_log), (large, large_log) = bases
        lag = f"lag{a.latency_ms}"
        t0 = run(a.safespec, f"{small}/range/model.safetensors.index.json")
        time.sleep(0.2)  # the server logs "sent" after the client has its answer
        r0, b0, i0, seen = counts(small_log, 0)
        t1 = run(a.safespec, f"{small}/{lag}/model.safetensors.index.json")
        time.sleep(0.2)
        r1, b1, i1, seen = counts(small_log, seen)
        run(a.safespec, f"{large}/range/model.safetensors.index.json")
        time.sleep(0.2)
        r2, b2, _, _ = counts(large_log, 0)
    finally:
        for server in servers:
            server.terminate()
            server.wait()
        shutil.rmtree(tmp)
    latency = a.latency_ms / 1000
    print(f"{a.shards} shards, header and marker inside the first read:")
    print(f"  no added latency: {t0 * 1000:.0f} ms, {r0} requests, {b0} body bytes, at most {i0} at once")
    print(f"  {a.latency_ms} ms a request: {t1 * 1000:.0f} ms, {r1} requests, {b1} body bytes, at most {i1} at once")
    print(f"  ratio time / (latency + time without latency) = {t1 / (latency + t0):.2f}"
          f" (one request at a time: {(a.shards + 1) * latency / (latency + t0):.1f})")
    print(f"3 shards of 8 layers, markers past the first read: {r2} requests, {b2} body bytes")


if __name__ == "__main__":
    main()
