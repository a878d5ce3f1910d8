#!/usr/bin/env python3
"""The Python peer of `dlready quantize`: what a PyTorch user does with the tutorial's SimpleNet —
torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8) on the same weights
(a state_dict .pt from `dlready export-model`) — measured the way dlready measures itself: test
accuracy on the whole test set in batches of 1000, the torch.save'd state_dict's size, and the
median of 15 timed samples (each at least 20 ms of repeated forwards, after 3 untimed ones) at
batch 1 and batch 256. Prints one JSON object with the same field names as dlready's report.

usage: quantize_peer.py STATE_DICT.pt DATA_DIR [--threads N]
"""
import argparse
import gzip
import io
import json
import statistics
import time
import warnings

import numpy as np
import torch
import torch.nn as nn

warnings.filterwarnings("ignore")  # torch.ao.quantization's deprecation notice


class SimpleNet(nn.Module):  # the tutorial's model
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def idx(path, skip):
    with gzip.open(path) as f:
        return np.frombuffer(f.read()[skip:], np.uint8)


def seconds_per_call(fn, x):
    for _ in range(3):
        fn(x)
    inner = 1
    while True:  # calibrate: enough calls for one sample to last 20 ms
        t0 = time.perf_counter()
        for _ in range(inner):
            fn(x)
        if time.perf_counter() - t0 >= 0.02 or inner >= 1 << 16:
            break
        inner *= 2
    samples = []
    for _ in range(15):
        t0 = time.perf_counter()
        for _ in range(inner):
            fn(x)
        samples.append((time.perf_counter() - t0) / inner)
    return statistics.median(samples)


def side(model, x, y):
    with torch.no_grad():
        right = sum((model(x[i:i + 1000]).argmax(1) == y[i:i + 1000]).sum().item() for i in range(0, len(x), 1000))
        buf = io.BytesIO()
        torch.save(model.state_dict(), buf)
        latency = seconds_per_call(model, x[:1])
        per_batch = seconds_per_call(model, x[:256])
    return {"test_acc": right / len(x), "bytes": buf.getbuffer().nbytes, "latency_us_batch1": 1e6 * latency,
            "images_per_s_batch256": 256 / per_batch}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("state_dict")
    p.add_argument("data")
    p.add_argument("--threads", type=int, default=0)
    a = p.parse_args()
    if a.threads:
        torch.set_num_threads(a.threads)
    model = SimpleNet()
    model.load_state_dict(torch.load(a.state_dict, weights_only=True))
    model.eval()
    x = torch.from_numpy(idx(a.data + "/t10k-images-idx3-ubyte.gz", 16).reshape(-1, 784).astype(np.float32))
    y = torch.from_numpy(idx(a.data + "/t10k-labels-idx1-ubyte.gz", 8).astype(np.int64))
    x = (x / 255 - 0.1307) / 0.3081  # the tutorial's Normalize((0.1307,), (0.3081,))
    q = torch.ao.quantization.quantize_dynamic(model, {nn.Linear}, dtype=torch.qint8)
    fp32, int8 = side(model, x, y), side(q, x, y)
    out = {"engine": torch.backends.quantized.engine, "threads": torch.get_num_threads()}
    for name, s in (("fp32", fp32), ("int8", int8)):
        out.update({f"{name}_{k}": v for k, v in s.items()})
    print(json.dumps(out))


if __name__ == "__main__":
    main()
