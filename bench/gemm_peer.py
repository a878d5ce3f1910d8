"""The peer of `dlready bench gemm`: torch.matmul in Python on the same device, sizes and dtypes,
timed with the same recipe (src/torch_runtime/measure.hpp): warm-up runs, the last one calibrates how many
operations fill a >= 20 ms sample, then N samples, median seconds per operation.
Prints one JSON object: {"rows": [{"dtype", "n", "tflops"}]}."""
import argparse
import json
import math
import statistics
import time

import torch

p = argparse.ArgumentParser()
p.add_argument("--device", default="cpu")
p.add_argument("--sizes", default="256,512,1024,2048")
p.add_argument("--dtypes", default="fp32,bf16")
p.add_argument("--samples", type=int, default=10)
a = p.parse_args()
dev = torch.device(a.device)
types = {"fp32": torch.float32, "tf32": torch.float32, "fp16": torch.float16, "bf16": torch.bfloat16}


def sync():
    if dev.type == "cuda":
        torch.cuda.synchronize()


rows = []
for dt in a.dtypes.split(","):
    torch.backends.cuda.matmul.allow_tf32 = dt == "tf32"
    for n in map(int, a.sizes.split(",")):
        g = torch.Generator().manual_seed(n)
        x = torch.randn(n, n, generator=g).to(dev, types[dt])
        y = torch.randn(n, n, generator=g).to(dev, types[dt])

        def run(k):
            t = time.perf_counter()
            for _ in range(k):
                torch.matmul(x, y)
            sync()
            return time.perf_counter() - t

        one = 0
        for _ in range(3):
            one = run(1)
        inner = max(1, math.ceil(0.02 / one)) if one < 0.02 else 1
        per_op = [run(inner) / inner for _ in range(a.samples)]
        rows.append({"dtype": dt, "n": n, "tflops": 2 * n**3 / statistics.median(per_op) / 1e12})
print(json.dumps({"rows": rows, "threads": torch.get_num_threads()}))
