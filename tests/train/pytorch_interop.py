"""What a PyTorch user does with dlready's model files, with the tutorial's own SimpleNet class.

  pytorch_interop.py load FILE DATA_DIR  -> loads FILE (torch.load(FILE, weights_only=True) or
      safetensors.torch.load_file) into SimpleNet and prints its test accuracy, mean loss and the logits of the first four test
      images, as JSON
  pytorch_interop.py int8 FILE DATA_DIR  -> reads an int8 SimpleNet from `dlready quantize` with
      safetensors.torch.load_file, dequantizes its weights (int8 x per-channel scale) into SimpleNet
      and prints the same JSON as load
  pytorch_interop.py save FILE SEED      -> saves a freshly initialised SimpleNet's state_dict
      (FILE.safetensors: safetensors.torch.save_file; FILE.pt: torch.save, as the tutorial does)
"""
import gzip
import json
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F


class SimpleNet(nn.Module):  # the tutorial's model, names and all
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(784, 256)
        self.fc2 = nn.Linear(256, 10)

    def forward(self, x):
        x = torch.relu(self.fc1(x))
        return self.fc2(x)


def idx(path, skip):
    with gzip.open(path) as f:
        return np.frombuffer(f.read()[skip:], np.uint8)


def dequantized(path):
    from safetensors import safe_open
    from safetensors.torch import load_file
    with safe_open(path, "pt") as f:
        assert f.metadata()["format"] == "dlready.int8/1", f.metadata()
    t = load_file(path)
    return {f"{layer}.{part}": (t[f"{layer}.weight"].float() * t[f"{layer}.weight_scale"].float()[:, None]
                                if part == "weight" else t[f"{layer}.bias"])
            for layer in ("fc1", "fc2") for part in ("weight", "bias")}


def load(path, data_dir, int8=False):
    if int8:
        state_dict = dequantized(path)
    elif path.endswith(".safetensors"):
        from safetensors.torch import load_file
        state_dict = load_file(path)
    else:
        state_dict = torch.load(path, weights_only=True)
    model = SimpleNet()
    model.load_state_dict(state_dict)
    model.eval()
    x = torch.from_numpy(idx(data_dir + "/t10k-images-idx3-ubyte.gz", 16).reshape(-1, 784).astype(np.float32))
    y = torch.from_numpy(idx(data_dir + "/t10k-labels-idx1-ubyte.gz", 8).astype(np.int64))
    x = (x / 255 - 0.1307) / 0.3081  # the tutorial's Normalize((0.1307,), (0.3081,))
    with torch.no_grad():
        logits = model(x)
    print(json.dumps({"test_acc": (logits.argmax(1) == y).double().mean().item(),
                      "test_loss": F.cross_entropy(logits.double(), y).item(),
                      "first_logits": logits[:4].tolist()}))


if sys.argv[1] in ("load", "int8"):
    load(sys.argv[2], sys.argv[3], int8=sys.argv[1] == "int8")
else:
    torch.manual_seed(int(sys.argv[3]))
    if sys.argv[2].endswith(".safetensors"):
        from safetensors.torch import save_file
        save_file(SimpleNet().state_dict(), sys.argv[2])
    else:
        torch.save(SimpleNet().state_dict(), sys.argv[2])
